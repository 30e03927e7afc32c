"""The figures, with matplotlib (PNG, PDF and SVG). Each function takes the runs it needs and
returns a figure, or raises :class:`MissingRuns` naming what is missing."""

from __future__ import annotations

import matplotlib
import matplotlib.ticker

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402
import pandas as pd  # noqa: E402

from boilerbench.evaluation.stats import average_ranks, friedman  # noqa: E402
from boilerbench.reports.collect import MissingRuns, run_pages  # noqa: E402
from boilerbench.reports.significance import BOUNDS  # noqa: E402

#: Datasets in the order of the tables (the older ones first).
DATASET_ORDER = (
    "cleaneval",
    "l3s_gn1",
    "dragnet",
    "wcxb",
    "scrapinghub",
    "cleanportaleval",
    "readability_tests",
    "daniel",
    "magic_html",
    "chinese_wce",
    "trafilatura_eval",
)


def _require(runs: pd.DataFrame, what: str) -> None:
    if runs.empty:
        raise MissingRuns(what)


def scedd_coefficients(runs: pd.DataFrame, dataset: str = "cleaneval") -> plt.Figure:
    """SCEDD figs. 4 and 5 on our data: wrong short pages (SCEDD error > 0.2) against
    ``bottom_coef`` (at the default ``top_coef``) and against ``top_coef`` (at the default
    ``bottom_coef``)."""
    runs = runs[(runs["extractor"] == "scedd") & (runs["dataset"] == dataset)]
    _require(runs, f"scedd runs on {dataset} sweeping top_coef and bottom_coef")
    points = []
    for _, run in runs.iterrows():
        table = run_pages(run)
        short = table[table["page_class"] == "short"]
        wrong = short["lcs_wrong"].astype(str).str.lower().isin(("true", "1")).sum()
        points.append((float(run["param.top_coef"]), float(run["param.bottom_coef"]), int(wrong), len(short)))
    frame = pd.DataFrame(points, columns=["top", "bottom", "wrong", "short"])
    fig, axes = plt.subplots(1, 2, figsize=(9, 3.6))
    for ax, (vary, fixed, default, label) in zip(
        axes, (("bottom", "top", 0.05, "bottom_coef"), ("top", "bottom", 0.95, "top_coef")), strict=True
    ):
        part = frame[np.isclose(frame[fixed], default)].sort_values(vary)
        ax.plot(part[vary], part["wrong"], marker="o")
        ax.set_xlabel(f"{label} ({fixed}_coef = {default})")
        ax.set_ylabel("wrong short pages (error > 20 %)")
        ax.yaxis.set_major_locator(matplotlib.ticker.MaxNLocator(integer=True))
        ax.grid(alpha=0.3)
    n_short = int(frame["short"].max()) if len(frame) else 0
    fig.suptitle(f"SCEDD coefficients on {dataset} ({n_short} short pages)")
    fig.tight_layout()
    return fig


def short_pages(runs: pd.DataFrame) -> plt.Figure:
    """SCEDD fig. 7 on our data: share of the short pages (by SCEDD's classifier) that each
    extractor gets right (SCEDD error at most 0.2), per dataset."""
    _require(runs[runs["extractor"] == "scedd"], "a default scedd run per dataset (it marks the short pages)")
    datasets = sorted(runs["dataset"].unique())
    fig, axes = plt.subplots(1, len(datasets), figsize=(5 * len(datasets), 4), squeeze=False)
    for ax, dataset in zip(axes[0], datasets, strict=True):
        part = runs[runs["dataset"] == dataset]
        scedd = part[part["extractor"] == "scedd"]
        if scedd.empty:
            ax.set_title(f"{dataset}: no scedd run")
            continue
        marks = run_pages(scedd.iloc[0])
        short = set(marks.loc[marks["page_class"] == "short", "page_id"])
        names, shares = [], []
        for _, run in part.sort_values("extractor", ascending=False).iterrows():
            table = run_pages(run)
            table = table[table["page_id"].isin(short)]
            wrong = table["lcs_wrong"].astype(str).str.lower().isin(("true", "1"))
            names.append(run["extractor"])
            shares.append(100 * (1 - wrong.mean()) if len(table) else 0.0)
        ax.barh(names, shares)
        ax.set_xlabel("short pages right (error <= 20 %), %")
        ax.set_xlim(0, 100)
        ax.set_title(f"{dataset} ({len(short)} short pages)")
        ax.grid(axis="x", alpha=0.3)
    fig.tight_layout()
    return fig


def pareto_front(ms: np.ndarray, quality: np.ndarray) -> np.ndarray:
    """Indices of the points no other point beats on both axes (faster and at least as good, or
    as fast and better), fastest first."""
    order = np.lexsort((-quality, ms))
    front, best = [], -np.inf
    for i in order:
        if quality[i] > best:
            front.append(int(i))
            best = quality[i]
    return np.array(front, dtype=int)


#: Where a point's label may go, in points from the point (the first that overlaps no label placed before).
LABEL_OFFSETS = ((3, 2), (3, -9), (3, 11), (3, -18), (3, 20))


def _label_points(ax: plt.Axes, names: list[str], xs: np.ndarray, ys: np.ndarray, fontsize: float = 7) -> None:
    """Annotate each point with its name at the first of :data:`LABEL_OFFSETS` whose box (about
    0.6 em a character, 1.2 em high) overlaps none of the labels placed before it, so that close
    points (trafilatura and readability) keep legible labels; the first offset where all overlap."""
    ax.autoscale_view()
    scale = 72 / ax.figure.dpi  # display pixels to points
    at = ax.transData.transform(np.column_stack([xs, ys])) * scale
    placed: list[tuple[float, float, float, float]] = []
    for i in np.lexsort((at[:, 0], -at[:, 1])).tolist():  # top to bottom, left to right
        width, height = 0.6 * fontsize * len(names[i]), 1.2 * fontsize
        boxes = [(at[i, 0] + dx, at[i, 1] + dy, width, height) for dx, dy in LABEL_OFFSETS]
        free = [k for k, b in enumerate(boxes) if not any(_overlap(b, other) for other in placed)]
        k = free[0] if free else 0
        placed.append(boxes[k])
        ax.annotate(names[i], (xs[i], ys[i]), fontsize=fontsize, xytext=LABEL_OFFSETS[k], textcoords="offset points")


def _overlap(a: tuple[float, float, float, float], b: tuple[float, float, float, float]) -> bool:
    """Whether two boxes (left, bottom, width, height) overlap."""
    return a[0] < b[0] + b[2] and b[0] < a[0] + a[2] and a[1] < b[1] + b[3] and b[1] < a[1] + a[3]


def speed_quality(runs: pd.DataFrame) -> plt.Figure:
    """Mean ms per page (log scale) against mean token F1 over the datasets' test pages, one point
    per extractor, the Pareto front drawn. Every point averages the same datasets: those of the
    set of datasets that covers the most (extractor, dataset) runs, drawing the extractors run on
    all of them. The bounds (the oracle reads the gold) are drawn hollow and kept off the front:
    no extractor can reach the oracle's point, so the front would end there."""
    _require(runs, "runs of the extractors on the datasets")
    covered = runs.dropna(subset=["token.f1", "ms_per_page"]).groupby("extractor")["dataset"].apply(frozenset)
    _require(covered.to_frame(), "token F1 and ms per page of the extractors")
    common = max(set(covered), key=lambda d: (len(d) * sum(d <= c for c in covered), len(d), sorted(d)))
    chosen = [name for name, datasets in covered.items() if common <= datasets]
    part = runs[runs["extractor"].isin(chosen) & runs["dataset"].isin(common)]
    points = part.groupby("extractor")[["ms_per_page", "token.f1"]].mean()
    ms, f1 = points["ms_per_page"].to_numpy(float), points["token.f1"].to_numpy(float)
    bound = points.index.isin(BOUNDS)
    fig, ax = plt.subplots(figsize=(7.5, 5))
    ax.scatter(ms[~bound], f1[~bound], s=16)
    ax.scatter(ms[bound], f1[bound], s=16, facecolors="none", edgecolors="grey", label="bounds (not ranked)")
    front = np.flatnonzero(~bound)[pareto_front(ms[~bound], f1[~bound])]
    ax.step(ms[front], f1[front], where="post", color="tab:red", lw=1.2, label="Pareto front")
    ax.set_xscale("log")
    _label_points(ax, list(points.index), ms, f1)
    ax.xaxis.set_major_formatter(matplotlib.ticker.FormatStrFormatter("%g"))
    ax.set_xlabel("ms per page, one process (log scale; mean over the datasets)")
    ax.set_ylabel("mean token F1 over the datasets' test pages")
    ordered = sorted(common, key=lambda d: (DATASET_ORDER.index(d) if d in DATASET_ORDER else 99, d))
    ax.set_title(f"Speed against quality ({', '.join(ordered)})", fontsize=9)
    ax.grid(alpha=0.3, which="both")
    ax.legend(loc="lower right")
    fig.tight_layout()
    return fig


def web2text_lambda(runs: pd.DataFrame) -> plt.Figure:
    """Web2Text's block F1 against the pairwise weight lambda, one line per split."""
    runs = runs[runs["extractor"].str.startswith("web2text")]
    _require(runs, "web2text runs sweeping extractor.lambda_pairwise")
    fig, ax = plt.subplots(figsize=(6, 4))
    for (dataset, split), part in runs.groupby(["dataset", "split"]):
        part = part.assign(lam=part["param.lambda_pairwise"].astype(float)).sort_values("lam")
        ax.plot(part["lam"], part["block.f1"], marker="o", label=f"{dataset} / {split}")
    ax.set_xlabel("pairwise weight lambda (0 = unary only)")
    ax.set_ylabel("block F1")
    ax.legend(title="dataset / split")
    ax.grid(alpha=0.3)
    fig.tight_layout()
    return fig


def score_distributions(runs: pd.DataFrame) -> plt.Figure:
    """Per-page CleanEval score distributions per extractor (box plots), one panel per dataset."""
    _require(runs, "runs of the extractors on cleaneval and l3s_gn1")
    datasets = sorted(runs["dataset"].unique())
    fig, axes = plt.subplots(len(datasets), 1, figsize=(9, 3.8 * len(datasets)), squeeze=False)
    for ax, dataset in zip(axes[:, 0], datasets, strict=True):
        part = runs[runs["dataset"] == dataset].sort_values("block.f1")
        data = [run_pages(r)["cleaneval"].astype(float).to_numpy() for _, r in part.iterrows()]
        ax.boxplot(data, vert=False, showfliers=False)
        ax.set_yticks(range(1, len(part) + 1), part["extractor"])
        ax.set_xlabel("CleanEval score per page (boxes: quartiles and median; whiskers: 1.5 IQR)")
        ax.set_title(dataset)
        ax.grid(axis="x", alpha=0.3)
    fig.tight_layout()
    return fig


def _cliques(ranks: np.ndarray, cd: float) -> list[tuple[int, int]]:
    """Maximal runs of methods (indices into ascending ``ranks``) whose ranks differ by less than
    the critical difference: the groups a critical-difference diagram joins with a bar."""
    found: list[tuple[int, int]] = []
    for i in range(len(ranks)):
        j = int(np.searchsorted(ranks, ranks[i] + cd, side="left")) - 1
        if j > i and not any(a <= i and j <= b for a, b in found):
            found.append((i, j))
    return found


def critical_difference(runs: pd.DataFrame, metric: str = "token.f1") -> plt.Figure:
    """Demšar's (2006) critical-difference diagram: each extractor's average rank of ``metric``
    over the datasets (one run per extractor and dataset), the Friedman test, and bars joining
    extractors whose average ranks differ by less than the Nemenyi critical difference (not
    significantly different at alpha = 0.05). Extractors without a run on every dataset are left
    out (named in the title)."""
    _require(runs, "runs of the extractors on the datasets (the table runs)")
    runs = runs[~runs["extractor"].isin(BOUNDS)]  # the oracle and all_text bound the task; they are not ranked
    table = runs.pivot_table(index="dataset", columns="extractor", values=metric, aggfunc="last")
    complete = table.dropna(axis="columns")
    left_out = sorted(set(table.columns) - set(complete.columns))
    if complete.shape[0] < 2 or complete.shape[1] < 3:
        raise MissingRuns(f"at least 3 extractors with runs on at least 2 datasets ({metric})")
    result = friedman(complete.to_numpy())
    ranks = average_ranks(complete.to_numpy(), higher_is_better=True)
    order = np.argsort(ranks, kind="stable")
    names, ranks = [str(complete.columns[i]) for i in order], ranks[order]
    k = len(names)
    half = (k + 1) // 2
    fig, ax = plt.subplots(figsize=(9, 1.6 + 0.3 * half))
    ax.set_xlim(0.5, k + 0.5)
    ax.set_ylim(-(half + 1.5), 1.6)
    ax.axis("off")
    ax.hlines(0, 1, k, color="black", linewidth=1)
    for tick in range(1, k + 1):
        ax.vlines(tick, 0, 0.15, color="black", linewidth=1)
        ax.text(tick, 0.3, str(tick), ha="center", va="bottom", fontsize=8)
    for n, (name, rank) in enumerate(zip(names, ranks, strict=True)):
        row = -(n % half if n < half else k - 1 - n) - 1.2
        left = n < half
        end = 0.5 if left else k + 0.5
        ax.plot([rank, rank, end], [0, row, row], color="black", linewidth=0.8)
        label = f"{name} ({rank:.2f})" if left else f"({rank:.2f}) {name}"
        ax.text(end + (-0.05 if left else 0.05), row, label, ha="right" if left else "left", va="center", fontsize=8)
    for depth, (i, j) in enumerate(_cliques(ranks, result.critical_difference)):
        y = -0.35 - 0.18 * depth
        ax.plot([ranks[i] - 0.03, ranks[j] + 0.03], [y, y], color="tab:red", linewidth=3, solid_capstyle="round")
    cd_end = min(1 + result.critical_difference, k)
    ax.plot([1, cd_end], [1.0, 1.0], color="tab:red", linewidth=1.5)
    ax.text((1 + cd_end) / 2, 1.05, f"CD = {result.critical_difference:.2f}", ha="center", va="bottom", fontsize=8)
    title = (
        f"Average rank of {metric} over {result.n_datasets} datasets ({', '.join(complete.index)}); "
        f"Friedman chi2 = {result.statistic:.2f}, p = {result.pvalue:.3g}; Nemenyi CD at alpha 0.05"
    )
    if left_out:
        title += f"\nleft out (no run on every dataset): {', '.join(left_out)}"
    ax.set_title(title, fontsize=8)
    fig.tight_layout()
    return fig
