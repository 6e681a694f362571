/* The page of kg export --format html: draws the graph in the JSON block with Cytoscape.js.
   Every string from the data reaches the page through textContent or a text attribute, never
   as markup; links are made only for http(s) URLs (checked when the page was written, and
   again here). */
(function () {
  "use strict";
  var data = JSON.parse(document.getElementById("kg-data").textContent);
  var style = data.style;
  var byId = {};
  data.nodes.forEach(function (n) { byId[n.id] = n; });
  var fmt = function (n) { return n.toLocaleString("en-US"); };
  var PAPERS_SHOWN = 50;

  function el(tag, attrs) {
    var e = document.createElement(tag);
    Object.keys(attrs || {}).forEach(function (k) {
      if (k === "text") e.textContent = attrs[k];
      else if (k === "style") Object.assign(e.style, attrs[k]);
      else e.setAttribute(k, attrs[k]);
    });
    for (var i = 2; i < arguments.length; i++) if (arguments[i] != null) e.appendChild(arguments[i]);
    return e;
  }
  function labelStyle(label) { return style.labels[label] || style["default"].node; }
  function typeStyle(type) { return style.types[type] || style["default"].edge; }

  document.getElementById("kg-title").textContent = data.title;
  document.getElementById("kg-size").textContent =
    fmt(data.total.nodes) + " nodes, " + fmt(data.total.edges) + " edges in the graph";
  document.getElementById("kg-note").textContent =
    data.note + " (" + fmt(data.nodes.length) + " nodes, " + fmt(data.edges.length) + " edges drawn)";

  var big = data.edges.length > 2000;
  var sheet = [
    { selector: "node", style: {
      "background-color": function (e) { return labelStyle(e.data("label")).color; },
      "border-color": function (e) { return labelStyle(e.data("label")).border; },
      "border-width": 1.5,
      "width": "data(size)", "height": "data(size)",
      "label": "", "font-size": data.font, "color": "#222", "text-valign": "bottom", "text-margin-y": 2,
      "text-outline-color": "#fff", "text-outline-width": 2, "text-wrap": "none" } },
    { selector: "node.named, node.found, node:selected", style: { "label": "data(short)" } },
    { selector: "edge", style: {
      "line-color": function (e) { return typeStyle(e.data("type")).color; },
      "target-arrow-color": function (e) { return typeStyle(e.data("type")).color; },
      "width": function (e) { return typeStyle(e.data("type")).width; },
      "curve-style": big ? "haystack" : "bezier", "target-arrow-shape": big ? "none" : "triangle",
      "arrow-scale": 0.6, "opacity": 0.75 } },
    { selector: "node.centre", style: { "border-width": 5, "border-color": "#222" } },
    { selector: "node.found", style: { "border-width": 6, "border-color": "#FF2D95", "z-index": 99 } },
    { selector: ":selected", style: { "overlay-color": "#FF2D95", "overlay-opacity": 0.25, "overlay-padding": 4 } },
    { selector: "edge:selected", style: { "width": 4, "opacity": 1, "line-color": "#FF2D95" } },
    { selector: ".faded", style: { "opacity": 0.12 } },
    { selector: ".off-label, .off-type", style: { "display": "none" } }
  ];

  var elements = data.nodes.map(function (n) {
    return { group: "nodes", data: { id: n.id, label: n.label, name: n.name, degree: n.degree, size: n.size,
                                     short: n.short, show: n.show },
             position: { x: n.x, y: n.y }, classes: data.centres.indexOf(n.id) >= 0 ? "centre" : "" };
  }).concat(data.edges.map(function (e) {
    return { group: "edges", data: { id: e.id, source: e.source, target: e.target, type: e.type } };
  }));
  var edgeById = {};
  data.edges.forEach(function (e) { edgeById[e.id] = e; });

  var cy = cytoscape({
    container: document.getElementById("kg-graph"), elements: elements, style: sheet,
    layout: { name: "preset", fit: true, padding: 30 }, minZoom: 0.02, maxZoom: 4,
    textureOnViewport: big, hideEdgesOnViewport: big,
    boxSelectionEnabled: false, pixelRatio: 1
  });
  window.kgCy = cy;
  window.kgData = data;

  // Names keep their size on the screen: the font is set in the layout's units at every zoom,
  // and a node's name is drawn from the zoom kg computed for it (data "show"), so that no two
  // names overlap; more appear as the reader zooms in.
  var drawnAt = null;
  function fitNames() {
    var z = cy.zoom();
    if (z === drawnAt) return;
    drawnAt = z;
    cy.batch(function () {
      cy.style().selector("node").style({ "font-size": data.font / z, "text-outline-width": 2 / z,
                                          "text-margin-y": 2 / z }).update();
      cy.nodes().forEach(function (n) { n.toggleClass("named", n.data("show") <= z * 1.0001); });
    });
  }
  var pending = false;
  cy.on("zoom", function () {
    if (pending) return;
    pending = true;
    requestAnimationFrame(function () { pending = false; fitNames(); });
  });
  fitNames();

  // The legend and filters: one checkbox per label and per relation type drawn.
  function counts(items, key) {
    var c = {};
    items.forEach(function (x) { c[x[key]] = (c[x[key]] || 0) + 1; });
    return Object.keys(c).sort().map(function (k) { return [k, c[k]]; });
  }
  function filter(box, kind, cls, items, key, swatch) {
    counts(items, key).forEach(function (kc) {
      var input = el("input", { type: "checkbox", "data-kind": kind, value: kc[0] });
      input.checked = true;
      input.addEventListener("change", function () {
        cy.batch(function () {
          var sel = (kind === "label" ? cy.nodes() : cy.edges()).filter(function (x) { return x.data(key) === kc[0]; });
          if (input.checked) sel.removeClass(cls); else sel.addClass(cls);
        });
      });
      box.appendChild(el("label", {}, input, swatch(kc[0]), document.createTextNode(kc[0]),
                         el("span", { "class": "kg-count", text: fmt(kc[1]) })));
    });
  }
  filter(document.getElementById("kg-labels"), "label", "off-label", data.nodes, "label", function (l) {
    var s = labelStyle(l);
    return el("span", { "class": "kg-swatch", style: { background: s.color, borderColor: s.border } });
  });
  filter(document.getElementById("kg-types"), "type", "off-type", data.edges, "type", function (t) {
    var s = typeStyle(t);
    return el("span", { "class": "kg-line", style: { borderTopColor: s.color, borderTopWidth: Math.max(2, s.width) + "px" } });
  });

  // The side panel.
  var panel = document.getElementById("kg-panel");
  function paperItem(pid) {
    var p = data.papers[pid] || { title: pid };
    var title = p.url && /^https?:\/\//i.test(p.url)
      ? el("a", { href: p.url, target: "_blank", rel: "noopener noreferrer", text: p.title })
      : el("span", { text: p.title });
    return el("li", {}, title, p.year ? document.createTextNode(" (" + p.year + ")") : null);
  }
  function papersList(ids) {
    var ul = el("ul", { "class": "kg-papers" });
    ids.slice(0, PAPERS_SHOWN).forEach(function (pid) { ul.appendChild(paperItem(pid)); });
    var frag = el("div", {}, ul);
    if (ids.length > PAPERS_SHOWN) frag.appendChild(el("p", { "class": "kg-more", text: "and " + fmt(ids.length - PAPERS_SHOWN) + " more" }));
    return frag;
  }
  function badge(label) {
    var s = labelStyle(label);
    return el("span", { "class": "kg-kind", text: label, style: { background: s.color, color: s.text || "#fff" } });
  }
  function show(children) {
    panel.replaceChildren.apply(panel, children.filter(function (c) { return c != null; }));
  }
  // What a paper states, as kg show reads it: what it proposes, uses, addresses...; a name the
  // view draws is a link to it, one it leaves out is text.
  var VERBS = { PROPOSES: "Proposes", USES: "Uses", ADDRESSES: "Addresses", EVALUATED_ON: "Evaluated on",
                MEASURES: "Measures", COMPARED_WITH: "Compared with", OUTPERFORMS: "Outperforms",
                HAS_CODE: "Code", MENTIONS: "Mentions" };
  function entityItem(id) {
    var n = byId[id] || (data.entities || {})[id] || { name: id, label: "" };
    var name = byId[id]
      ? el("span", { "class": "kg-link", role: "link", tabindex: "0", "data-node": id, text: n.name })
      : el("span", { text: n.name });
    if (byId[id]) name.addEventListener("click", function () { focus(id); });
    return el("li", {}, name, n.label ? el("span", { "class": "kg-role", text: " " + n.label }) : null);
  }
  function stated(n) {
    if (!n.states || !n.states.length) return null;
    var dl = el("dl", { "class": "kg-states" });
    n.states.forEach(function (ts) {
      var ul = el("ul", {});
      ts[1].forEach(function (id) { ul.appendChild(entityItem(id)); });
      dl.append(el("dt", { text: VERBS[ts[0]] || ts[0] }), el("dd", {}, ul));
    });
    return dl;
  }
  // A word of a shell command as Python's shlex.quote writes it.
  function shq(s) { s = String(s); return /^[A-Za-z0-9_@%+=:,.\/-]+$/.test(s) ? s : "'" + s.replace(/'/g, "'\"'\"'") + "'"; }
  // The kg curate commands that correct what the panel shows, to copy into a terminal (with -g
  // and the graph folder); a decision is kept across rebuilds.
  function corrections(cmds) {
    var ul = el("ul", { "class": "kg-curate" });
    cmds.forEach(function (c) { ul.appendChild(el("li", {}, el("code", { text: c }))); });
    return el("details", {}, el("summary", { text: "Correct it (kg curate -g FOLDER ...)" }), ul);
  }
  var RECORD = { Paper: 1, Venue: 1, Author: 1 };
  function showNode(id) {
    var n = byId[id];
    var dl = el("dl", {}, el("dt", { text: "Id" }), el("dd", { text: n.id }));
    if (n.aliases && n.aliases.length) dl.append(el("dt", { text: "Aliases" }), el("dd", { text: n.aliases.join(", ") }));
    if (n.confidence != null) dl.append(el("dt", { text: "Confidence" }), el("dd", { text: String(n.confidence) }));
    dl.append(el("dt", { text: "Neighbours in the graph" }), el("dd", { text: fmt(n.degree) }));
    var states = stated(n);
    if (n.abstract) dl.append(el("dt", { text: "Abstract" }), el("dd", { text: n.abstract }));
    var fix = RECORD[n.label] ? null : corrections([
      "kg curate reject " + shq(n.id), "kg curate relabel " + shq(n.id) + " LABEL",
      "kg curate rename " + shq(n.id) + " " + shq("NEW NAME"), "kg curate merge " + shq(n.id) + " OTHER_ID"]);
    show([badge(n.label), el("h2", { text: n.name }), states ? el("h3", { text: "What the paper states" }) : null,
          states, dl, fix,
          el("h3", { text: (n.label === "Paper" ? "Paper" : "Papers") + " (" + fmt(n.papers.length) + ")" }),
          papersList(n.papers)]);
  }
  function showEdge(id) {
    var e = edgeById[id], s = byId[e.source], t = byId[e.target];
    var dl = el("dl", {}, el("dt", { text: "From" }), el("dd", { text: s.name + " (" + s.label + ")" }),
                el("dt", { text: "To" }), el("dd", { text: t.name + " (" + t.label + ")" }));
    if (e.confidence != null) dl.append(el("dt", { text: "Confidence" }), el("dd", { text: String(e.confidence) }));
    var fix = e.paper ? corrections(["kg curate reject " + shq(e.source) + " --type " + shq(e.type) + " --target " +
                                     shq(e.target) + " --paper " + shq(e.paper)]) : null;
    show([el("span", { "class": "kg-kind", text: "relation", style: { background: typeStyle(e.type).color } }),
          el("h2", { text: e.type }), dl, fix,
          e.evidence ? el("h3", { text: "Evidence" }) : null,
          e.evidence ? el("blockquote", { "class": "kg-evidence", text: e.evidence }) : null,
          e.paper ? el("h3", { text: "Paper" }) : null,
          e.paper ? papersList(["paper:" + e.paper]) : null]);
  }
  cy.on("tap", "node", function (ev) { showNode(ev.target.id()); });
  cy.on("tap", "edge", function (ev) { showEdge(ev.target.id()); });
  cy.on("tap", function (ev) {
    if (ev.target === cy) { cy.elements().removeClass("faded found"); }
  });

  // Search by name or alias: exact first, then a prefix, then any part; the best connected wins.
  var names = document.getElementById("kg-names");
  data.nodes.slice().sort(function (a, b) { return b.degree - a.degree || (a.name < b.name ? -1 : 1); })
    .slice(0, 5000).forEach(function (n) { names.appendChild(el("option", { value: n.name })); });
  // as kg show reads a name (search_key in kg/sinks/html/page.py): dashes, underscores,
  // slashes and spacing are one space
  function norm(s) { return String(s).toLowerCase().replace(/[-_\/\\\s]+/g, " ").trim(); }
  function keys(n) { return [n.name].concat(n.aliases || []).map(norm); }
  function find(q) {
    q = norm(q);
    if (!q) return null;
    var tests = [function (k) { return k === q; }, function (k) { return k.indexOf(q) === 0; },
                 function (k) { return k.indexOf(q) >= 0; }];
    for (var i = 0; i < tests.length; i++) {
      var hits = data.nodes.filter(function (n) { return keys(n).some(tests[i]); });
      if (hits.length) return hits.sort(function (a, b) { return b.degree - a.degree || (a.id < b.id ? -1 : 1); })[0];
    }
    return null;
  }
  var status = document.getElementById("kg-search-status");
  var absent = new Set(data.absent || []);
  document.getElementById("kg-search").addEventListener("submit", function (ev) {
    ev.preventDefault();
    var text = document.getElementById("kg-query").value.trim();
    var n = find(text);
    if (!n) {  // a name the graph holds but this page leaves out, or one the graph does not hold
      status.textContent = absent.has(norm(text))
        ? "in the graph, not drawn here: kg export --format html --around \"" + text + "\""
        : "no entity, paper or author of the graph is named \"" + text + "\"";
      return;
    }
    status.textContent = "";
    focus(n.id);
  });
  function focus(id) {
    var node = cy.getElementById(id);
    cy.batch(function () {
      cy.elements().removeClass("found").addClass("faded");
      node.closedNeighborhood().removeClass("faded");
      node.addClass("found");
      cy.elements().unselect();
      node.select();
    });
    cy.animate({ center: { eles: node }, zoom: Math.max(cy.zoom(), 1.2) }, { duration: 300 });
    showNode(id);
  }

  // When the first frame is drawn: what tests and measurements wait for.
  cy.one("render", function () {
    window.kgReady = { ms: Math.round(performance.now()), nodes: cy.nodes().length, edges: cy.edges().length };
    document.documentElement.setAttribute("data-ready", "true");
  });
  cy.forceRender();
})();
