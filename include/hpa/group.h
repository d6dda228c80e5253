/*
 * The grouping engine: what a view's samples make, for every writer.  One
 * product, the graph (hpa_graph_build): nodes at one or more
 * granularities, each with flat and cum, the calls between them, like
 * pprof's graph.Graph; and the stacks it is made of: distinct stacks by
 * text (hpa_walk_stacks, hpa_group_stacks), by location (hpa_group_paths),
 * merged on common prefixes (hpa_group_tree), by source line
 * (hpa_group_source).
 */
#ifndef HPA_GROUP_H
#define HPA_GROUP_H

#include "hpa/compat.h"

#include "hpa/hashmap.h"
#include "hpa/profile.h"
#include "hpa/strtab.h"
#include "hpa/view.h"

/* What one report row stands for (jeprof's granularity options). */
enum hpa_granularity {
	HPA_BY_FUNCTION,   /* --functions (default) */
	HPA_BY_LINE,       /* --lines */
	HPA_BY_ADDRESS,    /* --addresses */
	HPA_BY_FILE        /* --files */
};

/* How hpa_group_stacks() writes a stack as text. */
struct hpa_stack_format {
	char *(*name)(const struct hpa_profile *prof, const struct hpa_names *names, struct hpa_frame f); /* malloc'ed */
	bool root_first;       /* frame order */
	const char *prefix;    /* before each frame name */
	const char *suffix;    /* after each frame name */
	const char *empty;     /* the whole text of a stack without frames; "": no group */
	bool leaf_only;        /* the innermost visible frame alone: flat per frame */
};

/* A distinct stack text and its values: the base's (positive) and the profile's. */
struct hpa_stack_group {
	uint32_t text;         /* id in the caller's strtab */
	double before, after;
};

/*
 * The view's distinct stacks, frames each prefix + name + suffix, passed
 * to emit() one by one with the samples (indices) that make each, in
 * sample order, and their view values.  They come in the order of their
 * name sequences, a name compared as if followed by the suffix, a stack
 * that is a prefix of another first; a stack without frames is the text
 * fmt->empty (none if it is ""), ordered as a frame when that text is
 * prefix + name + suffix.  When no name holds the suffix's first byte
 * (hpa_folded_format's ';', a line break) that is the order of the texts,
 * each text once.  No table of texts is kept; without `texts` none is
 * even made (emit() gets NULL and 0: a caller that names a stack from one
 * of its samples later).  Returns the view's total.
 */
typedef void hpa_stack_emit_fn(void *ctx, const char *text, size_t len, const uint32_t *samples,
			       const double *values, size_t n);
double hpa_walk_stacks(const struct hpa_profile *prof, const struct hpa_view_opts *opts,
		       const struct hpa_stack_format *fmt, bool texts, hpa_stack_emit_fn *emit,
		       void *ctx);

/* A stack's base side (positive) and profile side from emit()'s samples and values. */
void hpa_stack_sides(const struct hpa_profile *prof, const struct hpa_view_opts *vo,
		     const uint32_t *samples, const double *values, size_t n, double *before,
		     double *after);

/*
 * A stack's text in `fmt` made from one of its samples, for a caller of
 * hpa_walk_stacks without texts: each frame's name is made once.
 */
struct hpa_stack_namer {
	const struct hpa_profile *prof;
	const struct hpa_stack_format *fmt;
	struct hpa_view view;
	const char **slot_text;      /* per frame slot: prefix + name + suffix, in names */
	uint32_t *slot_len;          /* and its length */
	struct hpa_strtab names;
	char *buf;
	size_t alloc;
};

void hpa_stack_namer_init(struct hpa_stack_namer *n, const struct hpa_profile *prof,
			  const struct hpa_view_opts *opts, const struct hpa_stack_format *fmt);
/* The whole text, the last suffix included, of sample `sample`'s stack; valid until the next call. */
const char *hpa_stack_text(struct hpa_stack_namer *n, uint32_t sample, size_t *len);
void hpa_stack_namer_release(struct hpa_stack_namer *n);

/*
 * Group the view's samples by stack text (a trailing separator is left to
 * the format: frames are prefix + name + suffix, concatenated).  Returns the
 * number of groups, *out (malloc'ed, in hpa_walk_stacks order) and the
 * view's weighted *total.  With `group_of` (one slot per sample), the
 * group of each sample (1-based index into *out), 0 for samples out of view.
 * With `per_input`, a malloc'ed matrix of each group's weighted value in
 * each input: (*per_input)[group * inputs_nr + input - 1] (dump series).
 */
size_t hpa_group_stacks(const struct hpa_profile *prof, const struct hpa_view_opts *opts,
			const struct hpa_stack_format *fmt, struct hpa_strtab *texts,
			struct hpa_stack_group **out, double *total, uint32_t *group_of,
			double **per_input);

/*
 * Folded stacks, as --collapse groups them (and --svg, whose names differ
 * only in how an inline frame is marked): root first, full names, each
 * followed by ';'.  --drop_negative groups by the same key, so it drops
 * exactly the stacks they would print negative.
 */
extern const struct hpa_stack_format hpa_folded_format;

/*
 * A line node's parts: the text hpa_graph_name_lines() gives it is
 * "NAME FILE:LINE", with "??" for the file "" (profile string ids).
 */
struct hpa_line_parts {
	uint32_t name, file, line;
	bool is_line;             /* false: the node is its text (a frame without a line) */
};

/*
 * The graph's nodes at one granularity, as the --text rows: each node
 * (what the granularity calls a frame: its display name, with the line,
 * the runtime address, or the file) with flat, the samples whose innermost
 * visible frame has it, and cum, the samples that have it anywhere,
 * counted once per sample even when it recurs.  A sample with no visible
 * frame is the node "<no stack>"; frames above 0x7fffffffffffffff (kernel,
 * vsyscall) have no node, as in jeprof.  Node ids are in order of first
 * appearance, from 1.
 */
struct hpa_graph_nodes {
	/*
	 * Node id = string id (id 0, "", unused): its text.  A line node
	 * (parts[id].is_line) is found by its parts and has the text "" until
	 * hpa_graph_name_lines() makes it: a writer that shows the parts
	 * (--html) never makes the texts.
	 */
	struct hpa_strtab keys;
	struct hpa_line_parts *parts;   /* HPA_BY_LINE: by node id; NULL otherwise */
	/* By node id, for each value type the graph keeps (NULL for the others). */
	double *flat[HPA_NVALUES], *cum[HPA_NVALUES];
	double total[HPA_NVALUES];      /* the view's weighted total */
};

/* A call between two nodes: for each pair of adjacent visible frames, caller -> callee. */
struct hpa_call_edge {
	uint32_t caller, callee;     /* node ids */
	double value;
};

#define HPA_GRAPH_MAX_GRANS 3

/*
 * The graph of a view's samples: its nodes at each granularity asked
 * for, made in one pass that reads each frame once for all of them, and
 * the calls between the first granularity's nodes, each counted once per
 * sample (recursion once; a node calling itself is no edge).
 */
struct hpa_graph {
	unsigned values;             /* the value types kept: bit v for enum hpa_value v */
	size_t ngrans;
	struct hpa_graph_nodes nodes[HPA_GRAPH_MAX_GRANS];
	/*
	 * With calls: edges[v] for each type kept (malloc'ed, NULL for the
	 * others), nedges of them, the same caller and callee at each index
	 * for every v, in order of first appearance.
	 */
	struct hpa_call_edge *edges[HPA_NVALUES];
	size_t nedges;
};

/* What a writer asks of the graph. */
struct hpa_graph_spec {
	enum hpa_granularity grans[HPA_GRAPH_MAX_GRANS];
	size_t ngrans;
	unsigned values;             /* value types (bit v); 0: the view's value type alone */
	bool calls;                  /* the edges between the first granularity's nodes */
};

void hpa_graph_build(const struct hpa_profile *prof, const struct hpa_view_opts *opts,
		     const struct hpa_graph_spec *spec, struct hpa_graph *out);
/* Give every line node of g its text (hpa_line_parts): for the writers that print nodes' texts. */
void hpa_graph_name_lines(struct hpa_graph *g, const struct hpa_profile *prof);
void hpa_graph_release(struct hpa_graph *g);

/*
 * Sums of unsampled values are not integers (v2 scaling of small objects at
 * rate 1 gives k = 1 + 1e-14): what a diff cancels leaves dust, which
 * becomes zero here (totals, flat, cum; edges stay as they are), not a row
 * or an infinite percentage.
 */
void hpa_graph_zero_dust(struct hpa_graph *g);

/* What a writer of rows reads of a graph: one granularity's nodes and one value type. */
struct hpa_graph_rows {
	const struct hpa_strtab *keys;       /* node id -> its text */
	const double *flat, *cum;            /* by node id */
	double total;
	const struct hpa_call_edge *edges;   /* with calls */
	size_t nedges;
};

/*
 * The graph a writer of rows shows (--text, --peek, --dot) into *out: one
 * granularity, the view's value type, line nodes named, dust made zero.
 */
struct hpa_graph_rows hpa_graph_of_rows(const struct hpa_profile *prof, const struct hpa_view_opts *opts,
					enum hpa_granularity granularity, bool calls, struct hpa_graph *out);

/*
 * Whole stacks grouped by a format's own frame identity (pprof's
 * locations, which hold an address's inline levels together): key_of()
 * maps the frames at frames[0..nr) (leaf first) to one key and says how
 * many of them it covers (at least 1); a stack without frames is the one
 * key empty().  Keys are non-zero.  A format whose key covers a
 * location's levels together may also give loc_key(): the key of location
 * loc's levels from `first` to its last, what key_of() makes of those
 * frames; a view without filters is then grouped by the locations it
 * leaves each sample, and each group's keys are made as it is walked.
 */
struct hpa_path_format {
	uint32_t (*key_of)(void *ctx, const struct hpa_frame *frames, size_t nr, size_t *used);
	uint32_t (*empty)(void *ctx);
	void *ctx;
	uint32_t (*loc_key)(void *ctx, uint32_t loc, unsigned first);   /* or NULL */
	const uint32_t *whole;       /* or NULL: per location, loc_key(loc, 0) once known, else 0 */
};

/* A distinct key sequence's samples: their thread and weighted values. */
struct hpa_path_group {
	int32_t thread;              /* the first sample's */
	double v[HPA_NVALUES];       /* every value type, the base's negative */
};

/*
 * The view's samples grouped by key sequence, in order of first
 * appearance (ids from 1).  With `group_of`, hpa_paths_group_of() gives
 * each sample's group (0: out of view).  The groups are kept lean: a
 * group of one sample (nearly all, where a group is a stack) keeps no sums
 * of its own.
 */
struct hpa_paths;

struct hpa_paths *hpa_group_paths(const struct hpa_profile *prof, const struct hpa_view_opts *opts,
				  const struct hpa_path_format *fmt, bool group_of);
size_t hpa_paths_count(const struct hpa_paths *p);
const uint32_t *hpa_paths_group_of(const struct hpa_paths *p);   /* per sample, or NULL */
void hpa_paths_release(struct hpa_paths *p);

/* A walk of the groups in order: start it zeroed. */
struct hpa_path_walk {
	size_t g;                    /* the group given last (1-based) */
	size_t sample;               /* where its first sample was found */
};

/* The next group into *out; false after the last. */
bool hpa_paths_next(struct hpa_paths *p, struct hpa_path_walk *w, struct hpa_path_group *out);
/*
 * The keys of the group given last, as base-128 varints one after the
 * other (a protobuf packed field's bytes), *len of them: valid until the
 * next call.  Keys the format makes as the groups are walked are made in
 * group order.
 */
const uint8_t *hpa_paths_keys(struct hpa_paths *p, const struct hpa_path_walk *w, size_t *len);

/* Which of a frame's names (names.h) keys a call tree's nodes. */
enum hpa_name_kind { HPA_NAME_FULL, HPA_NAME_SHORT, HPA_NAME_DISPLAY, HPA_NAME_FOLDED, HPA_NAME_GRAPH };

/* One of a frame's names, as a profile string id. */
uint32_t hpa_frame_name_id(const struct hpa_profile *prof, const struct hpa_names *names, struct hpa_frame f,
			   enum hpa_name_kind kind);

/*
 * The view's samples as a call tree: stacks merged on common prefixes, a
 * node per (parent, frame name), root first (the flame graph) or leaf
 * first (callers of each allocation site).  Node 0 is the root, "all";
 * nodes are made depth first, a node's children in strcmp order of their
 * names (the child/next list too), so a walk from the last node to the
 * first visits children before parents.
 */
struct hpa_call_node {
	uint32_t name;               /* profile string id; 0 for the root */
	uint32_t label;              /* its label (topts->label), a profile string id */
	uint32_t parent, child, next;   /* node ids; child/next 0 = none */
	uint32_t depth;              /* the root is 0 */
	double after, before;        /* inclusive: the profile's, and the base's (positive) */
};

struct hpa_call_tree {
	struct hpa_call_node *nodes;
	size_t nr, alloc;
	bool diff;                   /* a --base input took part */
	size_t dumps;                /* with per_input: the number of inputs */
	double *series;              /* with per_input: series[node * dumps + input - 1] */
	/*
	 * With all_values: values[node * vstride + vcol[value]], weighted, a
	 * column for each value type summed (vcol -1: a type not summed,
	 * whose value is 0): --html's tree of two types takes 16 bytes a
	 * node, not 32.
	 */
	double *values;
	unsigned vstride;
	int8_t vcol[HPA_NVALUES];
	size_t values_alloc;
	size_t series_alloc;
	uint32_t *left_out;          /* with min_share: per node, its children left out */
	size_t left_out_alloc;
	/*
	 * Left out: with min_share, the nodes that are not in the tree whose
	 * parent is (nothing under them is made or counted); with cut_share,
	 * every node under a cut one worth more than 0.
	 */
	size_t omitted;
};

struct hpa_tree_opts {
	enum hpa_name_kind name;     /* what a node is called, and merged by */
	enum hpa_name_kind label;    /* what its box says (flame graphs: the short name) */
	bool leaf_first;             /* stacks innermost frame first */
	bool per_input;              /* keep each input's value per node (dump series) */
	bool all_values;             /* keep every value type per node (one pass for all four) */
	double min_share;            /* > 0: leave out what hpa_call_node_shown() never shows */
	/*
	 * > 0, without a base or dump series: a node worth less than cut_share
	 * of the root is kept, but nothing under it is made; those nodes worth
	 * more than 0 are counted in `omitted` (the flame graph's narrow ones).
	 */
	double cut_share;
	/*
	 * With all_values: the value types added up per node (bit v for enum
	 * hpa_value v; 0 for all of them); the others stay 0.
	 */
	unsigned values;
};

void hpa_group_tree(const struct hpa_profile *prof, const struct hpa_view_opts *opts,
		    const struct hpa_tree_opts *topts, struct hpa_call_tree *out);
void hpa_call_tree_release(struct hpa_call_tree *t);

/* Node i's value of type `type` (all_values), else its view value; dust is 0. */
double hpa_call_node_value(const struct hpa_call_tree *t, size_t i, int type);

/*
 * Whether node i can be shown for value type `type` (its parents aside):
 * its value or its base value is at least min_share of the larger of the
 * root's, and they are not both 0.  A tree built with min_share leaves out
 * the nodes shown for no type it holds (every type with all_values) with
 * everything under them, and counts them in `omitted` and in their
 * parent's left_out[] (what is under them is neither made nor counted).
 */
bool hpa_call_node_shown(const struct hpa_call_tree *t, size_t i, int type, double min_share);
/* hpa_call_node_shown() in two steps: the bar for a type (the root's), then a node against it. */
double hpa_call_node_min(const struct hpa_call_tree *t, int type, double min_share);
bool hpa_call_node_above(const struct hpa_call_tree *t, size_t i, int type, double min);

/*
 * The view's samples by source line (--list): for every frame with a
 * function that match() accepts, the line of that function it stands at
 * (the innermost frame's own line, each inlined caller's call site), with
 * flat (the innermost visible frame's line) and cum (every line a sample
 * passes, counted once per sample); and the same per routine, a function
 * in one source file.  A function's inlined copies count with it.  The
 * lines of a routine sum to its flat, and to its cum unless a sample
 * passes through it at two lines (recursion).
 */
struct hpa_source_routine {
	uint32_t func;               /* function id */
	uint32_t file;               /* profile string id of its lines' file; 0 unknown */
	double flat, cum;
};

struct hpa_source_line {
	uint32_t routine;            /* index into routines[] */
	uint32_t line;               /* 0 unknown (a symbol-table name) */
	double flat, cum;
};

struct hpa_source_groups {
	struct hpa_source_routine *routines;   /* malloc'ed, in order of first appearance */
	struct hpa_source_line *lines;         /* the same */
	size_t routines_nr, lines_nr;
	double total;                /* the view's weighted total */
};

typedef bool hpa_func_match_fn(void *ctx, const struct hpa_profile *prof, struct hpa_frame f);

/* match() is asked once per function, with the first frame that has it. */
void hpa_group_source(const struct hpa_profile *prof, const struct hpa_view_opts *opts,
		      hpa_func_match_fn *match, void *ctx, struct hpa_source_groups *out);

#endif
