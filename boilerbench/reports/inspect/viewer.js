// Sortable tables (click a header; numbers by data-value), the disagreement filter, and previous /
// next links that follow the index's current order (kept in sessionStorage per site). No libraries.
(function () {
  // the site's folder: where index.html is, from the index or from a page under pages/
  const site = location.pathname.replace(/(index\.html|pages\/[^/]*)$/, "");
  const orderKey = "boilerbench-viewer-order:" + site;
  function remember(table) {
    const files = Array.from(table.tBodies[0].rows).map((row) => row.dataset.file).filter(Boolean);
    try {
      if (files.length) sessionStorage.setItem(orderKey, JSON.stringify(files));
    } catch (e) { /* storage off: the links keep the order the index opens with */ }
  }
  function sortBy(table, col, ascending) {
    const body = table.tBodies[0];
    const numeric = table.tHead.rows[0].cells[col].dataset.sort === "num";
    const key = (row) => {
      const cell = row.cells[col];
      return numeric ? parseFloat(cell.dataset.value) : cell.textContent;
    };
    const rows = Array.from(body.rows);
    rows.sort((a, b) => {
      const x = key(a), y = key(b);
      const order = numeric ? x - y : String(x).localeCompare(String(y), undefined, { numeric: true });
      return ascending ? order : -order;
    });
    rows.forEach((row) => body.appendChild(row));
    remember(table);
    Array.from(table.tHead.rows[0].cells).forEach((th, i) => {
      th.classList.toggle("asc", i === col && ascending);
      th.classList.toggle("desc", i === col && !ascending);
    });
  }
  document.querySelectorAll("table.sortable").forEach((table) => {
    Array.from(table.tHead.rows[0].cells).forEach((th, col) => {
      th.addEventListener("click", () => sortBy(table, col, !th.classList.contains("asc")));
    });
    if (table.dataset.defaultSort) sortBy(table, parseInt(table.dataset.defaultSort, 10), true);
  });
  const nav = document.querySelector("nav[data-file]");
  if (nav) {
    let order = null;
    try {
      order = JSON.parse(sessionStorage.getItem(orderKey) || "null");
    } catch (e) { order = null; }
    const at = Array.isArray(order) ? order.indexOf(nav.dataset.file) : -1;
    if (at >= 0) {
      [["previous", order[at - 1]], ["next", order[at + 1]]].forEach(([id, file]) => {
        const link = document.getElementById(id);
        if (file) link.setAttribute("href", "../" + file);
        else link.removeAttribute("href");
        link.classList.toggle("hide", !file);
      });
    }
  }
  const only = document.getElementById("only-disagree");
  if (only) {
    only.addEventListener("change", () => {
      document.querySelectorAll("#blocks .blk").forEach((blk) => {
        blk.classList.toggle("hide", only.checked && !blk.classList.contains("disagree"));
      });
      // folded runs hold only blocks both runs dropped rightly: no disagreement there
      document.querySelectorAll("#blocks details.fold").forEach((fold) => fold.classList.toggle("hide", only.checked));
    });
  }
})();
