#include "hpa/compat.h"

#include <stdarg.h>
#include <stdio.h>
#include <sys/resource.h>
#include <time.h>

#include "hpa/timing.h"

bool hpa_timing_on;

double hpa_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static void print(double secs, const char *fmt, va_list ap)
{
	char what[512];

	vsnprintf(what, sizeof(what), fmt, ap);
	fprintf(stderr, "hpa: timing: %-44s %9.1f ms\n", what, secs * 1e3);
}

void hpa_timing(double since, const char *fmt, ...)
{
	va_list ap;

	if (!hpa_timing_on)
		return;
	va_start(ap, fmt);
	print(hpa_now() - since, fmt, ap);
	va_end(ap);
}

void hpa_timing_secs(double secs, const char *fmt, ...)
{
	va_list ap;

	if (!hpa_timing_on)
		return;
	va_start(ap, fmt);
	print(secs, fmt, ap);
	va_end(ap);
}

void hpa_timing_peak_rss(void)
{
	struct rusage ru;

	if (!hpa_timing_on || getrusage(RUSAGE_SELF, &ru) != 0)
		return;
	/* Linux counts ru_maxrss in KiB. */
	fprintf(stderr, "hpa: timing: %-44s %9.1f MiB\n", "peak RSS", (double)ru.ru_maxrss / 1024);
}
