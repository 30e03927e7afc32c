"""The results store as the documentation reads it: the files under ``reports/results/`` and the
literature's figures of :mod:`boilerbench.reports.published`, each figure addressed by
(source, row, column) so that a page can say where every number it shows comes from.

A figure on a page is written as ``<span data-store=SOURCE data-row=ROW data-col=COLUMN>``
around its text (:func:`figure`); :mod:`.check` reads the address back and compares.
"""

from __future__ import annotations

import html
import math
from dataclasses import dataclass, field
from functools import cached_property
from pathlib import Path

import pandas as pd

from boilerbench.errors import BoilerbenchError
from boilerbench.reports.collect import read_runs
from boilerbench.reports.published import PUBLISHED
from boilerbench.reports.tables import digits_of

#: The store folder, relative to the repository root.
STORE = Path("reports/results")
#: The source name of the literature's figures (``boilerbench/reports/published.py``).
PUBLISHED_SOURCE = "published"


class StoreError(BoilerbenchError):
    """A page names a store file, row or column that is not there."""


@dataclass
class Store:
    """Read access to one results store folder; CSV files are parsed once."""

    root: Path = STORE
    _frames: dict[str, pd.DataFrame] = field(default_factory=dict, repr=False)

    def text(self, name: str) -> str:
        """A store file's text (a markdown table, ``README.md``)."""
        path = self.root / name
        if not path.is_file():
            raise StoreError(f"the results store has no {name} (looked in {self.root})")
        return path.read_text(encoding="utf-8")

    def frame(self, name: str) -> pd.DataFrame:
        """A store CSV file; ``runs.csv`` read as the reports read it (text keys, no NaN keys)."""
        if name not in self._frames:
            path = self.root / name
            if not path.is_file():
                raise StoreError(f"the results store has no {name} (looked in {self.root})")
            self._frames[name] = (read_runs(path) if name == "runs.csv" else pd.read_csv(path, dtype=str)).copy()
        return self._frames[name]

    @cached_property
    def runs(self) -> pd.DataFrame:
        """The run rows (``runs.csv``), indexed by their row number in the file."""
        return self.frame("runs.csv")

    def value(self, source: str, row: str, column: str) -> object:
        """The figure at (source, row, column): a CSV cell (row = its 0-based line number among the
        data rows) or a published figure (row = ``extractor/dataset``)."""
        if source == PUBLISHED_SOURCE:
            extractor, _, dataset = row.partition("/")
            found = PUBLISHED.get((extractor, dataset), {}).get(column)
            if found is None:
                raise StoreError(f"no published {column} for {row}")
            return found
        frame = self.frame(source)
        if column not in frame.columns or not row.isdigit() or int(row) >= len(frame):
            raise StoreError(f"{source} has no cell ({row}, {column})")
        return frame[column].iat[int(row)]

    def cell(self, row: int, column: str) -> object:
        """A cell of ``runs.csv``; None where the file has no such column."""
        return self.runs[column].iat[row] if column in self.runs.columns else None


def is_missing(value: object) -> bool:
    """True for an empty cell (NaN, None, empty text)."""
    return value is None or value == "" or (isinstance(value, float) and math.isnan(value))


def shown(value: object, column: str) -> str:
    """A stored number as a page shows it: the digits the tables use for that column
    (:func:`boilerbench.reports.tables.digits_of`); text cells as they are."""
    metric = column.removesuffix("_ci95")
    for prefix in ("type.", "lang."):  # type.article.token.f1 -> token.f1
        if metric.startswith(prefix):
            metric = metric.split(".", 2)[2]
    try:
        number = float(value)  # type: ignore[arg-type]
    except (TypeError, ValueError):
        return str(value)
    return f"{number:.{digits_of(metric)}f}"


def interval(value: object) -> tuple[float, float] | None:
    """A ``_ci95`` cell (``[lo, hi]`` as ``runs.csv`` writes it) as two numbers."""
    if not isinstance(value, str) or not value.startswith("["):
        return None
    parts = [p.strip() for p in value.strip("[]").split(",")]
    if len(parts) != 2 or not all(parts):
        return None
    return float(parts[0]), float(parts[1])


def figure(source: str, row: object, column: str, text: str, item: int | None = None) -> str:
    """The inline HTML of one figure on a page, carrying its store address; ``item`` picks one
    bound of an interval cell (0 low, 1 high)."""
    attrs = f'data-store="{source}" data-row="{html.escape(str(row))}" data-col="{html.escape(column)}"'
    if item is not None:
        attrs += f' data-item="{item}"'
    return f'<span class="bb-fig" {attrs}>{html.escape(text)}</span>'


def run_figure(store: Store, row: int, column: str) -> str:
    """A run's figure from ``runs.csv`` with its interval (``0.923 [0.911, 0.935]``), or an en
    dash where the run has none."""
    value = store.cell(row, column)
    if is_missing(value):
        return "–"
    text = figure("runs.csv", row, column, shown(value, column))
    bounds = interval(store.cell(row, column + "_ci95"))
    if bounds is None:
        return text
    lo, hi = (figure("runs.csv", row, column + "_ci95", shown(b, column), item=i) for i, b in enumerate(bounds))
    return f"{text} [{lo}, {hi}]"
