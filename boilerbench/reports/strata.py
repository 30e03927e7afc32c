"""Scores per stratum of pages: page complexity quartiles and, where a dataset has them, page types.

Page complexity is Bevendorff et al.'s (SIGIR 2023, "An Empirical Comparison of Web Content
Extraction Algorithms", sec. 3; ``complexity.py`` of their benchmark): one minus the share of a
page's text that is main content, ``1 - min(1, gold tokens / page tokens)``. Page tokens are
the tokens of the page's canonical blocks (its visible body text without script, style and
form controls; ``n_page_tokens`` of ``pages.csv``) and gold tokens the reference's
(``n_gold_tokens``), both normalised as the CleanEval score counts them. A page that is mostly
main content (an article page) is simple; one whose main content is a small share of a page full
of navigation, link lists and ads is complex. The quartile edges are taken over the pages of
all datasets together, as they did, so a stratum mixes datasets and every extractor is scored
on the same pages: only extractors with a run on every dataset are included.
"""

from __future__ import annotations

from dataclasses import dataclass

import matplotlib.pyplot as plt
import numpy as np
import pandas as pd

from boilerbench.evaluation.aggregates import page_matrix, point_value
from boilerbench.evaluation.stats import bootstrap_intervals
from boilerbench.reports.collect import run_pages
from boilerbench.reports.figures import MissingRuns
from boilerbench.reports.significance import BOUNDS, Mark, PageSetMismatch, align, figure_key, marks
from boilerbench.reports.tables import MARKS_NOTE, Table, cell

QUARTILES = ("Q1", "Q2", "Q3", "Q4")


def complexity(pages: pd.DataFrame) -> pd.Series:
    """Each page's complexity, ``1 - min(1, n_gold_tokens / n_page_tokens)``; NaN where the page
    has no text (or the run predates the ``n_page_tokens`` column)."""
    page_tokens = pd.to_numeric(pages.get("n_page_tokens", pd.Series(np.nan, index=pages.index)), errors="coerce")
    gold = pd.to_numeric(pages["n_gold_tokens"], errors="coerce")
    share = (gold / page_tokens.where(page_tokens > 0)).clip(upper=1.0)
    return 1.0 - share


@dataclass
class Strata:
    """Per extractor and stratum: pages, value, interval and marks (long format), plus the edges."""

    scores: pd.DataFrame
    edges: np.ndarray
    metric: str
    datasets: list[str]
    left_out: list[str]
    n_unknown: int


def _pooled_pages(runs: pd.DataFrame) -> dict[str, pd.DataFrame]:
    """Extractor -> its page rows over all datasets (page ids prefixed by the dataset)."""
    pooled = {}
    for extractor, part in runs.groupby("extractor"):
        frames = []
        for _, run in part.iterrows():
            pages = run_pages(run)
            frames.append(pages.assign(page_id=f"{run['dataset']}/" + pages["page_id"].astype(str)))
        pooled[str(extractor)] = pd.concat(frames, ignore_index=True).sort_values("page_id", ignore_index=True)
    return pooled


def strata_scores(runs: pd.DataFrame, metric: str = "token.f1", seed: int = 0) -> Strata:
    """Score every extractor with a run on each dataset (one run per extractor and dataset,
    ``runs`` as :func:`reports.artefacts._default_runs` picks them) per complexity quartile and
    per page type."""
    if runs.empty:
        raise MissingRuns("runs of the extractors on the datasets (the table runs)")
    datasets = sorted(runs["dataset"].unique())
    complete = runs.groupby("extractor")["dataset"].nunique() == len(datasets)
    left_out = sorted(complete[~complete].index)
    runs = runs[runs["extractor"].isin(complete[complete].index)]
    if runs["extractor"].nunique() < 1:
        raise MissingRuns(f"an extractor with runs on every dataset ({', '.join(datasets)})")
    pooled = _pooled_pages(runs)
    try:
        pooled = dict(zip(pooled, align(list(pooled.values()), list(pooled)), strict=True))
    except PageSetMismatch as err:
        raise MissingRuns(f"runs of every extractor on the same pages ({err})") from err
    reference = next(iter(pooled.values()))
    values = complexity(reference)
    if values.isna().all():
        raise MissingRuns("runs whose pages.csv has n_page_tokens (made with this version of the runner)")
    known = values.dropna()
    edges = np.quantile(known, [0.25, 0.5, 0.75])
    labels = pd.Series(pd.NA, index=reference.index, dtype="object")
    labels[known.index] = [QUARTILES[i] for i in np.searchsorted(edges, known, side="left")]
    strata = {q: (labels == q).to_numpy() for q in QUARTILES}
    if "page_type" in reference.columns:
        types = reference["page_type"].fillna("").astype(str)  # "" on datasets without types
        for kind in sorted(t for t in types.unique() if t):
            strata[f"type: {kind}"] = (types == kind).to_numpy()
    figure = figure_key(metric)
    extractors = sorted(pooled)
    rows = []
    for stratum, mask in strata.items():
        frames = [pooled[e][mask].reset_index(drop=True) for e in extractors]
        ranked = [i for i, e in enumerate(extractors) if e not in BOUNDS]
        found: dict[int, Mark] = {}
        if len(ranked) > 1:
            found = dict(zip(ranked, marks([frames[i] for i in ranked], metric, seed=seed), strict=True))
        for i, (extractor, frame) in enumerate(zip(extractors, frames, strict=True)):
            mark = found.get(i)
            matrix, names = page_matrix(frame, figure.columns)
            lo, hi = bootstrap_intervals(matrix, names, {metric: figure.compute}, seed=seed)[metric]
            rows.append(
                {
                    "extractor": extractor,
                    "stratum": stratum,
                    "pages": int(mask.sum()),
                    "value": point_value(figure, frame),
                    "lo": lo,
                    "hi": hi,
                    "best": bool(mark and mark.best),
                    "tied": bool(mark and mark.tied),
                    "p_holm": mark.pvalue if mark else float("nan"),
                }
            )
    return Strata(pd.DataFrame(rows), edges, metric, datasets, left_out, int(values.isna().sum()))


def _header(strata: Strata, stratum: str, pages: int) -> str:
    if stratum not in QUARTILES:
        return f"{stratum} (n={pages})"
    i = QUARTILES.index(stratum)
    lo = "0" if i == 0 else f"{strata.edges[i - 1]:.2f}"
    hi = "1" if i == 3 else f"{strata.edges[i]:.2f}"
    return f"{stratum} c {lo}-{hi} (n={pages})"


def table_strata(runs: pd.DataFrame, metric: str = "token.f1") -> Table:
    """Extractors (rows) by stratum (columns): the metric with its interval and marks."""
    strata = strata_scores(runs, metric)
    scores = strata.scores
    counts = scores.groupby("stratum", sort=False)["pages"].first()
    headers = {str(s): _header(strata, str(s), int(p)) for s, p in counts.items()}
    frame_rows, number_rows = [], []
    for extractor, part in scores.groupby("extractor", sort=False):
        row: dict[str, object] = {"extractor": extractor}
        number: dict[str, object] = {"extractor": extractor}
        for _, r in part.iterrows():
            mark = Mark(r["value"], r["best"], r["tied"], r["p_holm"])
            row[headers[r["stratum"]]] = cell(r["value"], 3, (r["lo"], r["hi"]), mark)
            name = headers[r["stratum"]]
            number.update(
                {
                    name: r["value"],
                    f"{name} ci95 lo": r["lo"],
                    f"{name} ci95 hi": r["hi"],
                    f"{name} best": r["best"],
                    f"{name} not worse": r["tied"],
                    f"{name} p (Holm)": r["p_holm"],
                }
            )
        row["_mean"] = part["value"].mean()
        frame_rows.append(row)
        number_rows.append(number)
    frame = pd.DataFrame(frame_rows)
    order = frame.sort_values("_mean", ascending=False).index
    frame = frame.loc[order].drop(columns="_mean").reset_index(drop=True)
    numbers = pd.DataFrame(number_rows).loc[order].reset_index(drop=True)
    note = (
        f"{metric} per stratum of pages of {', '.join(strata.datasets)} (one run per extractor and dataset). "
        "Page complexity c = 1 - min(1, gold tokens / page tokens), the share of a page's text that is not "
        "main content (Bevendorff et al., SIGIR 2023); Q1-Q4 are its quartiles over all pages of these "
        f"datasets ({strata.n_unknown} pages without text are in no quartile). {MARKS_NOTE}"
        + (f" Left out (no run on every dataset): {', '.join(strata.left_out)}." if strata.left_out else "")
    )
    title = f"{metric} by page complexity" + (" and page type" if len(headers) > 4 else "")
    return Table("table_strata", title, frame, note, numbers)


def fig_strata(runs: pd.DataFrame, metric: str = "token.f1") -> plt.Figure:
    """The metric per complexity quartile, one line per extractor with 95 % intervals; page
    types (where there are any) in a second panel."""
    strata = strata_scores(runs, metric)
    scores = strata.scores
    types = [s for s in scores["stratum"].unique() if s not in QUARTILES]
    panels = 2 if types else 1
    fig, axes = plt.subplots(1, panels, figsize=(7 * panels, 4.8), squeeze=False)
    order = scores.groupby("extractor")["value"].mean().sort_values(ascending=False).index
    colours = [plt.get_cmap("tab20")(i) for i in range(20)]
    for n, extractor in enumerate(order):
        part = scores[(scores["extractor"] == extractor) & scores["stratum"].isin(QUARTILES)]
        x = np.arange(len(part)) + (n - len(order) / 2) * 0.012
        bound = extractor in BOUNDS  # the ceiling and the floor: dashed grey
        axes[0, 0].errorbar(
            x,
            part["value"],
            yerr=[part["value"] - part["lo"], part["hi"] - part["value"]],
            marker="o",
            capsize=2,
            label=extractor + (" (bound)" if bound else ""),
            color="grey" if bound else colours[n % len(colours)],
            linestyle="--" if bound else "-",
        )
    quartile_pages = scores.groupby("stratum", sort=False)["pages"].first()
    axes[0, 0].set_xticks(range(4), [_header(strata, q, int(quartile_pages[q])) for q in QUARTILES], fontsize=7)
    axes[0, 0].set_xlabel("page complexity quartile (1 - share of the page's text that is main content)")
    axes[0, 0].set_ylabel(f"{metric} (95 % bootstrap intervals)")
    axes[0, 0].grid(alpha=0.3)
    axes[0, 0].legend(fontsize=7, ncol=2)
    if types:
        width = 0.8 / len(order)
        for n, extractor in enumerate(order):
            part = scores[(scores["extractor"] == extractor) & scores["stratum"].isin(types)]
            axes[0, 1].bar(np.arange(len(types)) + n * width, part["value"], width, label=extractor)
        axes[0, 1].set_xticks(np.arange(len(types)) + 0.4, [t.removeprefix("type: ") for t in types], rotation=30)
        axes[0, 1].set_ylabel(metric)
        axes[0, 1].set_title("by page type")
    fig.suptitle(f"{metric} by page complexity ({', '.join(strata.datasets)})")
    fig.tight_layout()
    return fig
