// Sortable tables (click a header; numbers by data-value), the disagreement filter, and previous /
// next links that follow the index's current order. The order travels in the page's query
// (?order=3.0.7: page numbers), set on the index's link as it is followed and passed on by the
// previous / next links: no storage, whose writes a browser may commit after the next page has
// read it. No libraries.
(function () {
  const pageNumber = (file) => {
    const found = /page-(\d+)\.html$/.exec(file || "");
    return found ? parseInt(found[1], 10) : -1;
  };
  const pageFile = (n) => "pages/page-" + String(n).padStart(5, "0") + ".html";
  function orderQuery(table) {
    const numbers = Array.from(table.tBodies[0].rows).map((row) => pageNumber(row.dataset.file));
    return numbers.every((n) => n >= 0) ? "?order=" + numbers.join(".") : "";
  }
  function carryOrder(event) {
    // a link in a row of the index (rows that name their page's file), as it is followed
    const row = event.target.closest && event.target.closest("table.sortable tbody tr[data-file]");
    const link = row && event.target.closest("a[href]");
    if (!link) return;
    const href = link.getAttribute("href");
    const hash = href.includes("#") ? href.slice(href.indexOf("#")) : "";
    link.setAttribute("href", href.split(/[?#]/)[0] + orderQuery(row.closest("table")) + hash);
  }
  ["click", "auxclick", "contextmenu"].forEach((type) => document.addEventListener(type, carryOrder, true));
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
  const given = /[?&]order=([\d.]+)/.exec(location.search);
  if (nav && given) {
    const order = given[1].split(".").map((n) => parseInt(n, 10));
    const at = order.indexOf(pageNumber(nav.dataset.file));
    if (at >= 0) {
      [["previous", order[at - 1]], ["next", order[at + 1]]].forEach(([id, n]) => {
        const link = document.getElementById(id);
        if (n !== undefined) link.setAttribute("href", "../" + pageFile(n) + "?order=" + given[1]);
        else link.removeAttribute("href");
        link.classList.toggle("hide", n === undefined);
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
