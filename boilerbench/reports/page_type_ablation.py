"""What each page-type change of the stack brings, per page type (``table_page_type_ablation``,
issue 33, must-show 2): the runs of ``experiment=table_page_type_ablation``, stack_fast as the
headline trains it and with one change undone at a time (``conf/undo/``): the item groups, the
structured data, the page-type classifier (its decoding by type and its probabilities in the
second stage, with the container names read through them). Columns: each page type of the
typed test sets (WCXB's seven, magic-html-bench's article and forum) with its pages; the first
row of an extractor is its shipped setting's token F1, each other row the shipped setting minus
that one on the same pages of the type, paired page by page (:mod:`boilerbench.reports.ablation`)."""

from __future__ import annotations

import pandas as pd

from boilerbench.reports.ablation import ablation_rows, shipped_runs
from boilerbench.reports.datasets import PAGE_TYPES
from boilerbench.reports.tables import Table


def _on(run: pd.Series, *params: str) -> str:
    """``on`` where every one of the run's ``params`` is true, else ``off``."""
    return "on" if all(str(run.get(f"param.{p}")) == "True" for p in params) else "off"


#: Each setting's column and how a run's row gives it.
SETTINGS = {
    "item groups": lambda run: _on(run, "item_groups"),
    "structured data": lambda run: _on(run, "structured_blocks", "type_evidence", "product_fallback"),
    "page types": lambda run: (
        "on" if str(run.get("param.decoding")) == "by_page_type" and _on(run, "type_features") == "on" else "off"
    ),
}


def is_shipped(run: pd.Series) -> bool:
    """The shipped setting: every change on."""
    return all(run[name] == "on" for name in SETTINGS)


def type_columns(runs: pd.DataFrame) -> list[tuple[str, str]]:
    """The (dataset, page type) columns: each type with pages in a run of the dataset, by
    dataset and in :data:`PAGE_TYPES` order."""
    columns = []
    for dataset, part in runs.groupby("dataset", sort=True):
        for page_type in PAGE_TYPES:
            counts = part.get(f"type.{page_type}.n_pages", pd.Series(dtype=float))
            if counts.notna().any() and counts.max() > 0:
                columns.append((str(dataset), page_type))
    return columns


def table_page_type_ablation(runs: pd.DataFrame) -> Table:
    """One row per setting (shipped first): token F1 per dataset and page type, then the paired
    differences."""
    shipped = shipped_runs(runs, SETTINGS, is_shipped, "table_page_type_ablation")
    columns = type_columns(shipped)
    rows = ablation_rows(runs, SETTINGS, is_shipped, columns, "page_type", lambda _: "token.f1")
    counts = ", ".join(
        f"{d}:{t} {int(shipped.loc[shipped['dataset'] == d, f'type.{t}.n_pages'].max())}" for d, t in columns
    )
    note = (
        "stack_fast as the headline trains it (conf/headline/stack_fast.yaml) and with one change undone "
        "(conf/undo/): item groups (the second stage's item-group features), structured data (schema.org block "
        "features, the classifier's structured-data evidence, the JSON-LD product fallback), page types (the "
        "classifier's decoding by type and its probabilities in the second stage, with the container names read "
        f"through them). Test pages of WCXB and magic-html-bench by page type (pages: {counts}). First row: token F1 "
        "± half the width of its page-bootstrap 95 % interval; the others: the shipped setting minus that setting, "
        "paired on the same pages, with the page-bootstrap 95 % interval and the approximate-randomization p-value."
    )
    return Table(
        "table_page_type_ablation", "What the page-type changes bring, per page type", pd.DataFrame(rows), note
    )
