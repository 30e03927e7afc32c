"""Where a table's rows came from: the run keys and extractor code versions of the runs behind
each row, added to the table's CSV (``run_key`` and ``code_version`` columns, several values
separated by spaces where a row gathers several runs: a row of a dataset matrix, a headline row
comparing three extractors). The markdown and LaTeX renderings stay as they are.

A row's runs are found from the identity columns it shows: ``extractor``, ``dataset`` (a
``wcxb: forum`` row is WCXB's), ``split``, ``trained on`` (the training source,
:func:`boilerbench.reports.datasets.training_source`) and ``run`` (a CleanEval 2007 system,
:func:`boilerbench.reports.cleaneval2007.variant`); a table without an ``extractor`` column
whose columns are named after extractors (``table_headline``) reads those extractors' runs; a
row with neither (``table_budget``'s, one per experiment) names no run.
Among a setting's runs the latest one counts, as the builders choose it."""

from __future__ import annotations

from collections.abc import Callable

import pandas as pd

from boilerbench.reports.cleaneval2007 import variant
from boilerbench.reports.collect import PROVENANCE
from boilerbench.reports.datasets import training_source

#: Table header -> the value a run gives for it.
IDENTITY: dict[str, Callable[[pd.Series], str]] = {
    "extractor": lambda run: str(run["extractor"]),
    "dataset": lambda run: str(run["dataset"]),
    "split": lambda run: str(run["split"]),
    "trained on": training_source,
    "run": variant,
}


def row_runs(row: pd.Series, runs: pd.DataFrame, identities: pd.DataFrame) -> pd.DataFrame:
    """The runs behind one table row (``identities``: :data:`IDENTITY`'s values of every run)."""
    chosen = pd.Series(True, index=runs.index)
    headers = [h for h in IDENTITY if h in row.index]
    for header in headers:
        value = str(row[header])
        chosen &= identities[header].isin({value, value.split(":")[0]})
    named = [c for c in row.index if c in set(runs["extractor"])]
    if "extractor" not in row.index and named:
        chosen &= runs["extractor"].isin(named)
    return runs[chosen] if headers or named else runs.iloc[:0]


def with_provenance(frame: pd.DataFrame, runs: pd.DataFrame) -> pd.DataFrame:
    """``frame`` (a table's CSV rows) with :data:`PROVENANCE` columns: the distinct values of the
    runs behind each row, in sorted order (empty for runs recorded before they were kept)."""
    runs = runs.sort_values("finished_at").drop_duplicates(
        subset=["extractor", "dataset", "split", "trained_on"], keep="last"
    )
    identities = pd.DataFrame({h: [of(r) for _, r in runs.iterrows()] for h, of in IDENTITY.items()}, index=runs.index)
    frame = frame.copy()
    cells: dict[str, list[str]] = {name: [] for name in PROVENANCE}
    for _, row in frame.iterrows():
        behind = row_runs(row, runs, identities)
        for name in PROVENANCE:
            values = behind[name].fillna("").astype(str) if name in behind.columns else pd.Series(dtype=str)
            cells[name].append(" ".join(sorted({v for v in values if v})))
    for name in PROVENANCE:
        frame[name] = cells[name]
    return frame
