/* The page of kg map (and kg export --format html without --around): a map of the field drawn
   with Cytoscape.js. Names keep their size on the screen at every zoom; each entity's name is
   drawn from the zoom kg computed for it (data "show"), so that no two names overlap. Every
   string from the data reaches the page through textContent or a text attribute, never as
   markup; links are made only for http(s) URLs. */
(function () {
  "use strict";
  var data = JSON.parse(document.getElementById("kg-data").textContent);
  var byId = {}, areaById = {};
  data.nodes.forEach(function (n) { byId[n.id] = n; });
  data.areas.forEach(function (a) { areaById[a.id] = a; });
  var fmt = function (n) { return n.toLocaleString("en-US"); };
  var pct = function (x) { return (100 * x).toFixed(2) + "%"; };
  var NEW = "#D6006E", GROWN = "#1A1A1A";

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
  function status(n) { return n.change ? n.change.status : ""; }

  document.getElementById("kg-title").textContent = data.title;
  document.getElementById("kg-size").textContent =
    fmt(data.total.papers) + " papers naming " + fmt(data.total.entities) + " entities";
  document.getElementById("kg-note").textContent = data.note;

  var sheet = [
    { selector: "node.area", style: {
      "shape": "ellipse", "background-color": "data(colour)", "background-opacity": 0.09,
      "border-width": 1, "border-color": "data(colour)", "border-opacity": 0.35,
      "width": "data(d)", "height": "data(d)", "label": "data(lines)", "text-wrap": "wrap",
      "text-valign": "top", "text-halign": "center", "font-weight": 700, "color": "data(ink)",
      "text-outline-color": "#fff", "text-outline-opacity": 0.9, "z-index": 0, "events": "yes" } },
    { selector: "node.entity", style: {
      "shape": function (e) { return data.shapes[e.data("label")] || "ellipse"; },
      "background-color": "data(colour)", "border-color": "#fff", "border-width": 1,
      "width": "data(size)", "height": "data(size)", "label": "", "color": "#1b1b1b",
      "text-valign": "bottom", "text-halign": "center", "text-outline-color": "#fff",
      "text-outline-opacity": 1, "z-index": 10 } },
    { selector: "node.entity.named", style: { "label": "data(name)", "z-index": 20 } },
    { selector: "node.entity.new", style: { "border-color": NEW } },
    { selector: "node.entity.grown", style: { "border-color": GROWN } },
    { selector: "node.entity.same", style: { "opacity": 0.45 } },
    { selector: "edge", style: {
      "curve-style": "haystack", "line-color": "#8a8f98", "opacity": 0.3,
      "width": function (e) { return Math.min(8, 0.6 + Math.log2(1 + e.data("weight"))); }, "z-index": 5 } },
    { selector: "edge.across", style: { "opacity": 0.1 } },
    { selector: "node.found", style: { "border-color": "#FF2D95", "z-index": 99 } },
    { selector: "edge.lit", style: { "opacity": 0.85, "line-color": "#FF2D95" } },
    { selector: ".faded", style: { "opacity": 0.1 } },
    { selector: "node.area.faded", style: { "background-opacity": 0.03 } },
    { selector: ".off-label", style: { "display": "none" } }
  ];

  var elements = data.areas.map(function (a) {
    return { group: "nodes", data: { id: "area:" + a.id, area: a.id, lines: a.lines, colour: a.colour, ink: a.ink, d: 2 * a.r },
             position: { x: a.x, y: a.y }, classes: "area", selectable: false, grabbable: false };
  }).concat(data.nodes.map(function (n) {
    var cls = "entity" + (status(n) ? " " + status(n) : (data.compared ? " same" : ""));
    return { group: "nodes", data: { id: n.id, label: n.label, name: n.name, size: n.size, show: n.show,
                                     colour: areaById[n.area].colour, area: n.area },
             position: { x: n.x, y: n.y }, classes: cls, grabbable: false };
  })).concat(data.edges.map(function (e) {
    return { group: "edges", data: { id: e.id, source: e.source, target: e.target, weight: e.weight },
             classes: byId[e.source].area === byId[e.target].area ? "" : "across" };
  }));
  var edgeById = {};
  data.edges.forEach(function (e) { edgeById[e.id] = e; });

  var cy = cytoscape({
    container: document.getElementById("kg-graph"), elements: elements, style: sheet,
    layout: { name: "preset", fit: true, padding: 40 }, minZoom: 0.05, maxZoom: 12,
    boxSelectionEnabled: false, pixelRatio: 1, autoungrabify: true
  });
  window.kgCy = cy;
  window.kgData = data;

  // Names keep their size on the screen: fonts are set in the map's units at every zoom, and
  // an entity's name is drawn from its zoom on.
  var drawnAt = null;
  function fitNames() {
    var z = cy.zoom();
    if (z === drawnAt) return;
    drawnAt = z;
    cy.batch(function () {
      cy.style().selector("node.entity").style({ "font-size": data.font / z, "text-outline-width": 2.2 / z,
                                                 "text-margin-y": 1 / z, "border-width": 1 / z })
        .selector("node.entity.new, node.entity.grown").style({ "border-width": 4 / z })
        .selector("node.found").style({ "border-width": 5 / z })
        .selector("node.area").style({ "font-size": data.areaFont / z, "text-outline-width": 3 / z,
                                       "text-margin-y": -3 / z }).update();
      cy.nodes(".entity").forEach(function (n) { n.toggleClass("named", n.data("show") <= z * 1.0001); });
    });
  }
  var pending = false;
  cy.on("zoom", function () {
    if (pending) return;
    pending = true;
    requestAnimationFrame(function () { pending = false; fitNames(); });
  });
  fitNames();

  // The legend: areas (click to zoom to one), kinds (a filter), and what a comparison marks.
  var areasBox = document.getElementById("kg-areas");
  data.areas.forEach(function (a) {
    var row = el("label", { "class": "kg-area", "data-area": String(a.id) },
                 el("span", { "class": "kg-swatch", style: { background: a.colour, borderColor: a.ink } }),
                 el("span", { "class": "kg-name", text: a.name }),
                 el("span", { "class": "kg-count", text: fmt(a.papers) }));
    row.addEventListener("click", function () { focusArea(a.id); });
    areasBox.appendChild(row);
  });
  var labels = {};
  data.nodes.forEach(function (n) { labels[n.label] = (labels[n.label] || 0) + 1; });
  var kinds = document.getElementById("kg-labels");
  Object.keys(labels).sort().forEach(function (l) {
    var input = el("input", { type: "checkbox", "data-kind": "label", value: l });
    input.checked = true;
    input.addEventListener("change", function () {
      cy.batch(function () {
        var sel = cy.nodes(".entity").filter(function (x) { return x.data("label") === l; });
        if (input.checked) sel.removeClass("off-label"); else sel.addClass("off-label");
      });
    });
    kinds.appendChild(el("label", {}, input, el("span", { "class": "kg-shape " + (data.shapes[l] || "ellipse") }),
                         document.createTextNode(l), el("span", { "class": "kg-count", text: fmt(labels[l]) })));
  });
  if (data.compared) {
    var box = document.getElementById("kg-changes");
    box.hidden = false;
    document.getElementById("kg-old").textContent = data.compared;
    [["new", NEW, "new: named by no paper before"], ["grown", GROWN, "grown: twice the share of papers or more"]].forEach(function (s) {
      var c = data.nodes.filter(function (n) { return status(n) === s[0]; }).length;
      box.appendChild(el("label", { "class": "kg-" + s[0] }, el("span", { "class": "kg-ring", style: { borderColor: s[1] } }),
                         document.createTextNode(s[2]), el("span", { "class": "kg-count", text: fmt(c) })));
    });
  }

  // The side panel.
  var panel = document.getElementById("kg-panel");
  function show(children) {
    panel.replaceChildren.apply(panel, children.filter(function (c) { return c != null; }));
  }
  function paperTitle(pid) {
    var p = data.papers[pid] || { title: pid };
    var t = p.url && /^https?:\/\//i.test(p.url)
      ? el("a", { href: p.url, target: "_blank", rel: "noopener noreferrer", text: p.title })
      : el("span", { text: p.title });
    return [t, p.year ? document.createTextNode(" (" + p.year + ")") : null];
  }
  function roleLine(role, via, name) {
    return el("div", { "class": "kg-role", text: (via ? "its proposal " + via + " " : "the paper ") + role + " " + name });
  }
  function evidence(i) {
    return i == null ? null : el("blockquote", { "class": "kg-evidence", text: data.texts[i] });
  }
  function jump(id, text) {
    var a = el("span", { "class": "kg-link", text: text, role: "link", tabindex: "0" });
    a.addEventListener("click", function () { select(id); });
    return a;
  }
  function badge(text, colour) {
    return el("span", { "class": "kg-kind", text: text, style: { background: colour, color: "#fff" } });
  }
  function showNode(id) {
    var n = byId[id], a = areaById[n.area];
    var dl = el("dl", {}, el("dt", { text: "Area" }), el("dd", {}, jump("area:" + a.id, a.name)),
                el("dt", { text: "Papers" }),
                el("dd", { text: fmt(n.papers) + " of " + fmt(data.total.papers) + " (" + fmt(n.stated) + " stating a role)" }));
    if (n.aliases && n.aliases.length) dl.append(el("dt", { text: "Aliases" }), el("dd", { text: n.aliases.join(", ") }));
    if (n.change) {
      var c = n.change, word = c.status === "new" ? "new" : c.status === "grown" ? "grown" : "";
      dl.append(el("dt", { text: "Compared with " + data.compared }),
                el("dd", { "class": word ? "kg-change" : "", text: (word ? word + ": " : "") + fmt(c.old) + " papers (" +
                           pct(c.oldShare) + ") then, " + fmt(n.papers) + " (" + pct(c.newShare) + ") now" }));
    }
    var near = el("ul", {});
    n.near.forEach(function (x) {
      var m = byId[x[0]];
      near.appendChild(el("li", {}, jump(x[0], m ? m.name : x[0]), document.createTextNode(" (" + x[1] + ")")));
    });
    var list = el("ul", { "class": "kg-papers" });
    n.links.forEach(function (r) {
      list.appendChild(el("li", {}, ...paperTitle(r[0]).filter(Boolean), roleLine(r[1], r[2], n.name), evidence(r[3])));
    });
    show([badge(n.label, a.colour), el("h2", { text: n.name }), dl,
          n.near.length ? el("h3", { text: "Linked most with (weight)" }) : null, n.near.length ? near : null,
          el("h3", { text: "Papers (" + fmt(n.papers) + ")" }), list,
          n.papers > n.links.length ? el("p", { "class": "kg-more", text: "and " + fmt(n.papers - n.links.length) + " more" }) : null]);
  }
  function showEdge(id) {
    var e = edgeById[id], s = byId[e.source], t = byId[e.target];
    var list = el("ul", { "class": "kg-papers" });
    e.list.forEach(function (r) {
      list.appendChild(el("li", {}, ...paperTitle(r[0]).filter(Boolean), roleLine(r[1], r[2], s.name), evidence(r[3]),
                          roleLine(r[4], r[5], t.name), evidence(r[6])));
    });
    show([badge("link", "#8a8f98"), el("h2", {}, jump(s.id, s.name), document.createTextNode(" — "), jump(t.id, t.name)),
          el("p", { text: fmt(e.papers) + " papers name both (weight " + e.weight + ": a paper stating a role for both counts 1, one mentioning either ½)" }),
          el("h3", { text: "Papers" }), list,
          e.papers > e.list.length ? el("p", { "class": "kg-more", text: "and " + fmt(e.papers - e.list.length) + " more" }) : null]);
  }
  function showArea(i) {
    var a = areaById[i], ul = el("ul", {});
    a.members.forEach(function (id) {
      ul.appendChild(el("li", {}, jump(id, byId[id].name), document.createTextNode(" (" + fmt(byId[id].papers) + " papers)")));
    });
    show([badge("area", a.colour), el("h2", { text: a.name }),
          el("p", { text: fmt(a.papers) + " papers name at least one of its " + fmt(a.members.length) + " entities, listed by how central they are" }),
          ul]);
  }
  function highlight(eles) {
    cy.batch(function () {
      cy.elements().removeClass("found lit").addClass("faded");
      eles.removeClass("faded");
      cy.nodes(".area").removeClass("faded");
    });
  }
  function select(id) {
    if (id.indexOf("area:") === 0) { focusArea(+id.slice(5)); return; }
    var node = cy.getElementById(id);
    highlight(node.closedNeighborhood());
    node.addClass("found");
    node.connectedEdges().addClass("lit");
    cy.animate({ center: { eles: node }, zoom: Math.max(cy.zoom(), Math.min(node.data("show") * 1.05 + 0.01, 4)) },
               { duration: 250 });
    showNode(id);
  }
  function focusArea(i) {
    var members = cy.nodes(".entity").filter(function (n) { return n.data("area") === i; });
    highlight(members.union(members.edgesWith(members)));
    cy.animate({ fit: { eles: cy.getElementById("area:" + i), padding: 30 } }, { duration: 250 });
    showArea(i);
  }
  cy.on("tap", "node.entity", function (ev) { select(ev.target.id()); });
  cy.on("tap", "node.area", function (ev) { focusArea(ev.target.data("area")); });
  cy.on("tap", "edge", function (ev) {
    highlight(ev.target.union(ev.target.connectedNodes()));
    ev.target.addClass("lit");
    showEdge(ev.target.id());
  });
  cy.on("tap", function (ev) { if (ev.target === cy) cy.elements().removeClass("faded found lit"); });

  // Search: an entity on the map (name or alias: exact, then prefix, then any part; the most
  // named wins); a name of the graph that the map does not draw says so, and how to see it.
  var names = document.getElementById("kg-names");
  data.nodes.slice().sort(function (a, b) { return b.papers - a.papers || (a.name < b.name ? -1 : 1); })
    .forEach(function (n) { names.appendChild(el("option", { value: n.name })); });
  // as kg show reads a name (search_key in kg/sinks/html/page.py): dashes, underscores,
  // slashes and spacing are one space
  function norm(s) { return String(s).toLowerCase().replace(/[-_\/\\\s]+/g, " ").trim(); }
  function keys(n) { return [n.name].concat(n.aliases || []).map(norm); }
  function find(q) {
    var tests = [function (k) { return k === q; }, function (k) { return k.indexOf(q) === 0; },
                 function (k) { return k.indexOf(q) >= 0; }];
    for (var i = 0; i < tests.length; i++) {
      var hits = data.nodes.filter(function (n) { return keys(n).some(tests[i]); });
      if (hits.length) return hits.sort(function (a, b) { return b.papers - a.papers || (a.id < b.id ? -1 : 1); })[0];
    }
    return null;
  }
  var absent = new Set(data.absent);
  var said = document.getElementById("kg-search-status");
  document.getElementById("kg-search").addEventListener("submit", function (ev) {
    ev.preventDefault();
    var text = document.getElementById("kg-query").value, q = norm(text);
    if (!q) return;
    var n = find(q);
    if (n) { said.textContent = ""; select(n.id); return; }
    said.textContent = absent.has(q)
      ? "in the graph, not drawn on this map: kg export --format html --around \"" + text.trim() + "\""
      : "no entity, paper or author of the graph is named \"" + text.trim() + "\"";
  });

  // When the first frame is drawn: what tests and measurements wait for.
  cy.one("render", function () {
    window.kgReady = { ms: Math.round(performance.now()), nodes: cy.nodes(".entity").length,
                       areas: cy.nodes(".area").length, edges: cy.edges().length };
    document.documentElement.setAttribute("data-ready", "true");
  });
  cy.forceRender();
})();
