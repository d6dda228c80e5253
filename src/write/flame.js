// hpa flame graph script: tooltips in the details line, click to zoom,
// reset, regex search with a "Matched" readout, Ctrl-F.  Test hook: the
// query "?search=RE&zoom=N" runs a search and zooms frame N on load, and
// writes the results into the text element #test-out.
"use strict";
var W, PAD, FH, FONTW, frames = [], zoomed = null, details, matchedText, unzoomBtn;
function hpaInit(evt) {
	var svg = document.documentElement;
	W = +svg.getAttribute("data-width"); PAD = +svg.getAttribute("data-xpad");
	FONTW = +svg.getAttribute("data-fontw");
	details = document.getElementById("details");
	matchedText = document.getElementById("matched");
	unzoomBtn = document.getElementById("unzoom");
	var gs = document.getElementById("frames").children;
	for (var i = 0; i < gs.length; i++) {
		var g = gs[i];
		frames.push({ g: g, x: +g.getAttribute("data-x"), w: +g.getAttribute("data-w"),
			d: +g.getAttribute("data-d"), name: g.firstChild.textContent.split("\n")[0],
			lbl: g.getAttribute("data-l"),
			tip: g.firstChild.textContent, rect: g.children[1], text: g.children[2],
			fill: g.children[1].getAttribute("fill") });
		g.setAttribute("data-i", i);
	}
	var box = document.getElementById("frames");
	box.addEventListener("mouseover", function (e) { var f = frameOf(e); if (f) details.textContent = f.tip.replace(/\n/g, "  "); });
	box.addEventListener("mouseout", function () { details.textContent = " "; });
	box.addEventListener("click", function (e) { var f = frameOf(e); if (f) zoom(f); });
	unzoomBtn.addEventListener("click", function () { unzoom(); });
	document.getElementById("search").addEventListener("click", function () { askSearch(); });
	window.addEventListener("keydown", function (e) {
		if ((e.ctrlKey || e.metaKey) && (e.key === "f" || e.key === "F")) { e.preventDefault(); askSearch(); }
		if (e.key === "Escape") { unzoom(); search(""); }
	});
	var q = parseQuery();
	if (q.search !== undefined || q.zoom !== undefined) runTest(q);
}
function parseQuery() {
	var q = {}, s = (location.search || "").replace(/^\?/, "").split("&");
	for (var i = 0; i < s.length; i++) { var kv = s[i].split("="); if (kv[0]) q[decodeURIComponent(kv[0])] = decodeURIComponent(kv[1] || ""); }
	return q;
}
function frameOf(e) {
	var n = e.target;
	while (n && n.parentNode && n.parentNode.id !== "frames") n = n.parentNode;
	return n && n.getAttribute ? frames[+n.getAttribute("data-i")] : null;
}
function label(f, px) {
	var chars = Math.floor(px / FONTW);
	if (chars < 3) return "";
	var name = f.lbl || f.name;   // the short name; search and the tooltip use the full one
	return name.length <= chars ? name : name.substr(0, chars - 2) + "..";
}
function place(f, x, w) {
	var px = x * (W - 2 * PAD) + PAD, pw = w * (W - 2 * PAD);
	f.rect.setAttribute("x", px.toFixed(2));
	f.rect.setAttribute("width", Math.max(pw, 0).toFixed(2));
	f.text.setAttribute("x", (px + 3).toFixed(2));
	f.text.textContent = label(f, pw);
	f.g.style.display = "";
}
function zoom(z) {
	zoomed = z;
	for (var i = 0; i < frames.length; i++) {
		var f = frames[i], inside = f.x >= z.x - 1e-12 && f.x + f.w <= z.x + z.w + 1e-12 && f.d >= z.d;
		var above = f.d < z.d && f.x <= z.x + 1e-12 && f.x + f.w >= z.x + z.w - 1e-12;
		if (inside) { place(f, (f.x - z.x) / z.w, f.w / z.w); f.g.classList.remove("parent"); }
		else if (above) { place(f, 0, 1); f.g.classList.add("parent"); }
		else f.g.style.display = "none";
	}
	unzoomBtn.classList.remove("hide");
	return z;
}
function unzoom() {
	zoomed = null;
	for (var i = 0; i < frames.length; i++) { place(frames[i], frames[i].x, frames[i].w); frames[i].g.classList.remove("parent"); }
	unzoomBtn.classList.add("hide");
}
function askSearch() {
	var re = prompt("Search frames (regular expression):", "");
	if (re !== null) search(re);
}
// Highlight matching frames; returns the matched share of the whole graph,
// counting nested matches once (the union of their extents).
function search(re) {
	var rx = null, spans = [], i;
	if (re) { try { rx = new RegExp(re); } catch (err) { matchedText.textContent = "bad regular expression"; return -1; } }
	for (i = 0; i < frames.length; i++) {
		var f = frames[i], hit = rx && f.d > 0 && rx.test(f.name);
		f.rect.setAttribute("fill", hit ? "rgb(230,0,230)" : f.fill);
		if (hit) spans.push([f.x, f.x + f.w]);
	}
	spans.sort(function (a, b) { return a[0] - b[0]; });
	var total = 0, end = -1;
	for (i = 0; i < spans.length; i++) {
		if (spans[i][1] <= end) continue;
		total += spans[i][1] - Math.max(spans[i][0], end);
		end = spans[i][1];
	}
	var pct = total * 100;
	matchedText.textContent = rx ? "Matched: " + pct.toFixed(1) + "%" : " ";
	return pct;
}
function runTest(q) {
	var out = [];
	if (q.search !== undefined) out.push("matched=" + search(q.search).toFixed(1));
	if (q.zoom !== undefined) {
		var z = zoom(frames[+q.zoom]);
		var w = +z.rect.getAttribute("width"), x = +z.rect.getAttribute("x");
		out.push("zoomed=" + z.name + ";x=" + x.toFixed(1) + ";width=" + w.toFixed(1));
	}
	document.getElementById("test-out").textContent = out.join(";");
}
