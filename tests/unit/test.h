/*
 * A tiny test harness: CHECK* macros print file:line and both values on
 * failure and count it; main() returns nonzero if anything failed.
 */
#ifndef HPA_TEST_H
#define HPA_TEST_H

#include "hpa/compat.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

static int test_failures;

#define CHECK(cond)                                                          \
	do {                                                                 \
		if (!(cond)) {                                               \
			fprintf(stderr, "%s:%d: CHECK(%s) failed\n", __FILE__, \
				__LINE__, #cond);                             \
			test_failures++;                                     \
		}                                                            \
	} while (0)

#define CHECK_INT_EQ(a, b)                                                   \
	do {                                                                 \
		long long a_ = (long long)(a), b_ = (long long)(b);           \
		if (a_ != b_) {                                              \
			fprintf(stderr, "%s:%d: %s == %lld, expected %lld\n",   \
				__FILE__, __LINE__, #a, a_, b_);              \
			test_failures++;                                     \
		}                                                            \
	} while (0)

/* Doubles compared exactly unless `eps` > 0. */
#define CHECK_DBL_EQ(a, b, eps)                                              \
	do {                                                                 \
		double a_ = (a), b_ = (b);                                   \
		if (!(fabs(a_ - b_) <= (eps))) {                             \
			fprintf(stderr, "%s:%d: %s == %.10g, expected %.10g\n", \
				__FILE__, __LINE__, #a, a_, b_);              \
			test_failures++;                                     \
		}                                                            \
	} while (0)

#define CHECK_STR_EQ(a, b)                                                   \
	do {                                                                 \
		const char *a_ = (a), *b_ = (b);                             \
		if (!a_ || strcmp(a_, b_)) {                                 \
			fprintf(stderr, "%s:%d: %s == \"%s\", expected \"%s\"\n", \
				__FILE__, __LINE__, #a, a_ ? a_ : "(null)", b_); \
			test_failures++;                                     \
		}                                                            \
	} while (0)

#define TEST_MAIN_END()                                                      \
	do {                                                                 \
		if (test_failures)                                           \
			fprintf(stderr, "%d check(s) failed\n", test_failures); \
		return test_failures ? 1 : 0;                                \
	} while (0)

#endif
