// hpa flame graph script: tooltips in the details line, click to zoom,
// reset, regex search with a "Matched" readout, Ctrl-F.  Test hook: the
// query "?search=RE&zoom=N" runs a search and zooms frame N on load,
// "?check" measures labels and the hover line, and each writes its results
// into the text element #test-out.
"use strict";
var W, PAD, FH, FONTW, frames = [], zoomed = null, details, matchedText, unzoomBtn;
function hpaInit(evt) {
	var svg = document.documentElement;
	W = +svg.getAttribute("data-width"); PAD = +svg.getAttribute("data-xpad");
	FONTW = +svg.getAttribute("data-fontw");
	details = document.getElementById("details");
	// The font the browser really uses: its character width, so labels fit their boxes.
	var probe = document.createElementNS(svg.namespaceURI, "text");
	probe.textContent = "MMMMMMMMMMMMMMMMMMMM";
	svg.appendChild(probe);
	var measured = probe.getComputedTextLength ? probe.getComputedTextLength() / 20 : 0;
	svg.removeChild(probe);
	if (measured > FONTW) FONTW = measured;
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
	for (var j = 0; j < frames.length; j++)   // relabel with the measured width
		frames[j].text.textContent = label(frames[j], +frames[j].rect.getAttribute("width"));
	var box = document.getElementById("frames");
	box.addEventListener("mouseover", function (e) { var f = frameOf(e); if (f) hover(f); });
	box.addEventListener("mouseout", function () { details.textContent = " "; });
	box.addEventListener("click", function (e) { var f = frameOf(e); if (f) zoom(f); });
	unzoomBtn.addEventListener("click", function () { unzoom(); });
	document.getElementById("search").addEventListener("click", function () { askSearch(); });
	window.addEventListener("keydown", function (e) {
		if ((e.ctrlKey || e.metaKey) && (e.key === "f" || e.key === "F")) { e.preventDefault(); askSearch(); }
		if (e.key === "Escape") { unzoom(); search(""); }
	});
	var q = parseQuery();
	if (q.search !== undefined || q.zoom !== undefined || q.check !== undefined) runTest(q);
}
// The hover line: the tooltip on one line, cut to stay on the canvas, left of the "Matched" readout.
function hover(f) {
	var room = Math.floor((W - 2 * PAD) * 0.8 / FONTW), t = f.tip.replace(/\n/g, "  ");
	details.textContent = t.length <= room ? t : t.substr(0, room - 2) + "..";
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
	var chars = Math.floor((px - 3) / FONTW);   // the text starts 3 px in
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
	if (q.check !== undefined) {
		// Geometry: labels inside their boxes; the longest hover line on the canvas, clear of the note.
		var over = 0, longest = frames[0];
		for (var i = 0; i < frames.length; i++) {
			var f = frames[i];
			if (f.tip.length > longest.tip.length) longest = f;
			if (f.g.style.display === "none" || !f.text.textContent) continue;
			if (f.text.getComputedTextLength() > +f.rect.getAttribute("width") - 3 + 0.5) over++;
		}
		out.push("overflow=" + over);
		hover(longest);
		var d = details.getBBox(), n = document.getElementById("note").getBBox();
		out.push("hover_overlap=" + (d.y < n.y + n.height && n.y < d.y + d.height &&
			d.x < n.x + n.width && n.x < d.x + d.width ? 1 : 0));
		out.push("hover_inside=" + (d.x >= 0 && d.x + d.width <= W ? 1 : 0));
		out.push("legend=" + (document.getElementById("note").textContent.indexOf("legend:") >= 0 ? 1 : 0));
	}
	document.getElementById("test-out").textContent = out.join(";");
}
