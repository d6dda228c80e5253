/*
 * The breakdown of RSS (stats.h, hpa_rss_breakdown): the allocator's rows
 * from its statistics, bounded by what the kernel says is resident, and
 * the rest of RSS outside the allocator, split by smaps or status.  Every
 * figure is whole bytes; rows are never negative and sum exactly to RSS
 * (spec/STATS.md sections 3, 5 and 6).
 */
#include "hpa/compat.h"

#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "hpa/diag.h"
#include "hpa/stats.h"
#include "hpa/strbuf.h"
#include "hpa/waste.h"
#include "hpa/xalloc.h"

static struct hpa_rss_row *add_row(struct hpa_rss_breakdown *b, int level, const char *what,
				   uint64_t bytes, const char *hint)
{
	struct hpa_rss_row *r;

	HPA_GROW(b->rows, b->nr + 1, b->alloc);
	r = &b->rows[b->nr++];
	memset(r, 0, sizeof(*r));
	r->level = level;
	r->what = what;
	r->bytes = bytes;
	r->hint = hint;
	return r;
}

static void note(struct hpa_rss_breakdown *b, const char *fmt, ...) HPA_PRINTF(2, 3);
static void note(struct hpa_rss_breakdown *b, const char *fmt, ...)
{
	struct hpa_strbuf sb = HPA_STRBUF_INIT;
	va_list ap;

	va_start(ap, fmt);
	hpa_sb_vaddf(&sb, fmt, ap);
	va_end(ap);
	HPA_GROW(b->notes, b->notes_nr + 1, b->notes_alloc);
	b->notes[b->notes_nr++] = hpa_sb_detach(&sb);
}

static uint64_t sub0(uint64_t a, uint64_t b)
{
	return a > b ? a - b : 0;
}

static uint64_t min64(uint64_t a, uint64_t b)
{
	return a < b ? a : b;
}

/* Byte counts in MiB with one decimal, for notes. */
static double mib(uint64_t v)
{
	return (double)v / 1048576.0;
}

/* The allocator's parts, in the order they are printed. */
enum part { SEEN, PROFILER, UNSEEN, FRAG, CACHES, DIRTY, META, NPARTS };

static const char *const part_label[2][NPARTS] = {
	{ "seen by the profile", "the profiler's own: sampled objects in large extents",
	  "not in the profile", "fragmentation: free space in used pages",
	  "free objects in thread caches", "dirty pages kept for reuse", "metadata" },
	{ "seen by the profile", "the profiler's own", "not in the profile",
	  "free objects in central and transfer caches",
	  "free objects in thread caches", "free pages in the page heap", "metadata" },
};

static const char *const part_hint[2][NPARTS] = {
	{
		"the profile's estimate of live bytes (unsampled, as jeprof); the rows of --text",
		"jemalloc keeps each sampled small object in an extent of the smallest large class "
		"(16 KiB with 4 KiB pages) and counts it so: the extents less the objects' own sizes, "
		"for the objects the dump recorded; a higher lg_prof_sample samples fewer",
		"live, but not in the profile: sampling error, allocations made before profiling "
		"was on; lg_prof_sample lower samples more",
		"active - allocated: free regions in slabs that still hold live objects (and a pad "
		"page per large allocation); long-lived objects mixed with short-lived ones keep "
		"slabs alive; fewer arenas (narenas) or a per-use arena packs them tighter",
		"freed objects each thread keeps for its next malloc (tcache_bytes); "
		"tcache_max lower, or tcache:false, gives them back",
		"freed pages kept for reuse, not yet returned to the OS; dirty_decay_ms lower (or 0) "
		"returns them sooner, background_thread:true returns them without waiting for "
		"the next malloc",
		"jemalloc's own bookkeeping (base + internal), more with profiling on",
	},
	{
		"the profile's estimate of live bytes; the rows of --text",
		"",
		"live, but not in the profile: sampling error, allocations before the profiler "
		"started; tcmalloc also rounds each request up to its size class",
		"free objects in spans that hold live ones, and unused span tails: fragmentation; "
		"objects of one lifetime allocated together pack better",
		"free objects each thread keeps; TCMALLOC_MAX_TOTAL_THREAD_CACHE_BYTES bounds them",
		"free spans still mapped; TCMALLOC_RELEASE_RATE higher (or MallocExtension::"
		"ReleaseFreeMemory()) returns them",
		"tcmalloc's own bookkeeping",
	},
};

/*
 * The allocator's parts from its statistics: bytes of each, summing to its
 * own resident figure; *live is what it holds for the program.
 */
static uint64_t allocator_parts(const struct hpa_alloc_stats *st, double seen, double profiler,
				uint64_t p[NPARTS], uint64_t *live)
{
	uint64_t sum = 0;
	int i;

	memset(p, 0, NPARTS * sizeof(*p));
	if (st->allocator == HPA_ALLOC_JEMALLOC) {
		uint64_t internal = st->has_internal ? st->internal : 0;
		uint64_t tcache = st->has_tcache ? st->tcache_bytes : 0;

		*live = sub0(st->allocated, internal + tcache);
		p[FRAG] = sub0(st->active, st->allocated);
		p[CACHES] = min64(tcache, st->allocated);
		p[DIRTY] = st->has_dirty ? min64(st->dirty, sub0(st->resident, st->active)) : 0;
		p[META] = sub0(st->resident, st->active + p[DIRTY]) + min64(internal, st->allocated);
	} else {
		*live = st->tc_in_use;
		p[FRAG] = st->tc_central + st->tc_transfer;
		p[CACHES] = st->tc_thread;
		p[DIRTY] = st->tc_pageheap_free;
		p[META] = st->tc_metadata;
	}
	/* Whole bytes cut toward zero, as --text prints its Total (jeprof's %d). */
	p[SEEN] = seen > 0 ? min64((uint64_t)seen, *live) : 0;
	/* jemalloc's: inside what it says is allocated (gperftools' are outside tcmalloc) */
	if (st->allocator == HPA_ALLOC_JEMALLOC && profiler > 0)
		p[PROFILER] = min64((uint64_t)profiler, *live - p[SEEN]);
	p[UNSEEN] = *live - p[SEEN] - p[PROFILER];
	for (i = 0; i < NPARTS; i++)
		sum += p[i];
	return sum;
}

/* Whether VMA i is a thread stack: an unnamed rw-p mapping right above a ---p guard. */
static bool is_stack(const struct hpa_proc_mem *pm, size_t i)
{
	const struct hpa_vma *v = &pm->vmas[i];

	if (!strcmp(v->name, "[stack]"))
		return true;
	return !*v->name && !strcmp(v->perms, "rw-p") && i > 0 && !v->noreserve &&
	       pm->vmas[i - 1].end == v->start && !strcmp(pm->vmas[i - 1].perms, "---p") &&
	       !*pm->vmas[i - 1].name && pm->vmas[i - 1].end - pm->vmas[i - 1].start <= 65536;
}

/* Whether VMA i is a binary's .bss: unnamed, right after a file mapping. */
static bool is_bss(const struct hpa_proc_mem *pm, size_t i)
{
	const struct hpa_vma *v = &pm->vmas[i];

	return !*v->name && i > 0 && pm->vmas[i - 1].end == v->start && pm->vmas[i - 1].inode &&
	       !v->noreserve;
}

/*
 * Whether VMA i is jemalloc's: it maps with MAP_NORESERVE when the kernel
 * overcommits (VmFlags "nr"; a hint, as other code may too).  tcmalloc's
 * mappings (brk and mmap) look like anyone's.
 */
static bool is_allocator(const struct hpa_proc_mem *pm, size_t i)
{
	return pm->vmas[i].noreserve && !*pm->vmas[i].name;
}

/* Whether the allocator's own mappings can be told apart in smaps. */
static bool allocator_vmas(const struct hpa_alloc_stats *st, const struct hpa_proc_mem *pm)
{
	size_t i;

	if (!pm || !pm->has_smaps || pm->rollup || st->allocator != HPA_ALLOC_JEMALLOC)
		return false;
	for (i = 0; i < pm->vmas_nr; i++)
		if (is_allocator(pm, i))
			return true;
	return false;
}

/* A mapping's share of a row, for naming the largest. */
struct named {
	const char *name;       /* a file's path, or NULL for an anonymous range */
	uint64_t start, end, bytes;
};

static int cmp_named(const void *pa, const void *pb)
{
	const struct named *a = pa, *b = pb;

	if (a->bytes != b->bytes)
		return a->bytes > b->bytes ? -1 : 1;
	return a->start < b->start ? -1 : a->start > b->start;
}

/* "largest: NAME 40.1 MiB, ..." of the 3 largest; files summed over their mappings. */
static char *largest(struct named *v, size_t n)
{
	struct hpa_strbuf sb = HPA_STRBUF_INIT;
	size_t i, j, k = 0;

	for (i = 0; i < n; i++) {   /* one entry per file */
		for (j = 0; v[i].name && j < k; j++)
			if (v[j].name && !strcmp(v[j].name, v[i].name))
				break;
		if (v[i].name && j < k)
			v[j].bytes += v[i].bytes;
		else
			v[k++] = v[i];
	}
	qsort(v, k, sizeof(*v), cmp_named);
	for (i = 0; i < k && i < 3 && v[i].bytes >= 1048576; i++) {
		const char *slash = v[i].name ? strrchr(v[i].name, '/') : NULL;
		hpa_sb_adds(&sb, i ? ", " : "largest: ");
		if (v[i].name)
			hpa_sb_addf(&sb, "%s %.1f MiB", slash ? slash + 1 : v[i].name, mib(v[i].bytes));
		else
			hpa_sb_addf(&sb, "%llx-%llx %.1f MiB", (unsigned long long)v[i].start,
				    (unsigned long long)v[i].end, mib(v[i].bytes));
	}
	return sb.len ? hpa_sb_detach(&sb) : NULL;
}

/* Take `excess` off the parts in `order`, never below 0; returns what is left to take. */
static uint64_t take_off(uint64_t p[NPARTS], const enum part *order, size_t n, uint64_t excess)
{
	size_t i;

	for (i = 0; i < n && excess; i++) {
		uint64_t t = min64(p[order[i]], excess);
		p[order[i]] -= t;
		excess -= t;
	}
	return excess;
}

/* The rows outside the allocator: `outside` bytes, split by what the kernel says. */
/* The parts of RSS outside the allocator, as outside_rows() shows them. */
enum { OWN, PROFILER_OWN, STACKS, BSS, FILES, UNCOUNTED, NOUT };

/*
 * From smaps: each mapping's resident pages into part[] (the allocator's
 * own left out when smaps tells them apart), and the mappings that hold
 * file pages (files) and the program's own anonymous memory (own).
 */
static void smaps_parts(const struct hpa_alloc_stats *st, const struct hpa_proc_mem *pm, uint64_t *part,
			struct named *files, size_t *nfiles, struct named *own, size_t *nown)
{
	bool by_vma = allocator_vmas(st, pm);
	size_t i;

	for (i = 0; i < pm->vmas_nr; i++) {
		const struct hpa_vma *v = &pm->vmas[i];
		part[FILES] += v->rss - v->anonymous;
		if (v->rss > v->anonymous && *v->name)
			files[(*nfiles)++] = (struct named){ v->name, v->start, v->end, v->rss - v->anonymous };
		if (by_vma && is_allocator(pm, i))
			continue;
		if (is_stack(pm, i)) {
			part[STACKS] += v->anonymous;
		} else if (v->inode || is_bss(pm, i)) {
			part[BSS] += v->anonymous;
		} else {
			part[OWN] += v->anonymous;
			own[(*nown)++] = (struct named){ NULL, v->start, v->end, v->anonymous };
		}
	}
}

/* The rows outside the allocator, as outside_rows() labels and explains them. */
static const char *const outside_label[NOUT] = {
	"the program's own anonymous mappings (mmap)",
	"the heap profiler's own records (gperftools)", "thread stacks",
	".bss and copy-on-write pages of binaries",
	"code and file pages (shared libraries, mapped files, shmem)",
	"in the allocator's mappings, not in its statistics"
};
static const char *const outside_hint[NOUT] = {
	"memory the program maps itself, past malloc: its own arenas, caches, buffers "
	"(anonymous mappings that are not the allocator's)",
	"gperftools' heap profiler keeps a record of every live object (32 bytes), one of "
	"every stack and two tables in mappings of its own, outside tcmalloc: at least this "
	"much (records of freed objects are kept for reuse)",
	"each thread's stack (the pages it touched); fewer threads or smaller stacks "
	"(ulimit -s, pthread_attr_setstacksize) shrink it",
	"global variables and relocated data of the program and its libraries",
	"program text and mapped files; shared with other processes, dropped by the kernel "
	"under pressure",
	"resident in the allocator's mappings beyond what its statistics count: other code "
	"mapping MAP_NORESERVE memory, or statistics taken at another moment",
};

/* "at most ...": what the heap profiler's records of every allocation would take, bounded by where they are. */
static char *profiler_bound(const struct hpa_waste *w, uint64_t room)
{
	struct hpa_strbuf sb = HPA_STRBUF_INIT;
	double most = w->profiler_max < (double)room ? w->profiler_max : (double)room;

	hpa_sb_addf(&sb, "at most %.1f MiB, if it still keeps the records of all %.0f allocations since "
		    "the start (a freed record waits for the next, never given back): that part is in "
		    "the program's own mappings above", most / 1048576.0, w->profiler_allocs);
	return hpa_sb_detach(&sb);
}

/* gperftools' heap profiler's records: out of the program's own anonymous memory, where smaps puts them. */
static void split_profiler(const struct hpa_alloc_stats *st, uint64_t *part, double profiler)
{
	if (st->allocator != HPA_ALLOC_TCMALLOC || profiler <= 0)
		return;
	part[PROFILER_OWN] = min64((uint64_t)profiler, part[OWN]);
	part[OWN] -= part[PROFILER_OWN];
}

static void outside_rows(struct hpa_rss_breakdown *b, const struct hpa_alloc_stats *st,
			 const struct hpa_proc_mem *pm, uint64_t outside, uint64_t alloc_kernel,
			 uint64_t alloc_rows, const struct hpa_waste *w)
{
	uint64_t part[NOUT] = { 0 }, sum = 0;
	struct named *files = NULL, *own = NULL;
	size_t nfiles = 0, nown = 0;
	int k;

	if (pm && pm->has_smaps && !pm->rollup) {
		files = xcalloc(pm->vmas_nr, sizeof(*files));
		own = xcalloc(pm->vmas_nr, sizeof(*own));
		smaps_parts(st, pm, part, files, &nfiles, own, &nown);
		/* Without the allocator's own mappings, its share is in the unnamed ones. */
		if (allocator_vmas(st, pm))
			part[UNCOUNTED] = sub0(alloc_kernel, alloc_rows);
		else
			part[OWN] = sub0(part[OWN], alloc_rows);
	} else if (pm && pm->has_status && pm->rss_anon + pm->rss_file + pm->rss_shmem == pm->vm_rss) {
		part[OWN] = sub0(pm->rss_anon, alloc_rows);
		part[FILES] = pm->rss_file + pm->rss_shmem;
	} else {
		add_row(b, 0, "outside the allocator", outside,
			"RSS the allocator does not account for: the program's own mmaps, thread "
			"stacks, code; --smaps FILE (or --pid) splits it");
		return;
	}
	split_profiler(st, part, w ? w->profiler : 0);
	for (k = 0; k < NOUT; k++)
		sum += part[k];
	if (sum > outside) {   /* status and smaps read at different instants: take it off the largest */
		uint64_t over = sum - outside;
		while (over) {
			int big = 0;
			for (k = 1; k < NOUT; k++)
				if (part[k] > part[big])
					big = k;
			uint64_t t = min64(part[big], over);
			part[big] -= t;
			over -= t;
		}
		sum = outside;
	}
	add_row(b, 0, "outside the allocator", outside, NULL);
	for (k = 0; k < NOUT; k++) {
		if (!part[k])
			continue;
		add_row(b, 1, outside_label[k], part[k], outside_hint[k]);
		/* Named from smaps (the program's own: when the allocator's are told apart). */
		if (k == FILES && nfiles)
			b->rows[b->nr - 1].detail = largest(files, nfiles);
		if (k == OWN && nown && allocator_vmas(st, pm))
			b->rows[b->nr - 1].detail = largest(own, nown);
		if (k == PROFILER_OWN && w->profiler_max > w->profiler)
			b->rows[b->nr - 1].detail = profiler_bound(w, part[OWN] + part[k]);
	}
	free(files);
	free(own);
	if (sum < outside)
		add_row(b, 1, "other (not attributed)", outside - sum,
			"what the kernel counts that hpa could not place; status and smaps are read at "
			"slightly different moments");
}

/* RSS from what was given (the allocator's own figure `own` without any), and where it came from. */
static void rss_of(const struct hpa_proc_mem *pm, uint64_t own, int tc, struct hpa_rss_breakdown *out)
{
	if (pm && pm->has_status) {
		out->rss = pm->vm_rss;
		out->rss_source = "VmRSS from status";
	} else if (pm && pm->has_smaps) {
		out->rss = pm->smaps_rss;
		out->rss_source = "the Rss of smaps";
	} else if (pm && pm->has_rss) {
		out->rss = pm->rss;
		out->rss_source = "--rss";
	} else {
		out->rss = own;
		out->rss_source = tc ? "tcmalloc's 'Actual memory used' (no RSS given)" :
				       "jemalloc's resident (no RSS given)";
	}
}

/*
 * The kernel's bound on what the allocator has resident: the Rss of its
 * own mappings when smaps tells them apart, else the process's anonymous
 * Rss, else RSS (`rss`); what it is into *what.
 */
static uint64_t kernel_bound(const struct hpa_alloc_stats *st, const struct hpa_proc_mem *pm, uint64_t rss,
			     const char **what)
{
	uint64_t kernel = 0;
	size_t v;

	if (allocator_vmas(st, pm)) {
		for (v = 0; v < pm->vmas_nr; v++)
			if (is_allocator(pm, v))
				kernel += pm->vmas[v].rss;
		*what = "the Rss of its mappings (MAP_NORESERVE, VmFlags nr)";
		return kernel;
	}
	if (pm && pm->has_smaps) {
		*what = "the anonymous Rss of the process";
		return pm->smaps_anon;
	}
	if (pm && pm->has_status && pm->rss_anon) {
		*what = "RssAnon";
		return pm->rss_anon;
	}
	*what = "RSS";
	return rss;
}

int hpa_rss_breakdown(const struct hpa_alloc_stats *st, const struct hpa_proc_mem *pm,
		      double seen, double seen_se, const struct hpa_waste *w, struct hpa_rss_breakdown *out)
{
	double profiler = w ? w->profiler : 0;
	static const enum part order[] = { DIRTY, PROFILER, UNSEEN, META, CACHES, FRAG, SEEN };
	uint64_t p[NPARTS], said[NPARTS], live = 0, own = 0, kernel, alloc_kernel, alloc;
	const char *kernel_what;
	int tc, i;

	memset(out, 0, sizeof(*out));
	if (!st)
		return hpa_error("%s", "an RSS breakdown needs the allocator's statistics (--stats)");
	tc = st->allocator == HPA_ALLOC_TCMALLOC;
	own = allocator_parts(st, seen, profiler, p, &live);
	memcpy(said, p, sizeof(said));

	/* RSS, and the kernel's bound on what the allocator has resident. */
	rss_of(pm, own, tc, out);
	kernel = kernel_bound(st, pm, out->rss, &kernel_what);
	alloc_kernel = kernel;
	kernel = min64(kernel, out->rss);
	alloc = own;
	if (own > kernel) {
		uint64_t excess = own - kernel;
		take_off(p, order, HPA_ARRAY_SIZE(order), excess);
		alloc = kernel;
		note(out, "%s counts %.1f MiB as resident, %.1f MiB more than %s (%.1f MiB): pages it "
		     "reserved but the program never touched (a large allocation not yet written, "
		     "freed extents, jemalloc's 16 KiB for each sampled object). hpa takes the "
		     "difference off dirty pages first, then off the profiler's own, live bytes not "
		     "in the profile, metadata, caches and fragmentation; the 'allocator says' "
		     "column keeps %s figures.",
		     tc ? "tcmalloc" : "jemalloc", mib(own), mib(excess), kernel_what, mib(kernel),
		     tc ? "tcmalloc's" : "jemalloc's");
		if (!allocator_vmas(st, pm))
			note(out, "%s", "without the allocator's own mappings (the full /proc/PID/smaps "
			     "of a jemalloc process), hpa cannot tell its untouched pages from the "
			     "program's own anonymous memory: some of what is outside the allocator "
			     "(its mmaps, stacks) may be in the allocator's rows; --smaps FILE or --pid "
			     "tells them apart.");
	}

	out->live = live;
	add_row(out, 0, "held by live allocations", p[SEEN] + p[PROFILER] + p[UNSEEN],
		tc ? "tcmalloc's 'Bytes in use by application'" :
		     "jemalloc's allocated, less its own (internal) and thread-cached bytes");
	for (i = 0; i < NPARTS; i++) {
		struct hpa_rss_row *r;

		if (i == FRAG)
			add_row(out, 0, "inside the allocator, not allocated",
				p[FRAG] + p[CACHES] + p[DIRTY] + p[META], NULL);
		if ((seen < 0 && i == SEEN) || (i == PROFILER && !said[i]) || (i > UNSEEN && !p[i] && !said[i]))
			continue;
		r = add_row(out, 1, i == UNSEEN && seen < 0 ? "live allocations (no profile given)" :
			    part_label[tc][i], p[i], part_hint[tc][i]);
		if (i == SEEN)
			r->error = 1.96 * seen_se;
		if (said[i] != p[i]) {   /* the allocator's own figure where hpa bounded it */
			r->said = said[i];
			r->has_said = true;
		}
		if (i == META && !tc && st->has_internal && st->prof_on)   /* where the profiler's records are */
			r->detail = hpa_xasprintf("of it, internal %.1f MiB (the profiler's records of sampled "
						  "stacks and threads, the thread caches' arrays) and base %.1f MiB "
						  "(the allocator's own structures, the profiler's tables among them)",
						  mib(st->internal), mib(st->base));
	}
	outside_rows(out, st, pm, out->rss - alloc, alloc_kernel, alloc, w);

	if (!tc && st->has_muzzy && st->muzzy)
		note(out, "jemalloc also keeps %.1f MiB of muzzy pages (MADV_FREE'd): the kernel takes "
		     "them back under pressure; they are counted where the kernel counts them.",
		     mib(st->muzzy));
	if (!pm)
		note(out, "%s", "no RSS given (--pid, --status, --smaps or --rss): the allocator's own "
		     "figures stand for RSS, and nothing outside the allocator is seen.");
	return 0;
}

void hpa_rss_breakdown_release(struct hpa_rss_breakdown *b)
{
	size_t i;

	for (i = 0; i < b->notes_nr; i++)
		free(b->notes[i]);
	for (i = 0; i < b->nr; i++)
		free(b->rows[i].detail);
	free(b->notes);
	free(b->rows);
	memset(b, 0, sizeof(*b));
}
