/*
 * What a frame is called in reports: the label of a frame hpa could not
 * name, and names made safe for folded stacks.
 */
#ifndef HPA_NAMES_H
#define HPA_NAMES_H

#include "hpa/compat.h"
#include "hpa/profile.h"
#include "hpa/view.h"

/*
 * The name of a frame hpa could not symbolize; malloc'ed: "MODULE+0xOFFSET"
 * (file offset) in a mapped file, else "0xADDR ([anon])" or
 * "0xADDR (unmapped)".
 */
char *hpa_frame_label(const struct hpa_profile *prof, struct hpa_frame f);

/*
 * Make a frame name safe for folded text, in place: ';' becomes ':',
 * control characters '?', and a trailing " <digits>" becomes "_<digits>".
 */
void hpa_folded_name(char *name);

/* A frame's name in folded stacks (full, "[inline]" marked, made safe); malloc'ed. */
char *hpa_folded_frame(const struct hpa_profile *prof, struct hpa_frame f);

#endif
