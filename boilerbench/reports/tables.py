"""The paper tables: measured figures with the published ones in adjacent columns, rendered
as markdown and LaTeX."""

from __future__ import annotations

import math
import re
from dataclasses import dataclass

import pandas as pd

from boilerbench.evaluation.aggregates import CI_SUFFIX
from boilerbench.experiments.results import RunFileError
from boilerbench.reports.collect import MissingRuns, run_pages
from boilerbench.reports.published import SOURCES, published
from boilerbench.reports.significance import ALPHA, BOUNDS, PERMUTATIONS, Mark, align, figure_key, has_columns, marks

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
    """A rendered-ready table: display strings, a title, a footnote and, for CSV, the numbers.

    Display cells use markdown's ``**bold**`` for the best cell of a column, ``†`` after a value
    not significantly worse than it and ``±`` before half the width of its 95 % interval; LaTeX
    renders them as ``\\textbf``, ``$^\\dagger$`` and ``$\\pm$``. ``numbers`` (when given) is what
    :meth:`csv` writes: values, interval bounds, marks and p-values as separate columns.
    """

    name: str
    title: str
    frame: pd.DataFrame
    note: str
    numbers: pd.DataFrame | None = None

    def markdown(self) -> str:
        header = "| " + " | ".join(self.frame.columns) + " |"
        rule = "|" + "|".join("---" for _ in self.frame.columns) + "|"
        body = ["| " + " | ".join(str(v) for v in row) + " |" for row in self.frame.itertuples(index=False)]
        return "\n".join([f"### {self.title}", "", header, rule, *body, "", self.note, ""])

    def rows(self) -> pd.DataFrame:
        """The table's numbers, or its display strings where it has none: what its CSV holds."""
        return self.numbers if self.numbers is not None else self.frame

    def csv(self) -> str:
        return self.rows().to_csv(index=False)

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
        ("±", "$\\pm$"),
        ("†", "$^\\dagger$"),
    ):
        text = text.replace(char, escaped)
    return _BOLD.sub(r"\\textbf{\1}", text)


_BOLD = re.compile(r"\*\*(.+?)\*\*")


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


def interval_of(row: pd.Series, column: str) -> tuple[float, float] | None:
    """The 95 % interval ``<column>_ci95`` of a run's figure, if its summary has one."""
    interval = row.get(column + CI_SUFFIX)
    if isinstance(interval, str) and interval.startswith("["):  # as read back from runs.csv
        interval = [float(x) for x in interval.strip("[]").split(",") if x.strip()]
    if isinstance(interval, list | tuple) and len(interval) == 2 and None not in interval:
        return float(interval[0]), float(interval[1])
    return None


def cell(value, digits: int, interval: tuple[float, float] | None = None, mark: Mark | None = None) -> str:
    """A measured cell: the value (bold when best, ``†`` when not significantly worse than the
    best) and ``±`` half the width of its 95 % interval."""
    text = fmt(value, digits)
    if text == "–":
        return text
    if mark is not None and mark.best:
        text = f"**{text}**"
    elif mark is not None and mark.tied:
        text += "†"
    if interval is not None:
        text += f" ±{(interval[1] - interval[0]) / 2:.{digits}f}"
    return text


def measured_cells(row: pd.Series, marked: dict[str, Mark] | None = None) -> dict[str, str]:
    cells = {}
    for column, header in MEASURED:
        mark = (marked or {}).get(column)
        cells[header] = cell(row.get(column), digits_of(column), interval_of(row, column), mark)
        if column == "block.f1" and not pd.isna(row.get("cv.f1_std", float("nan"))):
            cells[header] += f" (folds sd {row['cv.f1_std']:.3f})"
    return cells


def measured_numbers(row: pd.Series, marked: dict[str, Mark] | None = None) -> dict[str, object]:
    """The CSV columns of a run's measured figures: value, interval bounds and, where the runs
    were compared, the marks and the Holm-corrected p-value against the column's best."""
    numbers: dict[str, object] = {}
    for column, header in MEASURED:
        value = row.get(column)
        numbers[header] = float("nan") if value is None or pd.isna(value) else float(value)
        interval = interval_of(row, column)
        numbers[f"{header} ci95 lo"], numbers[f"{header} ci95 hi"] = interval or (float("nan"), float("nan"))
        mark = (marked or {}).get(column)
        if mark is not None:
            numbers[f"{header} best"] = mark.best
            numbers[f"{header} not worse"] = mark.tied
            numbers[f"{header} p (Holm)"] = mark.pvalue
    return numbers


def published_values(extractor: str, dataset: str) -> dict[str, float | None]:
    headers = dict(MEASURED)
    return {f"{headers[m]} (pub.)": published(extractor, dataset, m) for m in PUBLISHED_METRICS}


def published_cells(extractor: str, dataset: str) -> dict[str, str]:
    digits = {f"{h} (pub.)": digits_of(m) for m, h in MEASURED}
    return {h: fmt(v, digits[h]) for h, v in published_values(extractor, dataset).items()}


def comparable_groups(runs: pd.DataFrame) -> list[tuple[list, list[pd.DataFrame]]]:
    """The runs that can be compared page by page: same dataset and the same pages (from their
    ``pages.csv``, :func:`~boilerbench.reports.collect.run_pages`: the row's own run, from its
    folder or the archive), each group as (run index labels, aligned page rows). Runs whose page
    rows cannot be read, and the bounds (``oracle``, ``all_text``), are left out."""
    by_pages: dict[tuple, list] = {}
    frames = {}
    for index, run in runs.iterrows():
        path = run.get("run_dir")
        if not isinstance(path, str) or run.get("extractor") in BOUNDS:
            continue
        try:
            frame = run_pages(run)
        except (MissingRuns, RunFileError):
            continue
        frames[index] = frame
        by_pages.setdefault((run.get("dataset"), frozenset(frame["page_id"])), []).append(index)
    groups = []
    for indices in by_pages.values():
        if len(indices) > 1:
            groups.append((indices, align([frames[i] for i in indices], [str(i) for i in indices])))
    return groups


def significance_marks(runs: pd.DataFrame, columns: tuple[str, ...]) -> dict:
    """run index -> metric column -> :class:`Mark`, for every metric column that the runs of a
    comparable group can all recompute from their page rows."""
    marked: dict = {}
    for indices, frames in comparable_groups(runs):
        for column in columns:
            if not all(has_columns(f, figure_key(column)) for f in frames):
                continue
            for index, mark in zip(indices, marks(frames, column), strict=True):
                marked.setdefault(index, {})[column] = mark
    return marked


#: Measured columns that are compared (timings are not a per-page figure of quality).
COMPARED = tuple(c for c, _ in MEASURED if c not in ("ms_per_page", "n_errors"))

MARKS_NOTE = (
    "± is half the width of the page-level bootstrap 95 % interval (1,000 resamples; pooled figures "
    "recomputed from the resampled pages' counts). Bold: the best value in its column among runs on "
    "the same pages; †: not significantly worse than it (paired approximate randomization, "
    f"{PERMUTATIONS:,} shuffles, Holm-corrected p >= {ALPHA}); the bounds {', '.join(sorted(BOUNDS))} "
    "are not ranked."
)


def results_table(name: str, title: str, runs: pd.DataFrame, identity: dict[str, str], with_published: bool) -> Table:
    """One row per run: ``identity`` maps headers to run columns (extractor, split, ...); runs
    sorted by the identity's first columns, then by F1, best first. Columns with no value in
    any row (ROUGE without ``rouge=true``, published figures nobody reports) are left out.
    Each measured cell shows its 95 % interval and, among runs on the same pages, whether it is
    the column's best or not significantly worse than it (:func:`significance_marks`)."""
    marked = significance_marks(runs, COMPARED)
    rows, numbers = [], []
    for index, run in runs.iterrows():
        row = {header: str(run[column]) for header, column in identity.items()}
        number: dict[str, object] = dict(row)
        row.update(measured_cells(run, marked.get(index)))
        number.update(measured_numbers(run, marked.get(index)))
        if with_published:
            row.update(published_cells(run["extractor"], run["dataset"]))
            number.update(published_values(run["extractor"], run["dataset"]))
        row["_f1"] = number["_f1"] = run.get("block.f1", float("nan"))
        rows.append(row)
        numbers.append(number)
    frame, table_numbers = pd.DataFrame(rows), pd.DataFrame(numbers)
    if len(frame):
        groups = [h for h in identity if h != "extractor"]
        order = frame.sort_values([*groups, "_f1"], ascending=[True] * len(groups) + [False]).index
        frame, table_numbers = frame.loc[order].drop(columns="_f1"), table_numbers.loc[order].drop(columns="_f1")
        frame = frame.drop(columns=[c for c in frame.columns if (frame[c] == "–").all()])
        table_numbers = table_numbers.dropna(axis="columns", how="all")
    note = (
        "Measured: micro block metrics over the test pages, CleanEval score (mean over pages), "
        "extraction ms per page; errors: pages whose extraction failed (scored as empty extractions). "
        f"{MARKS_NOTE} " + (f"Columns marked (pub.) are published figures. {SOURCES}" if with_published else "")
    )
    return Table(name, title, frame.reset_index(drop=True), note.strip(), table_numbers.reset_index(drop=True))
