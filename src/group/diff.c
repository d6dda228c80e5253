#include "hpa/compat.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hpa/diag.h"
#include "hpa/diff.h"
#include "hpa/group.h"
#include "hpa/strtab.h"
#include "hpa/view.h"
#include "hpa/xalloc.h"

static double side_total(const struct hpa_profile *prof, const struct hpa_base_opts *opts, bool base)
{
	double t = 0;
	size_t i;

	for (i = 0; i < prof->samples_nr; i++) {
		const struct hpa_sample *s = &prof->samples[i];
		if (s->thread == opts->view.thread && prof->inputs[s->input - 1].is_base == base)
			t += s->v[opts->view.value];
	}
	return t;
}

/*
 * Drop the samples of every stack whose weighted sum is negative (into
 * dropped[], per sample).  Stacks
 * are grouped by the engine and key --collapse uses (group.h), over the
 * view's frames, which are known by module and offset: so exactly the
 * stacks a writer would print negative go, whatever run they came from.
 */
static void drop_negative(const struct hpa_profile *prof, const struct hpa_base_opts *opts,
			  const double *weights, uint8_t *dropped)
{
	struct hpa_view_opts vo = opts->view;
	struct hpa_strtab texts;
	struct hpa_stack_group *groups;
	uint32_t *group_of = xcalloc(prof->samples_nr + 1, sizeof(*group_of));
	size_t i;
	double total;

	vo.weights = weights;
	hpa_strtab_init(&texts);
	hpa_group_stacks(prof, &vo, &hpa_folded_format, &texts, &groups, &total, group_of, NULL);
	for (i = 0; i < prof->samples_nr; i++) {
		const struct hpa_stack_group *g = group_of[i] ? &groups[group_of[i] - 1] : NULL;
		dropped[i] = g && g->after - g->before < 0;
	}
	free(groups);
	free(group_of);
	hpa_strtab_release(&texts);
}

int hpa_apply_base(const struct hpa_profile *prof, const struct hpa_base_opts *opts, struct hpa_base_out *out)
{
	double *weights = xcalloc(prof->inputs_nr + 1, sizeof(*weights));
	size_t i, base = 0;

	out->weights = weights;
	out->dropped = NULL;
	for (i = 0; i < prof->inputs_nr; i++)
		weights[i] = prof->inputs[i].weight;
	for (i = 0; i < prof->inputs_nr && !base; i++)
		if (prof->inputs[i].is_base)
			base = i + 1;   /* --base, or a two-column folded file's first column */
	if (!base)
		return 0;
	if (opts->normalize) {
		double p = side_total(prof, opts, false), b = side_total(prof, opts, true);
		if (b == 0) {
			hpa_warn("%s: the base has no %s; --normalize leaves it as is",
				 opts->name ? opts->name : prof->inputs[base - 1].path,
				 hpa_value_name(opts->view.value));
		} else {
			for (i = 0; i < prof->inputs_nr; i++)
				if (prof->inputs[i].is_base)
					weights[i] = -(p / b);
		}
	}
	if (opts->drop_negative) {
		out->dropped = xcalloc(prof->samples_nr + 1, sizeof(*out->dropped));
		drop_negative(prof, opts, weights, out->dropped);
	}
	return 0;
}

void hpa_base_out_release(struct hpa_base_out *out)
{
	free(out->weights);
	free(out->dropped);
	memset(out, 0, sizeof(*out));
}
