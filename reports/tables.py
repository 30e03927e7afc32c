"""The paper tables: measured figures with the published ones in adjacent columns, rendered
as markdown and LaTeX."""

from __future__ import annotations

import math
from dataclasses import dataclass, field

import pandas as pd

from reports.published import SOURCES, published

#: Measured columns: (run column, header).
MEASURED = (
    ("block.accuracy", "acc"),
    ("block.precision", "P"),
    ("block.recall", "R"),
    ("block.f1", "F1"),
    ("cleaneval.mean", "CleanEval"),
    ("token.f1", "token F1"),
    ("rouge_lsum.f1", "ROUGE-LSum F1"),
    ("ms_per_page", "ms/page"),
    ("n_errors", "errors"),
)
#: Metrics that have published counterparts, each shown as "<header> (pub.)".
PUBLISHED_METRICS = ("block.accuracy", "block.precision", "block.recall", "block.f1", "cleaneval.mean", "rouge_lsum.f1")


@dataclass
class Table:
    """A rendered-ready table: display strings, a title and a footnote."""

    name: str
    title: str
    frame: pd.DataFrame
    note: str
    #: The unformatted values, one dict per row, for the CSV (the display strings when empty).
    raw: list[dict] = field(default_factory=list)

    def csv(self) -> str:
        """The table as CSV: the raw numbers where the builder gives them, else the cells."""
        return (pd.DataFrame(self.raw) if self.raw else self.frame).to_csv(index=False)

    def markdown(self) -> str:
        header = "| " + " | ".join(self.frame.columns) + " |"
        rule = "|" + "|".join("---" for _ in self.frame.columns) + "|"
        body = ["| " + " | ".join(str(v) for v in row) + " |" for row in self.frame.itertuples(index=False)]
        return "\n".join([f"### {self.title}", "", header, rule, *body, "", self.note, ""])

    def latex(self) -> str:
        spec = "l" * 3 + "r" * (len(self.frame.columns) - 3)
        lines = [
            "\\begin{table}",
            "\\centering",
            f"\\caption{{{_tex(self.title)}}}",
            f"\\label{{tab:{self.name}}}",
            "\\small",
            f"\\begin{{tabular}}{{{spec}}}",
            "\\toprule",
            " & ".join(_tex(c) for c in self.frame.columns) + " \\\\",
            "\\midrule",
            *(" & ".join(_tex(str(v)) for v in row) + " \\\\" for row in self.frame.itertuples(index=False)),
            "\\bottomrule",
            "\\end{tabular}",
            "",
            f"\\footnotesize {_tex(self.note)}",
            "\\end{table}",
            "",
        ]
        return "\n".join(lines)


def _tex(text: str) -> str:
    for char, escaped in (
        ("\\", "\\textbackslash{}"),
        ("_", "\\_"),
        ("%", "\\%"),
        ("&", "\\&"),
        ("#", "\\#"),
        ("->", "$\\rightarrow$"),
        ("+-", "$\\pm$"),
    ):
        text = text.replace(char, escaped)
    return text


def fmt(value, digits: int = 3) -> str:
    """A number for a table cell; missing values as an en dash."""
    if value is None or (isinstance(value, float) and math.isnan(value)):
        return "–"
    return f"{value:.{digits}f}"


def digits_of(column: str) -> int:
    """Decimals shown: counts with none, scores in per cent and milliseconds with 2, fractions with 3."""
    if column == "n_errors":
        return 0
    return 2 if column in ("cleaneval.mean", "ms_per_page") else 3


def measured_cells(row: pd.Series) -> dict[str, str]:
    cells = {}
    for column, header in MEASURED:
        value = row.get(column)
        cells[header] = fmt(value, digits_of(column))
        if column == "block.f1" and not pd.isna(row.get("cv.f1_std", float("nan"))):
            cells[header] += f" +- {row['cv.f1_std']:.3f}"
    return cells


def published_cells(extractor: str, dataset: str) -> dict[str, str]:
    headers = dict(MEASURED)
    return {f"{headers[m]} (pub.)": fmt(published(extractor, dataset, m), digits_of(m)) for m in PUBLISHED_METRICS}


def results_table(name: str, title: str, runs: pd.DataFrame, identity: dict[str, str], with_published: bool) -> Table:
    """One row per run: ``identity`` maps headers to run columns (extractor, split, ...); runs
    sorted by the identity's first columns, then by F1, best first. Columns with no value in
    any row (ROUGE without ``rouge=true``, published figures nobody reports) are left out."""
    rows = []
    for _, run in runs.iterrows():
        row = {header: str(run[column]) for header, column in identity.items()}
        row.update(measured_cells(run))
        if with_published:
            row.update(published_cells(run["extractor"], run["dataset"]))
        row["_f1"] = run.get("block.f1", float("nan"))
        rows.append(row)
    frame = pd.DataFrame(rows)
    if len(frame):
        groups = [h for h in identity if h != "extractor"]
        frame = frame.sort_values([*groups, "_f1"], ascending=[True] * len(groups) + [False])
        frame = frame.drop(columns="_f1")
        frame = frame.drop(columns=[c for c in frame.columns if (frame[c] == "–").all()])
    note = (
        "Measured: micro block metrics over the test pages, CleanEval score (mean over pages), "
        "extraction ms per page; errors: pages whose extraction failed (scored as empty extractions). "
        + (f"Columns marked (pub.) are published figures. {SOURCES}" if with_published else "")
    )
    return Table(name, title, frame.reset_index(drop=True), note.strip())
