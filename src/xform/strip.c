#include "hpa/compat.h"

#include <math.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "hpa/diag.h"
#include "hpa/strip.h"
#include "hpa/symbolize.h"
#include "hpa/xalloc.h"

/* jeprof's list (heap profiles), plus what jemalloc 5 and Rust add. */
static const char *const entry_points[] = {
	"calloc", "cfree", "malloc", "newImpl", "void* newImpl", "free", "memalign",
	"posix_memalign", "aligned_alloc", "pvalloc", "valloc", "realloc", "reallocarray",
	"mallocx", "rallocx", "xallocx", "dallocx", "sdallocx", "sdallocx_noflags", "nallocx",
	"malloc_usable_size", "tc_calloc", "tc_cfree", "tc_malloc", "tc_free", "tc_memalign",
	"tc_posix_memalign", "tc_pvalloc", "tc_valloc", "tc_realloc", "tc_new", "tc_delete",
	"tc_newarray", "tc_deletearray", "tc_new_nothrow", "tc_newarray_nothrow",
	"do_malloc", "::do_malloc", "::do_malloc_or_cpp_alloc", "DoSampledAllocation",
	"simple_alloc::allocate", "__malloc_alloc_template::allocate", "__builtin_delete",
	"__builtin_new", "__builtin_vec_delete", "__builtin_vec_new", "operator new",
	"operator new[]", "operator delete", "operator delete[]", "malloc_zone_malloc",
	"malloc_zone_calloc", "malloc_zone_valloc", "malloc_zone_realloc",
	"malloc_zone_memalign", "malloc_zone_free", "__start_google_malloc",
	"__stop_google_malloc", "__start_malloc_hook", "__stop_malloc_hook",
	"__libc_malloc", "__libc_calloc", "__libc_realloc", "__libc_memalign",
	"__rust_alloc", "__rust_alloc_zeroed", "__rust_realloc", "__rdl_alloc",
	"__rdl_alloc_zeroed", "__rdl_realloc", "__rg_alloc", "__rg_alloc_zeroed",
	"__rg_realloc",
	/*
	 * C++'s allocation wrappers (short names): flat goes to the container
	 * operation or the user's code that called them, not to a template
	 * every container shares.
	 */
	"std::allocator::allocate", "std::__new_allocator::allocate",
	"__gnu_cxx::new_allocator::allocate", "std::allocator_traits::allocate",
	"std::__allocator_traits_base::allocate",
};

/*
 * Name prefixes of allocator internals: jemalloc's private namespace (je_,
 * and _rjem_ in Rust's tikv-jemallocator), its static helpers that carry no
 * prefix, tcmalloc and Rust's allocator shims.  Kept narrow on purpose: a
 * false match would cut a user stack.
 */
static const char *const internal_prefixes[] = {
	"je_", "_rjem_", "tcmalloc::", "alloc::", "std::alloc::", "__rdl_", "__rg_",
	"prof_backtrace", "imalloc_body",
};

/* entry_points in strcmp() order, for a binary search (every function's name is looked up) */
static const char *sorted_entry_points[HPA_ARRAY_SIZE(entry_points)];
static pthread_once_t sorted_once = PTHREAD_ONCE_INIT;

static int cmp_name(const void *a, const void *b)
{
	return strcmp(*(const char *const *)a, *(const char *const *)b);
}

static void sort_entry_points(void)
{
	memcpy(sorted_entry_points, entry_points, sizeof(entry_points));
	qsort(sorted_entry_points, HPA_ARRAY_SIZE(entry_points), sizeof(*sorted_entry_points),
	      cmp_name);
}

static bool is_entry_point(const char *name)
{
	pthread_once(&sorted_once, sort_entry_points);
	return bsearch(&name, sorted_entry_points, HPA_ARRAY_SIZE(entry_points),
		       sizeof(*sorted_entry_points), cmp_name) != NULL;
}

bool hpa_is_allocator_name(const char *name)
{
	size_t i;

	if (name[0] == '_' && name[1] != '_' && is_entry_point(name + 1))
		return true;   /* Mach-O's extra underscore */
	if (is_entry_point(name))
		return true;
	for (i = 0; i < HPA_ARRAY_SIZE(internal_prefixes); i++)
		if (!strncmp(name, internal_prefixes[i], strlen(internal_prefixes[i])))
			return true;
	return strstr(name, "TCMalloc") != NULL;
}

static bool is_allocator_module(const char *path)
{
	const char *base = strrchr(path, '/');

	base = base ? base + 1 : path;
	return !strncmp(base, "libjemalloc.so", 14) || !strncmp(base, "libtcmalloc", 11);
}

/* Is function f allocator code?  Each function's short name is tested once. */
static bool func_is_allocator(const char *const *fname, uint8_t *known, uint32_t f)
{
	if (!known[f]) {
		char *name = xstrdup(fname[f]);
		hpa_short_name(name);
		known[f] = hpa_is_allocator_name(name) ? 2 : 1;
		free(name);
	}
	return known[f] == 2;
}

/* What the marking reads of the profile's strings, taken before it starts. */
struct mark_job {
	const struct hpa_profile *prof;
	const struct hpa_symbols *syms;
	const char **fname;          /* per function: its name */
	uint8_t *map_alloc;          /* per mapping: 2 if an allocator's library */
};

/* Each location's part in the cut: HPA_CUT_ALL, or the inline levels cut. */
static void mark_run(struct mark_job *job, uint16_t *cut)
{
	const struct hpa_profile *prof = job->prof;
	const struct hpa_symbols *syms = job->syms;
	uint8_t *known = xcalloc(syms->funcs_nr + 1, 1);
	size_t i, j;

	cut[0] = 0;
	for (i = 1; i < prof->locs_nr; i++) {
		const struct hpa_chain *c = hpa_chain_of(syms, (uint32_t)i);

		cut[i] = job->map_alloc[prof->locs[i].mapping] == 2 ? HPA_CUT_ALL : 0;
		/* The outermost allocator level decides: it and all inside it go. */
		for (j = c->nr; !cut[i] && j-- > 0;) {
			if (func_is_allocator(job->fname, known, syms->lines[c->first + j].func)) {
				cut[i] = j + 1 == c->nr ? HPA_CUT_ALL : (uint16_t)(j + 1);
				break;
			}
		}
	}
	free(known);
}

/* The names and paths the marking reads, from the string table, before it starts. */
static void mark_prepare(const struct hpa_profile *prof, const struct hpa_symbols *syms,
			 struct mark_job *job)
{
	size_t i;

	job->prof = prof;
	job->syms = syms;
	job->fname = xcalloc(syms->funcs_nr + 1, sizeof(*job->fname));
	for (i = 0; i < syms->funcs_nr; i++)
		job->fname[i] = hpa_profile_str(prof, syms->funcs[i].name);
	job->map_alloc = xcalloc(prof->mappings_nr + 1, 1);   /* 0 unused, 1 no, 2 yes */
	for (i = 1; i < prof->locs_nr; i++) {
		uint32_t m = prof->locs[i].mapping;

		if (!job->map_alloc[m]) {
			const char *path = hpa_profile_loc_path(prof, (uint32_t)i);
			job->map_alloc[m] = path && is_allocator_module(path) ? 2 : 1;
		}
	}
}

static void mark_release(struct mark_job *job)
{
	free(job->fname);
	free(job->map_alloc);
}

static void cut_stacks(const struct hpa_profile *prof, const uint32_t *frames, struct hpa_cuts *cuts);

void hpa_mark_internal(const struct hpa_profile *prof, const struct hpa_symbols *syms,
		       const uint32_t *frames, struct hpa_cuts *out)
{
	struct mark_job job;

	memset(out, 0, sizeof(*out));
	out->loc = xmalloc(st_mult(prof->locs_nr + 1, sizeof(*out->loc)));
	out->locs_nr = prof->locs_nr;
	mark_prepare(prof, syms, &job);
	mark_run(&job, out->loc);
	mark_release(&job);
	cut_stacks(prof, frames, out);
}

/*
 * Stack `stack`'s cut: the leaf frames a report leaves out, *levels of the
 * next one too.  `cut` is each location's part.
 */
static size_t scan_cut(const struct hpa_profile *prof, const uint32_t *frames, const uint16_t *cut,
		       uint32_t stack, unsigned *levels)
{
	size_t nr = prof->stacks[stack].nr, n = 0, i;
	const uint32_t *locs = frames + prof->stacks[stack].first;

	*levels = 0;
	for (i = 0; i < nr; i++) {
		uint16_t c = cut[locs[i]];

		if (c == HPA_CUT_ALL) {
			n = i + 1;            /* this frame and all leafward go */
			*levels = 0;
		} else if (c) {
			n = i;                /* leafward frames go, this one in part */
			*levels = c;
		}
	}
	return n;
}

/* Each stack's cut, from each location's. */
static void cut_stacks(const struct hpa_profile *prof, const uint32_t *frames, struct hpa_cuts *cuts)
{
	size_t i;

	if (!frames)
		frames = prof->frames;
	cuts->stack = xmalloc(st_mult(prof->stacks_nr + 1, sizeof(*cuts->stack)));
	cuts->stack_levels = xmalloc(st_mult(prof->stacks_nr + 1, sizeof(*cuts->stack_levels)));
	cuts->stacks_nr = prof->stacks_nr;
	for (i = 0; i < prof->stacks_nr; i++) {
		unsigned levels;
		cuts->stack[i] = (uint32_t)scan_cut(prof, frames, cuts->loc, (uint32_t)i, &levels);
		cuts->stack_levels[i] = (uint16_t)levels;
	}
}

void hpa_cuts_release(struct hpa_cuts *cuts)
{
	free(cuts->loc);
	free(cuts->stack);
	free(cuts->stack_levels);
	memset(cuts, 0, sizeof(*cuts));
}

size_t hpa_visible_stack(const struct hpa_profile *prof, const uint32_t *table, const struct hpa_cuts *cuts,
			 uint32_t stack, const uint32_t **frames, unsigned *skip)
{
	size_t nr = prof->stacks[stack].nr, cut = 0;
	const uint32_t *locs = (table ? table : prof->frames) + prof->stacks[stack].first;
	unsigned levels = 0;

	if (cuts) {
		if (stack >= cuts->stacks_nr)
			HPA_BUG("stack %u made after the allocator cut", stack);
		cut = cuts->stack[stack];
		levels = cuts->stack_levels[stack];
	}
	*frames = locs + cut;
	*skip = levels;
	return nr - cut;
}

void hpa_warn_allocator_only(const struct hpa_profile *prof, const struct hpa_cuts *cuts, enum hpa_value v)
{
	double total = 0, lost = 0;
	const uint32_t *frames;
	unsigned skip;
	size_t i;

	for (i = 0; i < prof->samples_nr; i++) {
		const struct hpa_sample *s = &prof->samples[i];
		double value;

		if (s->thread != HPA_THREAD_ALL)
			continue;
		value = fabs(s->v[v]);
		total += value;
		/* the profile's frames: matching the base by symbol keeps each stack's length */
		if (s->stack && !hpa_visible_stack(prof, NULL, cuts, s->stack, &frames, &skip))
			lost += value;
	}
	if (total > 0 && lost >= 0.95 * total)
		hpa_warn("%.1f%% of %s is in stacks made only of allocator frames: the stack unwinder "
			 "stopped inside the allocator, so no report can say who allocated; build the "
			 "program with -fno-omit-frame-pointer, or use an allocator built with libunwind "
			 "(jemalloc --enable-prof-libunwind, gperftools with libunwind)",
			 lost * 100 / total, hpa_value_name(v));
}
