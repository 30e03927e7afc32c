"""The cross-dataset artefacts: every extractor on every dataset (``table_datasets`` and its
token-F1 matrix), how models trained on one dataset do on the others (``table_generalization``
and its heatmap), and token F1 per WCXB page type (``fig_page_types``).

The runs come from ``experiment=table_datasets`` and ``experiment=table_generalization``; a
run's training source is read from its ``trained_on`` (``cleaneval/cleaneval`` -> cleaneval, a
mixture ``mix(...)/balanced`` -> mixture) and is its own dataset when it has none (the in-domain
run: the dataset's own split, or 5-fold cross-validation where it has no training split).
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from boilerbench.experiments.results import legacy_protocol_name
from boilerbench.reports.figures import DATASET_ORDER as DATASETS
from boilerbench.reports.figures import MissingRuns, plt
from boilerbench.reports.tables import Table, fmt

#: Training sources of the generalization table, the mixture last.
SOURCES = ("cleaneval", "l3s_gn1", "dragnet", "wcxb", "mixture")
#: WCXB's page types, in its README's order.
PAGE_TYPES = ("article", "forum", "product", "collection", "listing", "documentation", "service")
#: Datasets with snippet gold only (trafilatura's evaluation set): their full-text figures measure
#: nothing, so table_datasets shows and ranks them by their snippet F1 alone and the token-F1
#: matrix leaves them out.
SNIPPET_ONLY = ("trafilatura_eval",)
FULL_TEXT = ("token.f1", "word.f1", "block.f1", "cleaneval.mean")
#: Columns of table_datasets: (run column, header, decimals).
COLUMNS = (
    ("token.f1", "token F1", 3),
    ("word.f1", "word F1", 3),
    ("block.f1", "block F1", 3),
    ("cleaneval.mean", "CleanEval", 2),
    ("snippets.f1", "snippet F1", 3),
    ("ms_per_page", "ms/page", 2),
)


def _order(values: pd.Series, order: tuple[str, ...]) -> pd.Series:
    """Sort keys: the position in ``order``, unknown names after, alphabetically."""
    return values.map(lambda v: (order.index(v), "") if v in order else (len(order), str(v)))


def latest_runs(runs: pd.DataFrame, keys: list[str]) -> pd.DataFrame:
    """One run per distinct ``keys``: the one that finished last."""
    return runs.sort_values("finished_at").drop_duplicates(subset=keys, keep="last")


def training_source(run: pd.Series) -> str:
    """The training data of a run: its dataset (in-domain), a dataset name, or ``mixture``."""
    trained = str(run.get("trained_on") or "")
    if not trained or trained == "nan":
        return str(run["dataset"])
    return "mixture" if trained.startswith("mix(") else trained.split("/", 1)[0]


def _protocol(run: pd.Series) -> str:
    """The protocol column of a run, read from its recorded protocol (a runs.csv row of an
    earlier version as that version ran it: :func:`legacy_protocol_name`)."""
    protocol = legacy_protocol_name(str(run["protocol"]), str(run.get("trained_on") or ""))
    if protocol == "cv":
        return f"{int(run['cv.folds'])}-fold CV"
    return {"mixture": "mixture", "cross_dataset": "cross"}.get(protocol, "test split")


def table_datasets(runs: pd.DataFrame) -> Table:
    """Every extractor on the test pages of every dataset, one row per (dataset, extractor),
    best token F1 (snippet F1 on :data:`SNIPPET_ONLY` datasets) first within a dataset."""
    if runs.empty:
        raise MissingRuns("extractor runs on the datasets (experiment=table_datasets)")
    runs = latest_runs(runs, ["extractor", "dataset"])
    snippet_only = runs["dataset"].isin(SNIPPET_ONLY)
    rank = runs["token.f1"].where(~snippet_only, runs.get("snippets.f1"))
    runs = runs.assign(_d=_order(runs["dataset"], DATASETS), _rank=rank)
    runs = runs.sort_values(["_d", "_rank"], ascending=[True, False])
    rows, raw = [], []
    for _, run in runs.iterrows():
        row = {"dataset": run["dataset"], "extractor": run["extractor"], "protocol": _protocol(run)}
        row["pages"] = str(int(run["n_pages"]))
        values = {c: None if run["dataset"] in SNIPPET_ONLY and c in FULL_TEXT else run.get(c) for c, _, _ in COLUMNS}
        for column, header, digits in COLUMNS:
            row[header] = fmt(values[column], digits)
        row["errors"] = str(int(run["n_errors"]))
        rows.append(row)
        raw.append({**row, **{h: values[c] for c, h, _ in COLUMNS}})
    frame = pd.DataFrame(rows)
    frame = frame.drop(columns=[c for c in frame.columns if (frame[c] == "–").all()])
    note = (
        "Test pages of each dataset: its own test split, or all its pages where it has no training split "
        "(learned extractors then fit on the balanced mixture of the cleaneval, dragnet and wcxb training "
        "splits: protocol 'mixture'; or on the other folds of a cross-validation). token F1: bag-of-words F1, "
        "mean over pages; word F1: "
        "WCXB's word F1 (bag of lowercased \\w+ runs, its published figures' metric), mean over pages; block F1: "
        "micro over blocks; CleanEval: mean score; snippet F1: WCXB's with/without snippets, mean over pages "
        "(trafilatura's scoring; the only figure of trafilatura_eval, whose gold is snippets only); ms/page: "
        "extraction time; errors: pages that failed to load or extract."
    )
    frame = frame.reset_index(drop=True)
    return Table("table_datasets", "Every extractor on every dataset", frame, note, pd.DataFrame(raw))


def table_datasets_token_f1(runs: pd.DataFrame) -> Table:
    """The token F1 of table_datasets as an extractor x dataset matrix, with the mean over datasets."""
    if runs.empty:
        raise MissingRuns("extractor runs on the datasets (experiment=table_datasets)")
    runs = latest_runs(runs, ["extractor", "dataset"])
    runs = runs[~runs["dataset"].isin(SNIPPET_ONLY)]
    matrix = runs.pivot(index="extractor", columns="dataset", values="token.f1")
    matrix = matrix[[d for d in DATASETS if d in matrix.columns] + [d for d in matrix.columns if d not in DATASETS]]
    matrix["mean"] = matrix.mean(axis=1, skipna=False)
    matrix = matrix.sort_values("mean", ascending=False, na_position="last")
    frame = matrix.reset_index().rename(columns={"extractor": "extractor"})
    shown = frame.copy()
    for column in matrix.columns:
        shown[column] = [fmt(v) for v in frame[column]]
    note = (
        "Token F1 (mean over test pages) per dataset; mean: over the datasets (– where a run is missing); "
        f"datasets without full-text gold ({', '.join(SNIPPET_ONLY)}) are left out."
    )
    return Table(
        "table_datasets_token_f1",
        "Token F1 of every extractor on every dataset",
        shown,
        note,
        numbers=frame.copy(),
    )


def generalization_matrix(runs: pd.DataFrame) -> pd.DataFrame:
    """Token F1 per (extractor, training source) row and test dataset column."""
    runs = runs.assign(source=runs.apply(training_source, axis=1))
    runs = latest_runs(runs, ["extractor", "source", "dataset"])
    matrix = runs.pivot_table(index=["extractor", "source"], columns="dataset", values="token.f1", aggfunc="last")
    matrix = matrix[[d for d in DATASETS if d in matrix.columns]]
    index = sorted(matrix.index, key=lambda k: (k[0], SOURCES.index(k[1]) if k[1] in SOURCES else len(SOURCES)))
    return matrix.loc[index]


def table_generalization(runs: pd.DataFrame) -> Table:
    """Rows: extractor and training source; columns: test datasets (token F1), the mean over the
    datasets the model was not trained on, and the mean over all. In-domain cells are marked *."""
    if runs.empty:
        raise MissingRuns("crf, web2text and boilernet trained on each source (experiment=table_generalization)")
    matrix = generalization_matrix(runs)
    mixture_sources = {"cleaneval", "dragnet", "wcxb"}
    rows, raw = [], []
    for key, values in matrix.iterrows():
        extractor, source = str(key[0]), str(key[1])  # type: ignore[index]
        seen = mixture_sources if source == "mixture" else {source}
        row = {"extractor": extractor, "trained on": source}
        record: dict = dict(row)
        for dataset, value in values.items():
            row[str(dataset)] = fmt(value) + ("*" if dataset in seen and not pd.isna(value) else "")
            record[str(dataset)] = value
        outside = [v for d, v in values.items() if d not in seen and not pd.isna(v)]
        record["mean out of domain"] = float(np.mean(outside)) if outside else float("nan")
        record["mean"] = float(values.mean()) if values.notna().all() else float("nan")
        row["mean out of domain"] = fmt(record["mean out of domain"])
        row["mean"] = fmt(record["mean"])
        rows.append(row)
        raw.append(record)
    note = (
        "Token F1 (mean over test pages). * in-domain: the test pages of a dataset the model was trained on "
        "(its own test split, or 5-fold CV for l3s_gn1); the mixture is the training splits of cleaneval, dragnet "
        "and wcxb, balanced (each dataset weighs the same). mean out of domain: over the datasets not trained on."
    )
    return Table(
        "table_generalization",
        "Generalization: trained on one dataset (or the mixture), tested on every dataset",
        pd.DataFrame(rows),
        note,
        numbers=pd.DataFrame(raw),
    )


def _heatmap(ax, values: np.ndarray, rows: list[str], columns: list[str], title: str, marks=None):
    """An annotated heatmap of scores in [0, 1] on ``ax``; returns the image (for a colour bar)."""
    image = ax.imshow(values, vmin=0.0, vmax=1.0, cmap="viridis", aspect="auto")
    ax.set_xticks(range(len(columns)), columns, rotation=40, ha="right")
    ax.set_yticks(range(len(rows)), rows)
    for i in range(len(rows)):
        for j in range(len(columns)):
            v = values[i, j]
            if not np.isnan(v):
                text = f"{v:.2f}" + ("*" if marks is not None and marks[i][j] else "")
                ax.text(j, i, text, ha="center", va="center", fontsize=7, color="white" if v < 0.6 else "black")
    ax.set_title(title)
    return image


def fig_generalization(runs: pd.DataFrame) -> plt.Figure:
    """Heatmaps of table_generalization: one panel per extractor, training source x test dataset."""
    if runs.empty:
        raise MissingRuns("crf, web2text and boilernet trained on each source (experiment=table_generalization)")
    matrix = generalization_matrix(runs)
    extractors = sorted({e for e, _ in matrix.index})
    fig, axes = plt.subplots(1, len(extractors), figsize=(5.2 * len(extractors), 3.8), squeeze=False)
    image = None
    for ax, extractor in zip(axes[0], extractors, strict=True):
        part = matrix.loc[extractor]
        sources = list(part.index)
        marks = [
            [d in ({"cleaneval", "dragnet", "wcxb"} if s == "mixture" else {s}) for d in part.columns] for s in sources
        ]
        image = _heatmap(ax, part.to_numpy(dtype=float), sources, list(part.columns), extractor, marks)
        ax.set_ylabel("trained on")
    if image is not None:
        fig.colorbar(image, ax=axes[0].tolist(), shrink=0.8, label="token F1 (* in-domain)")
    return fig


def fig_page_types(runs: pd.DataFrame) -> plt.Figure:
    """Token F1 per WCXB page type (columns) for every extractor (rows), from its wcxb run."""
    runs = runs[runs["dataset"] == "wcxb"]
    columns = [f"type.{t}.token.f1" for t in PAGE_TYPES]
    if runs.empty or not set(columns) & set(runs.columns):
        raise MissingRuns("extractor runs on wcxb (experiment=table_datasets)")
    runs = latest_runs(runs, ["extractor"])
    runs = runs.assign(_mean=runs["token.f1"]).sort_values("_mean", ascending=False)
    values = runs.reindex(columns=columns).to_numpy(dtype=float)
    counts = [runs.get(f"type.{t}.n_pages", pd.Series([np.nan])).max() for t in PAGE_TYPES]
    labels = [f"{t}\n({int(n)} pages)" if not pd.isna(n) else t for t, n in zip(PAGE_TYPES, counts, strict=True)]
    fig, ax = plt.subplots(figsize=(9, 0.32 * len(runs) + 1.8))
    image = _heatmap(ax, values, list(runs["extractor"]), labels, "WCXB test pages: token F1 per page type")
    fig.colorbar(image, ax=ax, shrink=0.8, label="token F1")
    fig.tight_layout()
    return fig
