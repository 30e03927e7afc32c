"""``python -m boilerbench.reports compare RUN_A RUN_B [RUN_C ...]``: paired comparisons of runs over the
same pages. For every pair and every figure both runs can recompute from ``pages.csv``: both
values, the difference (first minus second), its paired page-bootstrap 95 % interval and its
paired approximate-randomization p-value; with more than two runs, also the p-value
Holm-corrected over the pairs."""

from __future__ import annotations

import argparse
import itertools
import sys
from pathlib import Path

import numpy as np
import pandas as pd

from boilerbench.atomic import atomic_write_text
from boilerbench.evaluation.aggregates import CI_SUFFIX
from boilerbench.evaluation.stats import holm
from boilerbench.experiments.results import Run, RunFileError
from boilerbench.reports.significance import (
    PERMUTATIONS,
    RESAMPLES,
    PageSetMismatch,
    align,
    compare_pair,
    figure_key,
    has_columns,
)


def comparable_metrics(runs: list[Run]) -> list[str]:
    """The figures of the first run's summary that every run's page rows can recompute."""
    metrics = []
    for group, values in runs[0].summary.get("metrics", {}).items():
        for name, value in values.items():
            if name.endswith(CI_SUFFIX) or not isinstance(value, int | float):
                continue
            metric = f"{group}.{name}"
            if all(has_columns(run.pages, figure_key(metric)) for run in runs):
                metrics.append(metric)
    return metrics


def run_names(runs: list[Run]) -> list[str]:
    """Each run's extractor, with its folder where two runs share an extractor."""
    labels = [r.label for r in runs]
    return [f"{label} ({r.path})" if labels.count(label) > 1 else label for label, r in zip(labels, runs, strict=True)]


def compare_runs(
    paths: list[str], metrics: list[str] | None, resamples: int, permutations: int, seed: int
) -> pd.DataFrame:
    """One row per (pair, metric): the values, difference, interval and p-values."""
    runs = [Run(Path(p)) for p in paths]
    names = run_names(runs)
    frames = align([r.pages for r in runs], names)
    metrics = metrics or comparable_metrics(runs)
    missing = [m for m in metrics if not all(has_columns(f, figure_key(m)) for f in frames)]
    if missing:
        raise RunFileError(f"the runs' pages.csv lack the columns of: {', '.join(missing)}")
    rows = []
    for (i, a), (j, b) in itertools.combinations(enumerate(frames), 2):
        for d in compare_pair(a, b, metrics, resamples=resamples, permutations=permutations, seed=seed):
            rows.append(
                {
                    "a": names[i],
                    "b": names[j],
                    "metric": d.metric,
                    "value_a": d.a,
                    "value_b": d.b,
                    "difference": d.difference,
                    "ci95_lo": d.lo,
                    "ci95_hi": d.hi,
                    "p": d.pvalue,
                }
            )
    table = pd.DataFrame(rows)
    table["p_holm"] = np.nan
    for _, part in table.groupby("metric"):
        table.loc[part.index, "p_holm"] = holm(list(part["p"]))
    table.attrs["n_pages"] = len(frames[0])
    return table


def _number(value: float, metric: str) -> str:
    if not np.isfinite(value):
        return "–"
    return f"{value:+.2f}" if metric.startswith("cleaneval.") else f"{value:+.4f}"


def markdown(table: pd.DataFrame, permutations: int) -> str:
    lines = []
    several = table[["a", "b"]].drop_duplicates().shape[0] > 1
    for (a, b), part in table.groupby(["a", "b"], sort=False):
        a, b = str(a), str(b)
        lines += [
            f"### {a} vs {b} ({table.attrs['n_pages']} pages, difference = {a} - {b})",
            "",
            "| metric | " + " | ".join([a, b, "difference", "95 % CI", "p"] + (["p (Holm)"] if several else [])) + " |",
            "|---" * (6 + several) + "|",
        ]
        for _, r in part.iterrows():
            m = r["metric"]
            cells = [
                m,
                _number(r["value_a"], m).lstrip("+"),
                _number(r["value_b"], m).lstrip("+"),
                _number(r["difference"], m),
                f"[{_number(r['ci95_lo'], m)}, {_number(r['ci95_hi'], m)}]",
                f"{r['p']:.4f}",
            ] + ([f"{r['p_holm']:.4f}"] if several else [])
            lines.append("| " + " | ".join(cells) + " |")
        lines.append("")
    lines.append(
        "Intervals: paired page-level bootstrap (percentile); p: two-sided paired approximate "
        f"randomization ({permutations:,} shuffles; the smallest possible p is {1 / (permutations + 1):.5f})."
    )
    return "\n".join(lines) + "\n"


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(prog="boilerbench compare", description=__doc__.splitlines()[0])
    parser.add_argument("runs", nargs="+", help="run folders (each with summary.json and pages.csv)")
    parser.add_argument("--metrics", help="comma-separated figures (block.f1,token.f1); default: all")
    parser.add_argument("--resamples", type=int, default=RESAMPLES, help="bootstrap resamples")
    parser.add_argument("--permutations", type=int, default=PERMUTATIONS, help="randomization shuffles")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--csv", help="also write the comparison as CSV here")
    args = parser.parse_args(argv)
    if len(args.runs) < 2:
        print("error: compare needs at least two run folders", file=sys.stderr)
        return 2
    metrics = args.metrics.split(",") if args.metrics else None
    if metrics and not all("." in m for m in metrics):
        print("error: --metrics names figures as group.name (block.f1, token.f1, cleaneval.mean)", file=sys.stderr)
        return 2
    try:
        table = compare_runs(args.runs, metrics, args.resamples, args.permutations, args.seed)
    except (RunFileError, PageSetMismatch) as err:
        print(f"error: {err}", file=sys.stderr)
        return 2
    print(markdown(table, args.permutations), end="")
    if args.csv:
        atomic_write_text(args.csv, table.to_csv(index=False))
    return 0
