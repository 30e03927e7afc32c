// The leaderboard: window.LEADERBOARD.rows (leaderboard-data.js, written from the results store
// when the site is built) as a table per dataset and group (all pages, a page type, a language),
// sorted by clicking a column header. Data is inserted as text, never as HTML.
(function () {
  "use strict";
  var data = (window.LEADERBOARD || { rows: [] }).rows;
  var COLUMNS = [
    { key: "extractor", label: "extractor", text: true },
    { key: "trained_on", label: "trained on", text: true },
    { key: "pages", label: "pages", digits: 0 },
    { key: "token", label: "token F1", digits: 3, interval: "token" },
    { key: "word", label: "word F1", digits: 3, interval: "word" },
    { key: "ms", label: "ms/page", digits: 2 },
    { key: "viewer", label: "pages viewer", link: true },
  ];
  var state = { dataset: null, group: "all pages", sortKey: "token", descending: true };

  function unique(values) {
    return values.filter(function (v, i) { return values.indexOf(v) === i; }).sort();
  }
  function select(id, label, options, value, onChange) {
    var wrap = document.createElement("label");
    wrap.textContent = label + " ";
    var sel = document.createElement("select");
    sel.id = id;
    options.forEach(function (o) {
      var opt = document.createElement("option");
      opt.value = o;
      opt.textContent = o;
      sel.appendChild(opt);
    });
    sel.value = value;
    sel.addEventListener("change", function () { onChange(sel.value); });
    wrap.appendChild(sel);
    return wrap;
  }
  function fixed(value, digits) {
    return value === null || value === undefined ? "–" : value.toFixed(digits);
  }
  function compare(a, b) {
    var x = a[state.sortKey], y = b[state.sortKey];
    if (x === null || x === undefined || x === "") return 1;  // missing values last, either way
    if (y === null || y === undefined || y === "") return -1;
    var order = x < y ? -1 : x > y ? 1 : 0;
    return state.descending ? -order : order;
  }
  function renderControls() {
    var controls = document.getElementById("lb-controls");
    controls.textContent = "";
    var datasets = unique(data.map(function (r) { return r.dataset; }));
    if (state.dataset === null || datasets.indexOf(state.dataset) < 0) state.dataset = datasets[0];
    var groups = unique(data.filter(function (r) { return r.dataset === state.dataset; })
      .map(function (r) { return r.group; }));
    if (groups.indexOf(state.group) < 0) state.group = "all pages";
    controls.appendChild(select("lb-dataset", "dataset", datasets, state.dataset, function (v) {
      state.dataset = v; render();
    }));
    controls.appendChild(document.createTextNode(" "));
    controls.appendChild(select("lb-group", "pages", groups, state.group, function (v) {
      state.group = v; render();
    }));
  }
  function renderHead() {
    var head = document.querySelector("#lb-table thead");
    head.textContent = "";
    var tr = document.createElement("tr");
    COLUMNS.forEach(function (c) {
      var th = document.createElement("th");
      th.textContent = c.label + (state.sortKey === c.key ? (state.descending ? " ▼" : " ▲") : "");
      th.dataset.key = c.key;
      th.style.cursor = "pointer";
      th.tabIndex = 0;
      th.setAttribute("aria-sort", state.sortKey === c.key ? (state.descending ? "descending" : "ascending") : "none");
      var sortBy = function () {
        state.descending = state.sortKey === c.key ? !state.descending : !c.text;
        state.sortKey = c.key;
        render();
        document.querySelector('#lb-table thead th[data-key="' + c.key + '"]').focus();
      };
      th.addEventListener("click", sortBy);
      th.addEventListener("keydown", function (e) { if (e.key === "Enter") sortBy(); });
      tr.appendChild(th);
    });
    head.appendChild(tr);
  }
  function renderBody() {
    var body = document.querySelector("#lb-table tbody");
    body.textContent = "";
    var rows = data.filter(function (r) { return r.dataset === state.dataset && r.group === state.group; });
    rows.sort(compare).forEach(function (r) {
      var tr = document.createElement("tr");
      COLUMNS.forEach(function (c) {
        var td = document.createElement("td");
        td.dataset.key = c.key;
        if (c.link) {
          if (r.viewer) {
            var a = document.createElement("a");
            a.href = r.viewer;
            a.textContent = "pages";
            td.appendChild(a);
          }
        } else if (c.text) {
          td.textContent = r[c.key] || "–";
        } else {
          td.textContent = fixed(r[c.key], c.digits);
          if (c.interval && r[c.interval + "_lo"] !== null) {
            var small = document.createElement("small");
            small.textContent = " [" + fixed(r[c.interval + "_lo"], c.digits) + ", " +
              fixed(r[c.interval + "_hi"], c.digits) + "]";
            td.appendChild(small);
          }
        }
        if (!c.text && !c.link) td.style.textAlign = "right";
        tr.appendChild(td);
      });
      body.appendChild(tr);
    });
    document.getElementById("lb-note").textContent = rows.length + " runs; " +
      (state.group === "all pages" ? "" : "ms/page is the whole run's; ") +
      "intervals: page-level bootstrap, 95 %.";
  }
  function render() {
    renderControls();
    renderHead();
    renderBody();
  }
  var hash = new URLSearchParams(window.location.hash.slice(1));
  if (hash.get("dataset")) state.dataset = hash.get("dataset");
  render();
})();
