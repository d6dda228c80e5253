/*
 * What the passes take of the command line (opts.h): the view, the
 * writers' and the base pass's options, made from struct hpa_opts.
 */
#include "hpa/compat.h"

#include "hpa/opts.h"
#include "hpa/report.h"

struct hpa_view_opts hpa_opts_view(const struct hpa_opts *opts)
{
	struct hpa_view_opts vo = { 0 };

	vo.value = opts->value;
	vo.thread = opts->thread;
	vo.focus = &opts->focus;
	vo.ignore = &opts->ignore;
	vo.show = &opts->show;
	vo.hide = &opts->hide;
	return vo;
}

struct hpa_write_opts hpa_opts_write(const struct hpa_opts *opts)
{
	struct hpa_write_opts wo = { 0 };

	wo.mode = opts->mode;
	wo.growth = opts->growth;
	wo.view = hpa_opts_view(opts);
	wo.show_bytes = opts->show_bytes;
	wo.cum = opts->cum;
	wo.granularity = opts->granularity;
	wo.unit = opts->unit;
	wo.nodecount = opts->nodecount;
	wo.nodefraction = opts->nodefraction;
	wo.diff_columns = opts->diff_columns;
	wo.reverse = opts->reverse;
	wo.short_names = opts->short_names;
	wo.icicle = opts->icicle;
	wo.title = opts->title;
	wo.subtitle = opts->subtitle;
	wo.width = opts->width;
	wo.minwidth = opts->minwidth;
	wo.minwidth_pct = opts->minwidth_pct;
	wo.binary = opts->binary;
	wo.peek = &opts->peek;
	wo.list = &opts->list;
	wo.expect_growth = &opts->expect_growth;
	wo.series_pid = -1;
	wo.source_paths = opts->source_paths;
	wo.trim_paths = opts->trim_paths;
	return wo;
}

struct hpa_base_opts hpa_opts_base(const struct hpa_opts *opts)
{
	struct hpa_base_opts bo = { 0 };

	bo.view = hpa_opts_view(opts);
	bo.name = opts->base;
	bo.normalize = opts->normalize;
	bo.drop_negative = opts->drop_negative;
	return bo;
}
