// Sortable tables (click a header; numbers by data-value) and the disagreement filter. No libraries.
(function () {
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
  const only = document.getElementById("only-disagree");
  if (only) {
    only.addEventListener("change", () => {
      document.querySelectorAll("#blocks .blk").forEach((blk) => {
        blk.classList.toggle("hide", only.checked && !blk.classList.contains("disagree"));
      });
    });
  }
})();
