"""Ablation tables: a shipped setting's figures per column, then, per other setting, the shipped
one minus it, paired page by page (:func:`subset_difference`). A column is a dataset and a
value of a page-row column (a language, a page type): ``table_language_ablation`` and
``table_page_type_ablation`` are both built by :func:`ablation_rows`."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence

import numpy as np
import pandas as pd

from boilerbench.reports.collect import run_pages
from boilerbench.reports.datasets import latest_runs
from boilerbench.reports.figures import MissingRuns
from boilerbench.reports.significance import Difference, align, compare_pair
from boilerbench.reports.tables import cell, interval_of


def paired_subset(
    learned: pd.DataFrame, reference: pd.DataFrame, column: str, value: str
) -> tuple[pd.DataFrame, pd.DataFrame]:
    """The two runs' page rows in one page order (:func:`align`), those whose ``column`` is
    ``value`` only; a ``ValueError`` when there are none (a difference over no page is no figure:
    its p-value would read 1 / (R + 1))."""
    a, b = align([learned, reference], ["learned", "reference"])
    keep = (a[column].astype(str) == value).to_numpy()
    if not keep.any():
        raise ValueError(f"no page has {column} {value!r}")
    return a[keep].reset_index(drop=True), b[keep].reset_index(drop=True)


def subset_difference(
    learned: pd.DataFrame,
    reference: pd.DataFrame,
    column: str,
    value: str,
    site: Callable[[str], str] | None = None,
    metric: str = "token.f1",
) -> Difference:
    """``learned`` minus ``reference`` in ``metric`` on the pages whose ``column`` (``language``,
    ``page_type``) is ``value``, paired: the difference, its 95 % bootstrap interval and p-value,
    resampling pages, or the sites that ``site`` gives each page id (:func:`compare_pair`'s clusters)."""
    a, b = paired_subset(learned, reference, column, value)
    clusters = None if site is None else [site(str(i)) for i in a["page_id"]]
    (difference,) = compare_pair(a, b, [metric], clusters=clusters)
    return difference


def difference_cell(difference: Difference) -> str:
    """``+0.016 [+0.002, +0.033], p 0.041``: a paired difference with its interval and p-value."""
    return f"{difference.difference:+.3f} [{difference.lo:+.3f}, {difference.hi:+.3f}], p {difference.pvalue:.2g}"


def read_settings(runs: pd.DataFrame, settings: Mapping[str, Callable[[pd.Series], str]]) -> pd.DataFrame:
    """``runs`` with a column per setting, as ``settings`` reads it from each run's row."""
    return runs.assign(**{name: [read(r) for _, r in runs.iterrows()] for name, read in settings.items()})


def runs_where(runs: pd.DataFrame, test: Callable[[pd.Series], bool]) -> pd.DataFrame:
    """The rows of ``runs`` that ``test`` accepts (none of an empty frame, its columns kept)."""
    return runs[np.array([test(r) for _, r in runs.iterrows()], dtype=bool)]


def shipped_runs(
    runs: pd.DataFrame,
    settings: Mapping[str, Callable[[pd.Series], str]],
    shipped: Callable[[pd.Series], bool],
    experiment: str,
) -> pd.DataFrame:
    """The runs of the shipped setting (with their setting columns); :class:`MissingRuns` naming
    ``experiment`` when there are none."""
    found = runs_where(read_settings(runs, settings), shipped)
    if found.empty:
        raise MissingRuns(f"the shipped setting's runs (experiment={experiment})")
    return found


def ablation_rows(
    runs: pd.DataFrame,
    settings: Mapping[str, Callable[[pd.Series], str]],
    shipped: Callable[[pd.Series], bool],
    columns: Sequence[tuple[str, str]],
    page_column: str,
    figure: Callable[[str], str],
) -> list[dict]:
    """Per extractor (stack_fast first), the row of its shipped setting (``figure(dataset)`` of each
    (dataset, value) column: ``<page_column prefix>.<value>.<figure>`` from the run's summary, with
    its interval), then one row per other setting: the shipped one minus it on the column's pages.

    ``settings`` names each setting column and reads it from a run; ``shipped`` says whether a run
    has the shipped setting; ``page_column`` is the page rows' column the values are of
    (``language``: summary prefix ``lang``; ``page_type``: ``type``)."""
    prefix = {"language": "lang", "page_type": "type"}[page_column]
    runs = latest_runs(read_settings(runs, settings), ["extractor", *settings, "dataset"])
    runs = runs.assign(_shipped=[shipped(r) for _, r in runs.iterrows()])
    rows = []
    for extractor in sorted(set(runs["extractor"]), key=lambda e: (e != "stack_fast", e)):
        mine = runs[runs["extractor"] == extractor]
        base = {r["dataset"]: r for _, r in mine[mine["_shipped"]].iterrows()}
        if not base:
            continue
        first = {"extractor": extractor, **{s: next(iter(base.values()))[s] for s in settings}, "figure": "token F1"}
        for dataset, value in columns:
            key = f"{prefix}.{value}.{figure(dataset)}"
            run = base.get(dataset, pd.Series(dtype=object))
            first[f"{dataset}:{value}"] = cell(run.get(key, float("nan")), 3, interval_of(run, key))
        rows.append(first)
        others = mine[~mine["_shipped"]]
        keys = [tuple(r[s] for s in settings) for _, r in others.iterrows()]
        for setting in sorted(set(keys), reverse=True):
            chosen = others[[k == setting for k in keys]]
            row = {"extractor": extractor, **dict(zip(settings, setting, strict=True)), "figure": "shipped − this"}
            other = {r["dataset"]: r for _, r in chosen.iterrows()}
            for dataset, value in columns:
                if dataset not in other or dataset not in base:
                    row[f"{dataset}:{value}"] = "–"
                    continue
                difference = subset_difference(
                    run_pages(base[dataset]),
                    run_pages(other[dataset]),
                    page_column,
                    value,
                    metric=figure(dataset),
                )
                row[f"{dataset}:{value}"] = difference_cell(difference)
            rows.append(row)
    return rows
