"""The stack's page-type classifier on the test pages (``table_page_types``): accuracy,
calibration and confusion matrix, read from the runs that record each page's predicted type.

A stack that decodes by page type (``decoding=by_page_type``) writes each page's
``predicted_page_type`` and the classifier's ``page_type_confidence`` into its run's
``pages.csv``, beside the dataset's own ``page_type`` (WCXB's seven types, magic-html-bench's
article and forum, DANIEL's articles). For every such run of ``experiment=table_headline`` and
``experiment=table_languages`` (the latest per extractor and dataset) whose pages carry both, the
table gives one row per gold type (its pages, how many were predicted as each type, its recall
with a 95 % Wilson interval) and a row ``all`` (the accuracy with its interval and the expected
calibration error over five bins of confidence: Guo et al., ICML 2017, eq. 3). Issue 33 asks for
the classifier's accuracy and confusion matrix in the results; ``python -m studies.page_types``
prints the same for any run folder.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import pandas as pd

from boilerbench.reports.collect import run_pages
from boilerbench.reports.datasets import PAGE_TYPES, latest_runs
from boilerbench.reports.figures import MissingRuns
from boilerbench.reports.tables import Table, fmt

#: Confidence bins of the expected calibration error.
CALIBRATION_BINS = 5


def wilson(k: int, n: int, z: float = 1.96) -> tuple[float, float]:
    """The Wilson score interval of the proportion ``k / n`` (95 % for ``z`` = 1.96)."""
    p = k / n
    centre = (p + z * z / (2 * n)) / (1 + z * z / n)
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / (1 + z * z / n)
    return centre - half, centre + half


def calibration_error(confidence: Sequence[float], correct: Sequence[bool], bins: int = CALIBRATION_BINS) -> float:
    """Expected calibration error: the page-weighted mean gap, per equal-width bin of
    confidence, between the bin's accuracy and its mean confidence (a confidence of 1 falls in
    the last bin)."""
    total = 0.0
    for b in range(bins):
        members = [i for i, c in enumerate(confidence) if min(int(c * bins), bins - 1) == b]
        if members:
            accuracy = sum(correct[i] for i in members) / len(members)
            mean = sum(confidence[i] for i in members) / len(members)
            total += len(members) * abs(accuracy - mean)
    return total / len(confidence)


def typed_pages(rows: pd.DataFrame) -> pd.DataFrame:
    """The page rows that have both a gold and a predicted page type."""
    if "page_type" not in rows or "predicted_page_type" not in rows:
        return rows.iloc[0:0]
    gold = rows["page_type"].fillna("").astype(str)
    predicted = rows["predicted_page_type"].fillna("").astype(str)
    return rows[(gold != "") & (predicted != "")]


def observed_types(typed: pd.DataFrame, first: Sequence[str] = ()) -> list[str]:
    """The types of ``first``, then the other gold or predicted types of ``typed``, sorted."""
    seen = set(typed["page_type"].astype(str)) | set(typed["predicted_page_type"].astype(str))
    return [*first, *sorted(seen - set(first))]


def confusion_rows(typed: pd.DataFrame, types: Sequence[str]) -> list[dict]:
    """One row per gold type present (pages, count per predicted type, recall and its Wilson
    interval), then the row ``all`` (per predicted type, the pages predicted so; the accuracy,
    its interval and, where every page has a confidence, the calibration error)."""
    gold = typed["page_type"].astype(str).tolist()
    predicted = typed["predicted_page_type"].astype(str).tolist()
    rows = []
    for kind in [t for t in types if t in set(gold)]:
        mine = [p for g, p in zip(gold, predicted, strict=True) if g == kind]
        hits = mine.count(kind)
        rows.append(
            {"gold type": kind, "pages": len(mine), **{t: mine.count(t) for t in types}, "recall": hits / len(mine)}
            | dict(zip(("low", "high"), wilson(hits, len(mine)), strict=True))
        )
    correct = [g == p for g, p in zip(gold, predicted, strict=True)]
    ece = float("nan")
    if "page_type_confidence" in typed and typed["page_type_confidence"].notna().all():
        ece = calibration_error(typed["page_type_confidence"].astype(float).tolist(), correct)
    rows.append(
        {"gold type": "all", "pages": len(gold), **{t: predicted.count(t) for t in types}}
        | {"recall": sum(correct) / len(gold)}
        | dict(zip(("low", "high"), wilson(sum(correct), len(gold)), strict=True))
        | {"ece": ece}
    )
    return rows


def table_page_types(runs: pd.DataFrame) -> Table:
    """The confusion matrix of every page-typed run's classifier (see the module docstring)."""
    typed_runs = runs[runs.get("param.decoding", pd.Series(index=runs.index, dtype=object)) == "by_page_type"]
    numbers, display = [], []
    for _, run in latest_runs(typed_runs, ["extractor", "dataset"]).sort_values(["extractor", "dataset"]).iterrows():
        typed = typed_pages(run_pages(run))
        if typed.empty:
            continue
        types = observed_types(typed, PAGE_TYPES)
        identity = {"extractor": run["extractor"], "dataset": run["dataset"]}
        for row in confusion_rows(typed, types):
            numbers.append(identity | row)
            interval = f"{row['recall']:.3f} [{row['low']:.3f}, {row['high']:.3f}]"
            display.append(
                identity
                | {"gold type": row["gold type"], "pages": str(row["pages"])}
                | {t: str(row[t]) for t in types}
                | {"recall (all: accuracy)": interval, "ECE": fmt(row.get("ece"))}
            )
    if not numbers:
        raise MissingRuns("runs of a stack decoding by page type on typed pages (experiment=table_headline)")
    frame = pd.DataFrame(display).fillna("0")
    note = (
        "Rows: the gold type (the dataset's label); columns: how many of its pages the stack's page-type "
        "classifier predicted as each type. recall: the share predicted as the gold type, with its 95 % "
        "Wilson interval; on the row all, the accuracy over the typed pages, and ECE the expected calibration "
        f"error of the classifier's confidence over {CALIBRATION_BINS} equal-width bins (Guo et al., 2017). "
        "Test pages only: WCXB's test part (table_headline), the test parts of the multilingual sets "
        "(table_languages; DANIEL's split by site)."
    )
    return Table(
        "table_page_types",
        "The page-type classifier: accuracy and confusion matrix",
        frame,
        note,
        numbers=pd.DataFrame(numbers),
    )
