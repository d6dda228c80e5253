/* The string buffer: appends of every kind, growth past any first guess, detach. */
#include "hpa/compat.h"

#include <stdlib.h>
#include <string.h>

#include "hpa/strbuf.h"
#include "test.h"

int main(void)
{
	struct hpa_strbuf sb = HPA_STRBUF_INIT;
	char *s, big[5000];
	size_t i;

	s = hpa_sb_detach(&sb);
	CHECK_STR_EQ(s, "");
	free(s);

	hpa_sb_adds(&sb, "heap");
	hpa_sb_addc(&sb, '_');
	hpa_sb_add(&sb, "v2/xyz", 3);
	hpa_sb_addf(&sb, "/%d %s", 524288, "B");
	CHECK_STR_EQ(sb.buf, "heap_v2//524288 B");
	CHECK_INT_EQ(sb.len, 17);

	/* A printf longer than the room left: formatted again after growing. */
	memset(big, 'x', sizeof(big) - 1);
	big[sizeof(big) - 1] = '\0';
	hpa_sb_addf(&sb, "[%s]", big);
	CHECK_INT_EQ(sb.len, 17 + 2 + 4999);
	CHECK_INT_EQ(strlen(sb.buf), sb.len);
	CHECK(sb.buf[17] == '[' && sb.buf[sb.len - 1] == ']');
	for (i = 18; i < sb.len - 1 && sb.buf[i] == 'x'; i++)
		;
	CHECK_INT_EQ(i, sb.len - 1);

	/* Embedded NUL bytes are kept; len counts them. */
	hpa_sb_release(&sb);
	hpa_sb_add(&sb, "a\0b", 3);
	CHECK_INT_EQ(sb.len, 3);
	CHECK(sb.buf[1] == '\0' && sb.buf[2] == 'b' && sb.buf[3] == '\0');
	s = hpa_sb_detach(&sb);
	CHECK(sb.buf == NULL && sb.len == 0);
	free(s);

	s = hpa_xasprintf("%s+0x%llx", "libLLVM-14.so.1", 0x5dfeb0ULL);
	CHECK_STR_EQ(s, "libLLVM-14.so.1+0x5dfeb0");
	free(s);
	TEST_MAIN_END();
}
