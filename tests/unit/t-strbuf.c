/* The string buffer: appends of every kind, growth past any first guess, detach. */
#include "hpa/compat.h"

#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hpa/strbuf.h"
#include "test.h"

/* Does hpa_lltoa() write v otherwise than printf("%lld")? */
static int lltoa_bad(long long v)
{
	char want[32], got[HPA_LLTOA_MAX + 1];
	size_t n = hpa_lltoa(got, v);

	got[n] = '\0';
	snprintf(want, sizeof(want), "%lld", v);
	return strcmp(got, want) != 0;
}

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

	/* hpa_fixed() writes what printf("%.*f") writes: ties, signs, zeros, big and tiny values. */
	{
		static const double fixed[] = { 0, -0.0, 0.5, 1.5, 2.5, -2.5, 0.125, 0.375, 1.005,
			2.675, 0.045, 99.995, 1e-10, -1e-10, 123456789.987654321, 0.99680335,
			1186.225, 9007199254740991.0, 9007199254740993.0, 1e300, -7.5e-5,
			4503599627370495.5, 0.1, 0.7, 1.0 / 3, 4.9e-324, -2.2250738585072009e-308,
			2.2250738585072014e-308 };
		char want[HPA_FIXED_MAX], got[HPA_FIXED_MAX];
		unsigned prec, bad = 0;
		uint64_t x = 88172645463325252ULL;

		for (i = 0; i < sizeof(fixed) / sizeof(fixed[0]); i++)
			for (prec = 0; prec <= 9; prec++) {
				snprintf(want, sizeof(want), "%.*f", (int)prec, fixed[i]);
				CHECK_INT_EQ(hpa_fixed(got, fixed[i], prec), strlen(want));
				CHECK_STR_EQ(got, want);
			}
		for (i = 0; i < 300000; i++) {   /* random values at every scale, and exact ties */
			double v;
			x ^= x << 13, x ^= x >> 7, x ^= x << 17;
			v = ldexp((double)(x >> 11), (int)(x % 90) - 80) * (x & 1 ? -1 : 1);
			if (i % 3 == 0)
				v = (double)(x % 2000000) / 1024;   /* ties at 2 and fewer digits */
			prec = (unsigned)(x >> 40) % 10;
			snprintf(want, sizeof(want), "%.*f", (int)prec, v);
			hpa_fixed(got, v, prec);
			bad += strcmp(got, want) != 0;
		}
		CHECK_INT_EQ(bad, 0);
	}

	/* hpa_lltoa() writes what printf("%lld") writes: signs, the ends, every digit count. */
	{
		char got[HPA_LLTOA_MAX + 1];
		long long v, p10 = 1;
		uint64_t x = 2463534242ULL;
		unsigned bad = 0;
		size_t n;

		for (i = 0; i < 19; i++) {   /* around 10^0 .. 10^18 */
			for (v = p10 - 2; v <= p10 + 1; v++)
				bad += lltoa_bad(v) + lltoa_bad(-v);
			if (i < 18)
				p10 *= 10;
		}
		for (i = 0; i < 200000; i++) {
			x ^= x << 13, x ^= x >> 7, x ^= x << 17;
			bad += lltoa_bad((long long)(x >> (x % 64)));
		}
		for (v = 4294967293LL; v <= 4294967298LL; v++)   /* where 32-bit arithmetic ends */
			bad += lltoa_bad(v) + lltoa_bad(-v);
		n = hpa_lltoa(got, LLONG_MIN);
		got[n] = '\0';
		CHECK_STR_EQ(got, "-9223372036854775808");
		n = hpa_lltoa(got, LLONG_MAX);
		got[n] = '\0';
		CHECK_STR_EQ(got, "9223372036854775807");
		CHECK_INT_EQ(bad, 0);
	}

	/* hpa_sb_add_int() appends hpa_lltoa()'s digits, growing the buffer from nothing. */
	{
		struct hpa_strbuf out = HPA_STRBUF_INIT, want = HPA_STRBUF_INIT;
		static const long long v[] = { 0, 7, -7, 10, 99, 100, -1000, 12345, 999999999999,
			LLONG_MIN, LLONG_MAX };
		size_t k;

		for (i = 0; i < 3000; i++) {
			k = (size_t)i % (sizeof(v) / sizeof(v[0]));
			hpa_sb_add_int(&out, v[k]);
			hpa_sb_addc(&out, ',');
			hpa_sb_addf(&want, "%lld,", v[k]);
		}
		CHECK_INT_EQ(out.len, want.len);
		CHECK_STR_EQ(out.buf, want.buf);
		hpa_sb_release(&out);
		hpa_sb_release(&want);
	}

	/* hpa_g17() writes what printf("%.17g") writes: carries, ties, every scale. */
	{
		static const double g[] = { 1, 1.5, 9.9999999999999982, 99.999999999999986,
			999999999999999.88, 999999999999999.75, 123456.78901234567, 0.5, 1e15, 1e-5,
			-2.5, 4503599627370495.5, 1.0 / 3, 2.0 / 3, 1e300, 0, -0.0 };
		char want[HPA_FIXED_MAX], got[HPA_FIXED_MAX];
		uint64_t x = 1181783497276652981ULL;
		unsigned bad = 0;

		for (i = 0; i < sizeof(g) / sizeof(g[0]); i++) {
			snprintf(want, sizeof(want), "%.17g", g[i]);
			CHECK_INT_EQ(hpa_g17(got, g[i]), strlen(want));
			CHECK_STR_EQ(got, want);
		}
		for (i = 0; i < 600000; i++) {
			double v;
			int e;
			x ^= x << 13, x ^= x >> 7, x ^= x << 17;
			e = (int)(x % 50);
			if (i % 3 == 0)   /* an odd multiple of 2^-(d+1): a tie at 17 digits */
				v = ldexp((double)((x >> 20) | 1), -(int)(x % 18) - 1);
			else
				v = ldexp((double)(x >> 11) / 9007199254740992.0, e + 1);
			if (x & 1)
				v = -v;
			snprintf(want, sizeof(want), "%.17g", v);
			hpa_g17(got, v);
			bad += strcmp(got, want) != 0;
		}
		CHECK_INT_EQ(bad, 0);
	}

	s = hpa_xasprintf("%s+0x%llx", "libLLVM-14.so.1", 0x5dfeb0ULL);
	CHECK_STR_EQ(s, "libLLVM-14.so.1+0x5dfeb0");
	free(s);
	TEST_MAIN_END();
}
