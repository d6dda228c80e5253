// hpa --html: the page's script.  Reads the JSON the C side wrote (the
// numbers of --text and --peek, and the call tree) and draws the tabs:
// summary, top table, flame graph, callers and callees.  No network, no
// library.  "?test=..." runs the automation hook (see runTest) and writes
// its results into #test-out for a headless browser.
(function () {
	'use strict';
	window.onerror = function (msg) { document.getElementById('test-out').textContent = 'error: ' + msg; };
	var D = JSON.parse(document.getElementById('hpa-data').textContent);
	var S = D.s;
	var NS = 'http://www.w3.org/2000/svg';
	var st = { tab: 'summary', type: 0, gran: 'functions', sort: 'flat', search: '',
		sel: null, zoom: 0, icicle: false, find: '', limit: 500, thread: -1, dump: -1 };
	var app = document.getElementById('app');

	D.types.forEach(function (t, i) { if (t.name === 'inuse_space') st.type = i; });
	// A series opens on its last dump: the sum of every dump is no moment of the process.
	if (D.types.length && D.types[0].tree.series) st.dump = D.inputs.length - 1;
	// A tree written once for every value type: a later type's has its own
	// after column (and count left out), the rest is the first type's.
	function share(tr, from) {
		['parent', 'name', 'label', 'before', 'diff'].forEach(function (k) { tr[k] = from[k]; });
	}
	// Parents written as how far back they are; labels as the few that are not the node's name.
	function relabel(tr) {
		if (tr.up && !tr.parent) tr.parent = tr.up.map(function (d, k) { return k ? k - d : -1; });
		if (tr.label || !tr.relabel) return;
		tr.label = tr.name.slice();
		for (var k = 0; k < tr.relabel.length; k += 2) tr.label[tr.relabel[k]] = tr.relabel[k + 1];
	}
	// A later type's calls written as values: the callers and callees are the first type's.
	function callv(t, lead) {
		if (!t.callv || t.calls) return;
		t.calls = lead.calls.map(function (c, i) { return [c[0], c[1], t.callv[i]]; });
	}
	// A line's row written as [function, file, line, flat, cum]: its text is
	// --text --lines's, "??" for no file, added to the strings once.
	var lineIds = new Map();
	function lines(top) {
		if (!top || !top.lines) return;
		top.lines = top.lines.map(function (r) {
			if (r.length < 5) return r;
			var n = S[r[0]] + ' ' + (S[r[1]] || '??') + ':' + r[2];
			if (!lineIds.has(n)) { lineIds.set(n, S.length); S.push(n); }
			return [lineIds.get(n), r[3], r[4]];
		});
	}
	// A later type's rows written as values ("linesv": flat, cum, ...): the keys are the first type's.
	function rowsv(top, lead) {
		['functions', 'lines', 'files'].forEach(function (g) {
			var v = top[g + 'v'];
			if (!v || top[g]) return;
			top[g] = lead[g].map(function (r, i) { return [r[0], v[2 * i], v[2 * i + 1]]; });
		});
	}
	// The first type comes first: its lines made before a later type's rows take them.
	D.types.forEach(function (t) {
		var lead = D.types[0];
		lines(t.top);
		['before', 'after'].forEach(function (k) { if (t[k]) lines(t[k].top); });
		rowsv(t.top, lead.top);
		relabel(t.tree);
		callv(t, lead);
		(t.threads || []).forEach(function (th, k) {
			lines(th.top);
			rowsv(th.top, lead.threads[k].top);
			relabel(th.tree);
			callv(th, lead.threads[k]);
		});
	});
	if (D.waste) relabel(D.waste);
	// Dump d of a series' type t, its rows and calls made the first time it is shown: they
	// are written as values at the sum's positions (a dump's rows are some of the sum's).
	function dumpOf(t, d) {
		var dp = t.dumps[d];
		if (dp.calls) return dp;
		['functions', 'lines', 'files'].forEach(function (g) {
			var v = dp.top[g + 'd'];
			dp.top[g] = [];
			t.top[g].forEach(function (r, i) { if (v[2 * i] || v[2 * i + 1]) dp.top[g].push([r[0], v[2 * i], v[2 * i + 1]]); });
		});
		dp.calls = [];
		t.calls.forEach(function (c, i) { if (dp.calld[i]) dp.calls.push([c[0], c[1], dp.calld[i]]); });
		return dp;
	}
	D.types.forEach(function (t) {
		if (t.tree.shared) share(t.tree, D.types[0].tree);
		(t.threads || []).forEach(function (th, k) {
			if (th.tree.shared) share(th.tree, D.types[0].threads[k].tree);
		});
	});

	function el(tag, attrs, text) {
		var e = document.createElement(tag);
		for (var k in attrs || {}) e.setAttribute(k, attrs[k]);
		if (text !== undefined) e.textContent = text;
		return e;
	}
	function type() { return D.types[st.type]; }
	// What the views show: the whole profile, one thread's part of it, or
	// of a series the dump picked (its own rows) or an adjacent pair.
	function src() {
		var t = type();
		if (st.thread >= 0 && t.threads) return t.threads[st.thread];
		if (!t.dumps || st.dump < 0) return t;
		var nd = D.inputs.length, d = st.dump % nd;
		if (st.dump < nd) return { top: dumpOf(t, d).top, calls: dumpOf(t, d).calls, tree: t.tree };
		t.pairs = t.pairs || {};
		return t.pairs[d] || (t.pairs[d] = pairOf(t, d));
	}
	// Dump d against dump d - 1: each row's and call's change, rows that did not change left out.
	function pairOf(t, d) {
		var a = dumpOf(t, d - 1), b = dumpOf(t, d), top = { total: b.top.total - a.top.total };
		function change(key, from, n) {
			var m = new Map();
			[[a, -1], [b, 1]].forEach(function (side) {
				from(side[0]).forEach(function (r) {
					var k = key(r), x = m.get(k) || r.slice(0, r.length - n).concat(new Array(n).fill(0));
					for (var j = r.length - n; j < r.length; j++) x[j] += side[1] * r[j];
					m.set(k, x);
				});
			});
			return Array.from(m.values()).filter(function (x) { return x.slice(x.length - n).some(function (v) { return v; }); });
		}
		['functions', 'lines', 'files'].forEach(function (g) {
			top[g] = change(function (r) { return r[0]; }, function (s) { return s.top[g]; }, 2);
		});
		var calls = change(function (c) { return c[0] + ',' + c[1]; }, function (s) { return s.calls; }, 1);
		return { top: top, calls: calls, tree: t.tree, before: a, after: b, pair: true };
	}
	function nth(d) { return '#' + (d + 1); }
	// The dump (or adjacent pair) a series' tabs show, or the sum of all, when asked.
	function dumpSelect(bar, before) {
		if (!type().dumps || st.thread >= 0) return;
		var ds = el('select', { id: 'dump' }), nd = D.inputs.length;
		ds.appendChild(el('option', { value: -1 }, 'the sum of all ' + nd + ' dumps (no moment of the process)'));
		for (var d = 0; d < nd; d++) {
			ds.appendChild(el('option', { value: d }, 'dump ' + nth(d) + ': ' + D.inputs[d].path));
			if (d) ds.appendChild(el('option', { value: nd + d }, 'dump ' + nth(d) + ' against dump ' + nth(d - 1)));
		}
		ds.value = st.dump;
		ds.onchange = function () { st.dump = +ds.value; st.zoom = 0; draw(); };
		bar.insertBefore(ds, before || null);
	}
	// What the Top tab's total is of.
	function totalOf() {
		var nd = D.inputs.length;
		if (!type().dumps || st.thread >= 0) return 'Total: ';
		if (st.dump < 0) return 'Total of the sum of all ' + nd + ' dumps (no moment of the process): ';
		if (st.dump < nd) return 'Total of dump ' + nth(st.dump) + ': ';
		return 'Change from dump ' + nth(st.dump - nd - 1) + ' to ' + nth(st.dump - nd) + ': ';
	}

	// Sizes: whole bytes with --show_bytes, else the unit that keeps 3 digits.
	function fmt(v, t) {
		if ((t || type()).objects || D.bytes) return String(Math.trunc(v));
		var u = ['B', 'KiB', 'MiB', 'GiB'], a = Math.abs(v), i = 0;
		while (i < 3 && a >= 1024) { a /= 1024; v /= 1024; i++; }
		if (i === 0) return v.toFixed(0) + 'B';
		return v.toFixed(a >= 100 ? 0 : a >= 10 ? 1 : 2) + u[i];
	}
	function pct(x, total) {
		if (total === 0 || !isFinite(x * 100 / total)) return '-';
		return (x * 100 / total).toFixed(1) + '%';
	}
	function cmpName(a, b) { return a < b ? -1 : a > b ? 1 : 0; }

	// The rows of the selected type and granularity, in --text's order.
	function rows() {
		var t = src().top, key = st.sort === 'cum' ? 2 : 1;
		var r = t[st.gran].map(function (x) { return { name: S[x[0]], flat: x[1], cum: x[2] }; });
		r.sort(function (a, b) {
			var x = st.sort === 'name' ? 0 : b[key === 1 ? 'flat' : 'cum'] - a[key === 1 ? 'flat' : 'cum'];
			return x !== 0 ? x : cmpName(a.name, b.name);
		});
		var run = 0;
		r.forEach(function (x) { run += x.flat; x.sum = run; });
		return r;
	}

	function matcher(text) {
		if (!text) return null;
		try { return new RegExp(text); } catch (e) { return { test: function (s) { return s.indexOf(text) >= 0; } }; }
	}

	function header() {
		var h = el('header');
		h.appendChild(el('h1', {}, 'hpa: ' + D.title));
		var nav = el('nav');
		var tabs = [['summary', 'Summary'], ['top', 'Top'], ['flame', 'Flame graph'], ['calls', 'Callers & callees']];
		if (type().tree.series) tabs.push(['series', 'Series']);
		if (D.memory) tabs.push(['memory', 'Memory (RSS)']);
		tabs.forEach(function (p) {
				var b = el('button', { 'data-tab': p[0], class: st.tab === p[0] ? 'on' : '' }, p[1]);
				b.onclick = function () { st.tab = p[0]; draw(); };
				nav.appendChild(b);
			});
		h.appendChild(nav);
		return h;
	}

	function typeSelect(bar) {
		var s = el('select', { id: 'type' });
		D.types.forEach(function (t, i) {
			var o = el('option', { value: i }, t.name);
			if (i === st.type) o.selected = true;
			s.appendChild(o);
		});
		s.onchange = function () { st.type = +s.value; st.zoom = 0; draw(); };
		bar.appendChild(el('label', {}, 'Value '));
		bar.appendChild(s);
		if (D.threads.length) {
			var th = el('select', { id: 'thread' });
			th.appendChild(el('option', { value: -1 }, 'all threads'));
			D.threads.forEach(function (t, i) {
				var o = el('option', { value: i }, 't' + t.id + (t.name ? ' ' + t.name : ''));
				if (i === st.thread) o.selected = true;
				th.appendChild(o);
			});
			th.onchange = function () { st.thread = +th.value; st.zoom = 0; draw(); };
			bar.appendChild(th);
		}
	}

	function summary(m) {
		var dl = el('dl');
		function item(k, v) { dl.appendChild(el('dt', {}, k)); dl.appendChild(el('dd', {}, v)); }
		D.inputs.forEach(function (i) {
			item(i.base ? 'Base' : 'Profile', i.path);
			item('', i.format + (i.period ? ', sampling period ' + i.period + ' bytes' : ', not sampled') +
				(i.time ? ', dumped ' + i.time : ''));
			if (i.maps) item('', i.maps === 'cut' ? 'its maps section is cut: modules listed after the cut are missing, their addresses unmapped'
				: 'no maps section (the dump may be cut before it): addresses stay unmapped unless BINARY is linked at a fixed address');
		});
		var nd = D.inputs.length;
		D.types.forEach(function (t) {
			var u = t.objects ? ' objects' : '';
			if (!t.tree.series) {
				item('Total ' + t.name, fmt(t.top.total, t) + u);
				return;
			}
			// A series: each dump's own total (its tree's root), the sum said as one.
			var own = [];
			for (var d = 0; d < nd; d++) own.push(nth(d) + ' ' + fmt(t.tree.series[d], t) + u);
			item(t.name + ' per dump', own.join(', '));
			item('', 'the sum of the ' + nd + ' dumps (no moment of the process; the tabs show it when picked): ' +
				fmt(t.top.total, t) + u);
		});
		if (D.filters) item('Active filters', D.filters);
		item('Written by', 'hpa ' + D.version);
		m.appendChild(dl);
		m.appendChild(el('h3', {}, D.warnings.length ? 'Warnings' : 'No warnings'));
		D.warnings.forEach(function (w) { m.appendChild(el('div', { class: 'warn' }, w)); });
	}

	function top(m) {
		var bar = el('div', { class: 'bar' });
		typeSelect(bar);
		var g = el('select', { id: 'gran' });
		['functions', 'lines', 'files'].forEach(function (n) {
			var o = el('option', { value: n }, n);
			if (n === st.gran) o.selected = true;
			g.appendChild(o);
		});
		g.onchange = function () { st.gran = g.value; st.limit = 500; draw(); };
		bar.appendChild(g);
		var q = el('input', { id: 'search', placeholder: 'search (regular expression)', size: 30 });
		q.value = st.search;
		q.oninput = function () { st.search = q.value; fill(); };
		bar.appendChild(q);
		dumpSelect(bar);
		var s = src(), total = s.top.total;
		bar.appendChild(el('span', { id: 'total' }, totalOf() + fmt(total)));
		// With --base, or a pair of a series: each side's cum next to the difference.
		var side = {};
		if ((D.diff && st.thread < 0) || s.pair) ['before', 'after'].forEach(function (k) {
			side[k] = {};
			// The base counts negatively in the view: its side is shown as it was.
			(s.pair ? s : type())[k].top[st.gran].forEach(function (x) {
				side[k][S[x[0]]] = k === 'before' && !s.pair ? -x[2] : x[2];
			});
		});
		m.appendChild(bar);
		var t = el('table', { id: 'top' }), head = el('tr');
		var cols = [['flat', 'flat'], ['flat%', 'flat'], ['sum%', 'flat'], ['cum', 'cum'], ['cum%', 'cum']];
		if (side.before) cols.push(['before', 'cum'], ['after', 'cum']);
		cols.concat([['name', 'name']]).forEach(function (c) {
				var th = el('th', { class: c[0] === 'name' ? 'name' : '' }, c[0]);
				th.onclick = function () { st.sort = c[1]; fill(); };
				head.appendChild(th);
			});
		t.appendChild(el('thead')).appendChild(head);
		var body = el('tbody');
		t.appendChild(body);
		m.appendChild(t);
		var more = el('div', { class: 'more' });
		m.appendChild(more);
		function fill() {
			var re = matcher(st.search), all = rows(), shown = 0;
			body.textContent = '';
			all.forEach(function (r) {
				if (re && !re.test(r.name)) return;
				if (shown++ >= st.limit) return;
				var tr = el('tr', { class: r.name === st.sel ? 'sel' : '' });
				var cells = [fmt(r.flat), pct(r.flat, total), pct(r.sum, total), fmt(r.cum), pct(r.cum, total)];
				if (side.before) cells.push(fmt(side.before[r.name] || 0), fmt(side.after[r.name] || 0));
				cells.forEach(function (v, i) {
					tr.appendChild(el('td', { class: i === 3 && side.before ? (r.cum > 0 ? 'pos' : r.cum < 0 ? 'neg' : '') : '' }, v));
				});
				tr.appendChild(el('td', { class: 'name' }, r.name));
				tr.onclick = function () { select(r.name); };
				body.appendChild(tr);
			});
			more.textContent = shown > st.limit ? (shown - st.limit) + ' more rows: ' : '';
			if (shown > st.limit) {
				var b = el('button', {}, 'show more');
				b.onclick = function () { st.limit += 2000; fill(); };
				more.appendChild(b);
			}
		}
		fill();
	}

	// A function picked in the table or the graph: its callers and callees.
	function select(name) {
		st.sel = name.replace(/ \[inline\]$/, ' (inline)');
		st.tab = 'calls';
		draw();
	}

	function calls(m) {
		var bar = el('div', { class: 'bar' });
		typeSelect(bar);
		dumpSelect(bar);
		m.appendChild(bar);
		if (!st.sel) {
			m.appendChild(el('p', { class: 'muted' }, 'Click a function in the top table or the flame graph.'));
			return;
		}
		var t = src(), fn = null, total = t.top.total;
		t.top.functions.forEach(function (r) { if (S[r[0]] === st.sel) fn = r; });
		var table = el('table', { id: 'calls' }), body = el('tbody');
		var head = el('tr');
		['value', 'share', 'cum', 'cum%', 'name'].forEach(function (c) {
			head.appendChild(el('th', { class: c === 'name' ? 'name' : '' }, c));
		});
		table.appendChild(el('thead')).appendChild(head);
		table.appendChild(body);
		var cum = fn ? fn[2] : 0;
		function links(side) {
			var out = [];
			t.calls.forEach(function (c) {
				if (S[c[side === 'in' ? 1 : 0]] === st.sel) out.push({ name: S[c[side === 'in' ? 0 : 1]], v: c[2] });
			});
			out.sort(function (a, b) { return b.v - a.v || cmpName(a.name, b.name); });
			out.forEach(function (l) {
				var tr = el('tr', { class: side === 'in' ? 'caller' : 'callee' });
				[fmt(l.v), pct(l.v, cum), '', ''].forEach(function (v) { tr.appendChild(el('td', {}, v)); });
				tr.setAttribute('data-v', l.v);
				tr.appendChild(el('td', { class: 'name' }, (side === 'in' ? '\u2191 ' : '\u2193 ') + l.name));
				tr.onclick = function () { select(l.name); };
				body.appendChild(tr);
			});
		}
		links('in');
		var tr = el('tr', { class: 'fn' });
		[fn ? 'flat ' + fmt(fn[1]) : '', fn ? pct(fn[1], total) : '', fmt(cum), pct(cum, total)]
			.forEach(function (v) { tr.appendChild(el('td', {}, v)); });
		tr.appendChild(el('td', { class: 'name' }, st.sel));
		body.appendChild(tr);
		links('out');
		m.appendChild(table);
	}

	// ---- flame graph --------------------------------------------------------
	function hash(s) {
		var h = 2166136261;
		for (var i = 0; i < s.length; i++) { h ^= s.charCodeAt(i); h = Math.imul(h, 16777619); }
		return h >>> 0;
	}
	function colour(name, node, tr) {
		if (tr.diff) {   // the rule of every differential graph (flame.c's diff_colour): D.legend says it
			var d = tr.after[node] - tr.before[node], m = tr.maxDelta;
			if (d === 0 || !m) return 'rgb(220,220,220)';
			var c = 100 + Math.floor(150 * (1 - Math.min(Math.abs(d), m) / m));
			return d > 0 ? 'rgb(250,' + c + ',' + c + ')' : 'rgb(' + c + ',' + c + ',250)';
		}
		if (tr.cls) {   // a series: by the frame's class over the dumps (flame.c's class_colour): D.growthLegend says it
			var deep = [[220, 30, 30], [235, 150, 0], [150, 60, 200], [40, 80, 230]][tr.cls[node]];
			if (!deep) return 'rgb(220,220,220)';
			var k = 0.35 + 0.65 * (tr.maxSwing ? Math.min(tr.swing[node], tr.maxSwing) / tr.maxSwing : 0);
			return 'rgb(' + deep.map(function (x) { return 255 - Math.floor((255 - x) * k); }).join(',') + ')';
		}
		var h = hash(name), v = (h % 1000) / 1000, a = /_\[([jikw])\]$/.exec(name);
		// perf's annotations, coloured as FlameGraph and inferno do: JIT green, inlined and waker aqua, kernel orange
		if (a) {
			var t = a[1] === 'j' ? [50, 60, 200, 55, 50, 60] : a[1] === 'k' ? [190, 65, 90, 65, 0, 0] : [50, 60, 165, 55, 165, 55];
			return 'rgb(' + (t[0] + Math.floor(t[1] * v)) + ',' + (t[2] + Math.floor(t[3] * v)) + ',' + (t[4] + Math.floor(t[5] * v)) + ')';
		}
		return 'rgb(' + (205 + h % 50) + ',' + (80 + (h >> 8) % 130) + ',' + (40 + (h >> 16) % 50) + ')';
	}

	// The tree as drawn: the sum, one dump (after), or a pair (before, after) of a series.
	function pick(t) {
		if (!t.series || st.dump < 0) return t;
		var nd = D.inputs.length, d = st.dump % nd, pair = st.dump >= nd, n = t.parent.length;
		var a = [], b = [];
		for (var i = 0; i < n; i++) {
			a.push(t.series[i * nd + d]);
			b.push(pair ? t.series[i * nd + d - 1] : 0);
		}
		return { parent: t.parent, name: t.name, label: t.label, after: a, before: b, diff: pair, omitted: t.omitted,
			cls: pair ? null : t.cls, series: t.series };
	}
	// A series' frames: each one's swing (its largest dump less its smallest), the largest of any.
	function swings(tr) {
		var nd = D.inputs.length, n = tr.parent.length;
		tr.swing = [];
		tr.maxSwing = 0;
		for (var i = 0; i < n; i++) {
			var v = tr.series.slice(i * nd, i * nd + nd), s = Math.max.apply(null, v) - Math.min.apply(null, v);
			tr.swing.push(s);
			tr.maxSwing = Math.max(tr.maxSwing, s);
		}
	}

	function series(m) {
		var bar = el('div', { class: 'bar' });
		typeSelect(bar);
		m.appendChild(bar);
		var t = type(), nd = D.inputs.length, tot = [];
		for (var d = 0; d < nd; d++) tot.push(t.tree.series[d]);
		// Totals per dump: a bar chart.
		var W = 900, H = 220, max = Math.max.apply(null, tot.map(Math.abs).concat([1]));
		var svg = document.createElementNS(NS, 'svg');
		svg.setAttribute('id', 'chart'); svg.setAttribute('width', W); svg.setAttribute('height', H + 40);
		tot.forEach(function (v, i) {
			var bw = W / nd, h = Math.abs(v) / max * H;
			var r = document.createElementNS(NS, 'rect');
			r.setAttribute('x', (i * bw + 4).toFixed(1)); r.setAttribute('y', (H - h).toFixed(1));
			r.setAttribute('width', Math.max(bw - 8, 1).toFixed(1)); r.setAttribute('height', h.toFixed(1));
			r.setAttribute('fill', 'rgb(220,90,60)');
			var ti = document.createElementNS(NS, 'title');
			ti.textContent = D.inputs[i].path + ': ' + fmt(v);
			r.appendChild(ti);
			svg.appendChild(r);
			var tx = document.createElementNS(NS, 'text');
			tx.setAttribute('x', (i * bw + bw / 2).toFixed(1)); tx.setAttribute('y', H + 16);
			tx.setAttribute('text-anchor', 'middle'); tx.setAttribute('font-size', '11');
			tx.textContent = fmt(v);
			svg.appendChild(tx);
			var lb = document.createElementNS(NS, 'text');   // which dump: its number, then its name on hover
			lb.setAttribute('x', (i * bw + bw / 2).toFixed(1)); lb.setAttribute('y', H + 32);
			lb.setAttribute('text-anchor', 'middle'); lb.setAttribute('font-size', '11');
			lb.setAttribute('class', 'dump-label');
			lb.textContent = nth(i);
			svg.appendChild(lb);
		});
		m.appendChild(el('h3', {}, 'Total ' + t.name + ' per dump'));
		m.appendChild(svg);
		m.appendChild(el('h3', {}, 'Functions, leaks first, then by steady growth (as --growth)'));
		var table = el('table', { id: 'growth' }), head = el('tr');
		['gain', 'steady', 'class'].concat(D.inputs.map(function (x, i) { return nth(i); }), ['name'])
			.forEach(function (c) { head.appendChild(el('th', { class: c === 'name' ? 'name' : '' }, c)); });
		table.appendChild(el('thead')).appendChild(head);
		var body = el('tbody');
		(t.growth || []).forEach(function (g) {
			var tr = el('tr');
			tr.appendChild(el('td', { class: g[1] > 0 ? 'pos' : g[1] < 0 ? 'neg' : '' }, fmt(g[1])));
			tr.appendChild(el('td', {}, (g[2] * 100).toFixed(0) + '%'));
			tr.appendChild(el('td', { class: 'class-' + g[3] }, g[3]));
			for (var i = 4; i < g.length; i++) tr.appendChild(el('td', {}, fmt(g[i])));
			tr.appendChild(el('td', { class: 'name' }, S[g[0]]));
			tr.onclick = function () { select(S[g[0]]); };
			body.appendChild(tr);
		});
		table.appendChild(body);
		m.appendChild(table);
	}

	// Width of one character of the graph's monospace font, measured once.
	var charW = 0;
	function charWidth() {
		if (!charW) {
			var c = document.createElement('canvas').getContext('2d');
			c.font = '12px ui-monospace, monospace';   // #flame's font
			charW = c.measureText('MMMMMMMMMM').width / 10 || 7.2;
		}
		return charW;
	}

	// The flame graph of the type shown, or of `own`, a tree of bytes of its own (the Memory tab's).
	function flame(m, own) {
		var bar = el('div', { class: 'bar' }), F = own ? function (v) { return fmt(v, {}); } : fmt;
		if (!own) typeSelect(bar);
		var ic = el('label', {}, ' icicle ');
		var cb = el('input', { type: 'checkbox', id: 'icicle' });
		cb.checked = st.icicle;
		cb.onchange = function () { st.icicle = cb.checked; draw(); };
		ic.appendChild(cb);
		bar.appendChild(ic);
		var q = el('input', { id: 'find', placeholder: 'search (regular expression)', size: 30 });
		q.value = st.find;
		bar.appendChild(q);
		var found = el('span', { id: 'found' });
		bar.appendChild(found);
		var reset = el('button', {}, 'reset zoom');
		reset.onclick = function () { st.zoom = 0; draw(); };
		bar.appendChild(reset);
		m.appendChild(bar);

		var tr = own || pick(src().tree), n = tr.parent.length, kids = [];
		tr.maxDelta = 0;   // the largest change of any frame: the deepest colour
		if (tr.diff) for (var j = 0; j < n; j++) tr.maxDelta = Math.max(tr.maxDelta, Math.abs(tr.after[j] - tr.before[j]));
		if (tr.cls) swings(tr);
		if (!own && src().tree.series) dumpSelect(bar, bar.children[2]);   // a dump, or an adjacent pair, of the series
		for (var i = 0; i < n; i++) kids.push([]);
		for (i = 1; i < n; i++) kids[tr.parent[i]].push(i);
		var val = function (i) { return Math.max(Math.abs(tr.after[i]), tr.diff ? Math.abs(tr.before[i]) : 0); };
		var width = Math.max(600, (document.documentElement.clientWidth || 1200) - 40), H = 17;
		var z = st.zoom < n ? st.zoom : 0, zv = val(z) || 1;
		var x0 = {}, depth = {}, maxd = 0, order = [];
		// Nodes of the zoomed subtree with their x (pixels) and depth; the path above it full width.
		(function place(i, x, d) {
			x0[i] = x; depth[i] = d; order.push(i);
			if (d > maxd) maxd = d;
			var cx = x;
			kids[i].forEach(function (k) {
				var w = val(k) / zv * width;
				if (w >= 0.3) place(k, cx, d + 1);
				cx += w;
			});
		})(z, 0, 0);
		var above = [];
		for (i = tr.parent[z]; i !== undefined && i >= 0; i = tr.parent[i]) above.unshift(i);
		var rowsN = maxd + 1 + above.length;
		var svg = document.createElementNS(NS, 'svg');
		svg.setAttribute('id', 'flame');
		svg.setAttribute('width', width);
		svg.setAttribute('height', rowsN * H + 4);
		var re = matcher(st.find), matched = 0;
		function y(d) { return st.icicle ? d * H : (rowsN - 1 - d) * H; }
		function box(i, x, w, d, dim) {
			var name = S[tr.name[i]], g = document.createElementNS(NS, 'g');
			var r = document.createElementNS(NS, 'rect');
			r.setAttribute('x', x.toFixed(1)); r.setAttribute('y', y(d));
			r.setAttribute('width', Math.max(w - 0.5, 0.1).toFixed(1)); r.setAttribute('height', H - 1);
			var hit = re && re.test(name);
			r.setAttribute('fill', hit ? 'rgb(230,0,230)' : dim ? 'rgb(230,230,230)' : colour(name, i, tr));
			g.appendChild(r);
			var t = document.createElementNS(NS, 'title');
			var info = name + '\n' + F(tr.after[i]) + ' (' + pct(tr.after[i], tr.after[0]) + ')';
			if (tr.diff) info += '\nbefore ' + F(tr.before[i]) + ', change ' + F(tr.after[i] - tr.before[i]);
			t.textContent = info;
			g.appendChild(t);
			var chars = Math.floor((w - 6) / charWidth());
			if (chars >= 3) {
				var label = S[tr.label[i]], tx = document.createElementNS(NS, 'text');
				tx.setAttribute('x', (x + 3).toFixed(1)); tx.setAttribute('y', y(d) + H - 5);
				tx.textContent = label.length > chars ? label.slice(0, chars - 2) + '..' : label;
				g.appendChild(tx);
			}
			g.setAttribute('data-node', i);
			g.onclick = function (ev) {
				if (ev.shiftKey || ev.detail === 2) { select(name); return; }
				st.zoom = i; draw();
			};
			g.oncontextmenu = function (ev) { ev.preventDefault(); select(name); };
			g.onmouseover = function () { document.getElementById('details').textContent = info.replace(/\n/g, '  \u2014  '); };
			svg.appendChild(g);
			return hit;
		}
		above.forEach(function (i, d) { box(i, 0, width, d, true); });
		var hitUnder = {};
		order.forEach(function (i) {
			var w = val(i) / zv * width;
			var hit = box(i, x0[i], w, depth[i] + above.length, false);
			var p = tr.parent[i];
			hitUnder[i] = hit || (i !== z && hitUnder[p]);
			if (hit && !(i !== z && hitUnder[p])) matched += tr.after[i];
		});
		q.oninput = function () { st.find = q.value; draw(); setTimeout(function () { var f = document.getElementById('find'); f.focus(); f.setSelectionRange(f.value.length, f.value.length); }, 0); };
		found.textContent = re ? 'matched ' + pct(matched, tr.after[0]) : '';
		m.appendChild(svg);
		m.appendChild(el('div', { id: 'details' }, 'click: zoom; right click or shift-click: callers & callees' +
			(tr.omitted ? '; ' + tr.omitted + (tr.omitted === 1 ? ' branch' : ' branches') + ' under 0.002% of the total left out' : '')));
		if (tr.diff || tr.cls) m.appendChild(el('div', { id: 'legend' }, tr.diff ? D.legend : D.growthLegend));
	}

	// The rows of --stats --csv: one object per line, by the header's names.
	function csvRows(text) {
		var all = [], row = [], f = '', q = false;
		for (var i = 0; i < text.length; i++) {
			var c = text[i];
			if (q) {
				if (c !== '"') f += c;
				else if (text[i + 1] === '"') { f += '"'; i++; } else q = false;
			} else if (c === '"') q = true;
			else if (c === ',') { row.push(f); f = ''; }
			else if (c === '\n') { row.push(f); all.push(row); row = []; f = ''; }
			else f += c;
		}
		if (f || row.length) { row.push(f); all.push(row); }
		var head = all.shift() || [];
		return all.map(function (r) { var o = {}; head.forEach(function (h, k) { o[h] = r[k] || ''; }); return o; });
	}
	// A row of a Memory table: its cells, and a bar of v against the whole.
	function memRow(tb, r, cells, v, whole, cls) {
		var tr = el('tr', { 'data-kind': r.kind, 'data-name': r.name, 'data-v': r.bytes, title: r.hint || '' });
		if (cls) tr.className = cls;
		cells.forEach(function (c, k) { tr.appendChild(el('td', { class: k === cells.length - 1 ? 'name' : '' }, c)); });
		var b = el('td', { class: 'barcell' }), span = el('span', { class: 'mbar' });
		span.style.width = (whole > 0 ? Math.max(0, Math.min(100, v * 100 / whole)) : 0).toFixed(1) + '%';
		b.appendChild(span);
		tr.insertBefore(b, tr.children[2] || null);
		tb.appendChild(tr);
	}
	function memTable(m, id, heads) {
		var t = el('table', { id: id, class: 'mem' }), hr = el('tr');
		heads.forEach(function (h, k) { hr.appendChild(el('th', { class: k === heads.length - 1 ? 'name' : '' }, h)); });
		t.appendChild(el('thead')).appendChild(hr);
		m.appendChild(t);
		return t.appendChild(el('tbody'));
	}
	var memAll = false;
	function memory(m) {
		var R = csvRows(D.memory), B = function (v) { return fmt(+v, {}); };
		var total = R.filter(function (r) { return r.kind === 'total'; })[0] || { bytes: 0, hint: '' };
		var rss = +total.bytes, classes = R.filter(function (r) { return r.kind === 'class'; });
		var sites = R.filter(function (r) { return r.kind === 'site'; });
		m.appendChild(el('h2', {}, 'Where RSS goes: ' + B(rss)));
		m.appendChild(el('div', { class: 'muted' }, total.hint));
		var tb = memTable(m, 'rss', ['bytes', '% RSS', '', 'allocator says', 'part']);
		R.forEach(function (r) {
			if (r.kind !== 'rss' && r.kind !== 'total') return;
			memRow(tb, r, [B(r.bytes), pct(+r.bytes, rss), r.allocator_bytes !== r.bytes && r.kind === 'rss' ?
				B(r.allocator_bytes) : '', (r.level === '1' ? '\u2003' : '') + r.name], +r.bytes, rss,
				r.level === '0' || r.kind === 'total' ? 'group' : '');
		});
		R.forEach(function (r) { if (r.kind === 'note') m.appendChild(el('p', { class: 'warn' }, 'Note: ' + r.name)); });
		if (classes.length) {
			var frag = classes.reduce(function (a, r) { return a + +r.bytes; }, 0);
			m.appendChild(el('h2', {}, 'Empty space by size class: ' + B(frag)));
			tb = memTable(m, 'classes', ['empty', 'size', '', 'regions', 'live', 'used', 'sites in it (share of the class\'s objects)']);
			classes.forEach(function (r) {
				var in_ = sites.filter(function (x) { return x.size_class === r.size_class && r.size_class !== ''; });
				var who = in_.slice(0, 3).map(function (x) { return (100 * +x.share).toFixed(1) + '% ' + x.name.split(' < ')[0]; });
				if (in_.length > 3) who.push(in_.length - 3 + ' more');
				memRow(tb, r, [B(r.bytes), r.size_class || '', r.regions, r.live_regions,
					r.utilization === '' ? '' : (100 * +r.utilization).toFixed(1) + '%',
					r.size_class ? who.join('; ') : r.name], +r.bytes, frag);
			});
		}
		if (sites.length) {
			var order = sites.slice().sort(function (a, b) { return +b.bytes - +a.bytes || cmpName(a.name, b.name); });
			var most = order.length ? +order[0].bytes : 0, shown = memAll ? order : order.slice(0, 200);
			m.appendChild(el('h2', {}, 'Allocation sites charged with empty space'));
			tb = memTable(m, 'sites', ['charged', 'class', '', 'share', 'one size', 'stack, leaf first']);
			shown.forEach(function (r) {
				memRow(tb, r, [B(r.bytes), r.size_class ? r.size_class : 'large', r.share === '' ? '' :
					(100 * +r.share).toFixed(1) + '%', r.one_size === '1' ? 'yes' : 'no', r.name], +r.bytes, most);
			});
			if (shown.length < order.length) {
				var more = el('button', { class: 'more' }, 'show all ' + order.length + ' sites');
				more.onclick = function () { memAll = true; draw(); };
				m.appendChild(more);
			}
			m.appendChild(el('p', { class: 'muted' }, 'A class\'s empty bytes are shared among the sites that ' +
				'live in it by their share of its objects (a large object: its pad page): exact for a class one ' +
				'site fills, wrong where sites of one class fill slabs unevenly.'));
		}
		if (D.waste) {
			m.appendChild(el('h2', {}, 'Flame graph of the empty bytes charged to sites'));
			flame(m, D.waste);
		}
	}

	function draw() {
		app.textContent = '';
		app.appendChild(header());
		var m = el('main', { id: 'tab-' + st.tab });
		app.appendChild(m);
		({ summary: summary, top: top, flame: flame, calls: calls, series: series, memory: memory })[st.tab](m);
	}

	// ---- automation hook: ?test=rows,TYPE,GRAN|peek,TYPE,NAME|tabs|text,TAB,ID|dump|pick,N|fill,NAME|growth,TYPE
	function runTest(spec) {
		var out = [];
		spec.split(';').forEach(function (cmd) {
			var a = cmd.split(',');
			var ti = D.types.findIndex(function (t) { return t.name === a[1]; });
			if (a[0] === 'rows') {   // rows,TYPE,GRAN[,THREAD INDEX]
				st.type = ti; st.gran = a[2]; st.tab = 'top'; st.sort = 'flat'; st.limit = 1e9;
				st.thread = a[3] === undefined ? -1 : +a[3]; draw();
				out.push('Total\t' + Math.trunc(src().top.total));
				rows().forEach(function (r) { out.push(r.name + '\t' + Math.trunc(r.flat) + '\t' + Math.trunc(r.cum)); });
			} else if (a[0] === 'peek') {
				st.type = ti; st.gran = 'functions'; st.tab = 'top'; st.limit = 1e9; st.search = ''; draw();
				var name = a.slice(2).join(','), hitRow = null;
				document.querySelectorAll('#top tbody tr').forEach(function (tr) {
					if (tr.lastChild.textContent === name) hitRow = tr;
				});
				if (!hitRow) { out.push('no row ' + name); return; }
				hitRow.onclick();   // as a click does
				document.querySelectorAll('#calls tbody tr').forEach(function (tr) {
					var c = tr.children, n = c[4].textContent;
					if (tr.className === 'fn') out.push('N\t' + n);
					else out.push((tr.className === 'caller' ? 'C\t' : 'E\t') + n.slice(2) + '\t' +
						Math.trunc(+tr.getAttribute('data-v')));
				});
			} else if (a[0] === 'loaded') {
				out.push('loaded\t' + Math.round(performance.now()));
			} else if (a[0] === 'tabs') {
				var names = [];
				document.querySelectorAll('nav button').forEach(function (b) { names.push(b.getAttribute('data-tab')); });
				names.forEach(function (t) {
					st.tab = t; draw();
					out.push(t + '\t' + document.querySelectorAll('main *').length);
				});
			} else if (a[0] === 'text') {   // the text of an element after drawing a tab
				st.tab = a[1]; draw();
				var e = document.getElementById(a[2]);
				out.push(e ? e.textContent : 'no #' + a[2]);
			} else if (a[0] === 'dump') {   // the dump (or pair) the graphs show: -1 the sum
				out.push('dump\t' + st.dump);
			} else if (a[0] === 'fill') {   // fill,NAME: the colour of NAME's first frame in the flame graph
				st.tab = 'flame'; draw();
				var fname = a.slice(1).join(','), fill = 'no frame ' + fname;
				document.querySelectorAll('#flame g').forEach(function (g) {
					if (fill.indexOf('no frame') === 0 && g.querySelector('title').textContent.split('\n')[0] === fname)
						fill = g.querySelector('rect').getAttribute('fill');
				});
				out.push(fill);
			} else if (a[0] === 'growth') {   // growth,TYPE: the Series tab's ranking, "name\tclass\tgain"
				st.type = ti; st.tab = 'series'; draw();
				(type().growth || []).forEach(function (g) { out.push(S[g[0]] + '\t' + g[3] + '\t' + Math.trunc(g[1])); });
			} else if (a[0] === 'memory') {   // memory: every row of the Memory tab, "kind\tname\tbytes\tas shown"
				st.tab = 'memory'; memAll = true; draw();
				document.querySelectorAll('#tab-memory tr[data-kind]').forEach(function (tr) {
					out.push(tr.getAttribute('data-kind') + '\t' + tr.getAttribute('data-name') + '\t' +
						tr.getAttribute('data-v') + '\t' + tr.children[0].textContent);
				});
			} else if (a[0] === 'overflow') {   // overflow: the page's width beyond the window, in pixels
				st.tab = a[1] || st.tab; draw();
				out.push('overflow\t' + Math.max(0, document.documentElement.scrollWidth - document.documentElement.clientWidth));
			} else if (a[0] === 'pick') {   // pick,N: show dump N (-1 the sum, dumps + d the pair d-1, d)
				st.dump = +a[1];
			} else if (a[0] === 'tab') {
				st.tab = a[1]; if (a[2]) st.sel = a.slice(2).join(','); draw();
			}
		});
		document.getElementById('test-out').textContent = out.join('\n');
	}

	var q = new URLSearchParams(location.search);
	draw();
	if (q.has('test')) runTest(q.get('test'));
})();
