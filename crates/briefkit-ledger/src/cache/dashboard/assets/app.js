// briefkit: the proxy dashboard's one script. It asks the proxy for the page's view every
// few seconds and repaints the figures, charts and tables in place.
//
// Everything it receives is data, never markup: text goes in with textContent, and chart
// shapes are built with createElementNS from a fixed list of tags and numeric attributes.
// Nothing here parses HTML or asks anything but the proxy that served the page.
"use strict";
(function () {
  var SVG = "http://www.w3.org/2000/svg";
  var TAGS = { rect: 1, line: 1, polyline: 1, path: 1, circle: 1, text: 1 };
  var ATTRS = { x: 1, y: 1, width: 1, height: 1, x1: 1, y1: 1, x2: 1, y2: 1, cx: 1, cy: 1,
    r: 1, d: 1, points: 1, "text-anchor": 1 };
  var body = document.body;
  var source = body.getAttribute("data-source");
  var every = Number(body.getAttribute("data-every")) || 2000;
  var main = document.getElementById("main");
  var status = document.getElementById("status");

  function make(tag, cls, text) {
    var node = document.createElement(tag);
    if (cls) node.className = cls;
    if (text !== undefined) node.textContent = text;
    return node;
  }

  function setText(id, value) {
    var node = document.getElementById(id);
    if (node && node.textContent !== value) node.textContent = value;
  }

  function paintCard(card) {
    if (!document.getElementById("card-" + card.id)) {
      var box = make("div", "card");
      box.id = "card-" + card.id;
      box.appendChild(make("div", "label", card.label));
      var value = box.appendChild(make("div", "value"));
      value.id = "card-" + card.id + "-value";
      var note = box.appendChild(make("div", "note"));
      note.id = "card-" + card.id + "-note";
      document.getElementById("cards").appendChild(box);
    }
    setText("card-" + card.id + "-value", card.value);
    setText("card-" + card.id + "-note", card.note);
  }

  function shapeOf(shape) {
    if (!TAGS.hasOwnProperty(shape.tag)) return null;
    var node = document.createElementNS(SVG, shape.tag);
    node.setAttribute("class", String(shape["class"]));
    Object.keys(shape.attrs).forEach(function (name) {
      if (ATTRS.hasOwnProperty(name)) node.setAttribute(name, String(shape.attrs[name]));
    });
    if (shape.title) {
      var title = document.createElementNS(SVG, "title");
      title.textContent = shape.title;
      node.appendChild(title);
    }
    if (shape.text) node.appendChild(document.createTextNode(shape.text));
    return node;
  }

  function paintChart(chart) {
    var svg = document.getElementById("svg-" + chart.id);
    if (!svg) return;
    var shapes = document.createDocumentFragment();
    chart.shapes.forEach(function (shape) {
      var node = shapeOf(shape);
      if (node) shapes.appendChild(node);
    });
    svg.replaceChildren(shapes);
    var empty = document.getElementById("empty-" + chart.id);
    if (empty) empty.hidden = chart.shapes.length > 0;
  }

  function tableFor(table) {
    var found = document.getElementById("t-" + table.id);
    if (found) return found;
    var section = make("section", "table");
    section.id = "table-" + table.id;
    section.appendChild(make("h2", "", table.title));
    var scroll = section.appendChild(make("div", "scroll"));
    var node = scroll.appendChild(make("table"));
    node.id = "t-" + table.id;
    var row = node.appendChild(make("thead")).appendChild(make("tr"));
    table.columns.forEach(function (column) {
      row.appendChild(make("th", kind(column.kind), column.label));
    });
    node.appendChild(make("tbody"));
    var note = section.appendChild(make("p", "note"));
    note.id = "note-" + table.id;
    main.appendChild(section);
    return node;
  }

  function kind(name) {
    return name === "number" ? "num" : name === "code" ? "code" : "text";
  }

  function paintTable(table) {
    var node = tableFor(table);
    var rows = document.createDocumentFragment();
    if (table.rows.length === 0) {
      var empty = make("tr", "empty");
      var cell = empty.appendChild(make("td", "", table.empty));
      cell.colSpan = Math.max(table.columns.length, 1);
      rows.appendChild(empty);
    }
    table.rows.forEach(function (cells) {
      var row = make("tr");
      cells.forEach(function (text, i) {
        var column = table.columns[i] || { kind: "text" };
        row.appendChild(make("td", kind(column.kind), text));
      });
      rows.appendChild(row);
    });
    node.tBodies[0].replaceChildren(rows);
    setText("note-" + table.id, table.note);
  }

  function paint(view) {
    setText("title", view.title);
    setText("subtitle", view.subtitle);
    setText("summary", view.summary);
    view.cards.forEach(paintCard);
    view.charts.forEach(paintChart);
    view.tables.forEach(paintTable);
  }

  function say(text, state) {
    if (!status) return;
    status.textContent = text;
    status.className = "status " + state;
  }

  function poll() {
    fetch(source, { cache: "no-store", credentials: "same-origin" })
      .then(function (answer) {
        if (!answer.ok) throw new Error("the proxy answered " + answer.status);
        return answer.json();
      })
      .then(function (view) {
        paint(view);
        body.setAttribute("data-painted", String(Date.now()));
        say("live: updated " + new Date().toLocaleTimeString(), "live");
      })
      .catch(function (error) {
        say("not updating: " + error.message, "stale");
      })
      .then(function () {
        setTimeout(poll, every);
      });
  }

  if (source) poll();
})();
