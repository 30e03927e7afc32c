"""The stack's page-type classifier, read from runs: accuracy, confusion matrix and calibration.

A stack with ``decoding=by_page_type`` records each page's ``predicted_page_type`` (and, since the
classifier's probabilities are recorded, ``page_type_confidence``) in the run's ``pages.csv``,
beside the dataset's ``page_type`` (WCXB's). For each run folder given, this prints the number of
typed pages, the accuracy with its 95 % Wilson interval, the confusion matrix (rows: the gold type,
columns: the predicted one) and, where confidences are there, the expected calibration error over
five equal-width bins of confidence (Guo et al., ICML 2017, eq. 3).

``--by-type RUN_A RUN_B`` instead prints, per page type, the two runs' mean token F1 and word F1 and
their difference (A - B) with its paired page-level bootstrap 95 % interval (1,000 resamples, seed
0; the two runs' pages matched by ``page_id``): the per-type view of ``python -m boilerbench.reports
compare``.

    python -m studies.page_types RUN_DIR [RUN_DIR ...]
    python -m studies.page_types --by-type RUN_A RUN_B
"""

from __future__ import annotations

import csv
import math
from pathlib import Path

import numpy as np

from benchmarks.common import run_main
from boilerbench.errors import ConfigError
from boilerbench.evaluation.stats import percentile_interval, resample_counts
from boilerbench.reports.collect import pages
from boilerbench.reports.page_types import confusion_rows, observed_types, typed_pages

METRICS = ("token_f1", "word_f1")


def read_rows(run: Path) -> list[dict[str, str]]:
    """The rows of a run's ``pages.csv``."""
    path = run / "pages.csv"
    if not path.is_file():
        raise ConfigError(f"{run} holds no pages.csv")
    with open(path, newline="", encoding="utf-8") as f:
        return list(csv.DictReader(f))


def report(run: Path) -> str:
    """The figures of one run, as text (:func:`boilerbench.reports.page_types.confusion_rows`)."""
    typed = typed_pages(pages(run))
    if typed.empty:
        path = run / "pages.csv"
        raise ConfigError(f"{path} has no page with both page_type and predicted_page_type (decoding=by_page_type)")
    types = observed_types(typed)
    *by_gold, overall = confusion_rows(typed, types)
    interval = f"[{overall['low']:.3f}, {overall['high']:.3f}]"
    lines = [f"{run}: {overall['pages']} pages, accuracy {overall['recall']:.3f} {interval}"]
    if not math.isnan(overall["ece"]):
        confidence = typed["page_type_confidence"].astype(float)
        lines.append(f"  mean confidence {confidence.mean():.3f}, ECE (5 bins) {overall['ece']:.3f}")
    width = max(len(t) for t in types) + 1
    lines.append("  gold \\ predicted".ljust(width + 2) + "".join(t[:6].rjust(7) for t in types) + "  recall")
    for row in by_gold:
        counts = "".join(str(row[t]).rjust(7) for t in types)
        lines.append(f"  {row['gold type']}".ljust(width + 2) + counts + f"{row['recall']:.2f}".rjust(8))
    return "\n".join(lines)


def by_type(run_a: Path, run_b: Path, resamples: int = 1000, seed: int = 0) -> str:
    """Per page type (and over all pages): both runs' mean :data:`METRICS` and their paired
    difference with its bootstrap interval, over the scored pages both runs share."""
    a = {r["page_id"]: r for r in read_rows(run_a) if not r.get("error") and r.get("token_f1")}
    b = {r["page_id"]: r for r in read_rows(run_b) if not r.get("error") and r.get("token_f1")}
    shared = [k for k in a if k in b]
    lines = [f"A = {run_a}, B = {run_b}: {len(shared)} pages"]
    groups = {"ALL": shared}
    for k in shared:
        groups.setdefault(a[k].get("page_type") or "?", []).append(k)
    for name, ids in sorted(groups.items(), key=lambda kv: (kv[0] != "ALL", kv[0])):
        counts = resample_counts(len(ids), resamples, np.random.default_rng(seed)) / len(ids)
        cells = []
        for metric in METRICS:
            va = np.array([float(a[k][metric]) for k in ids])
            vb = np.array([float(b[k][metric]) for k in ids])
            lo, hi = percentile_interval(counts @ (va - vb))
            cells.append(
                f"{metric} {va.mean():.3f} vs {vb.mean():.3f}: {va.mean() - vb.mean():+.3f} [{lo:+.3f}, {hi:+.3f}]"
            )
        lines.append(f"  {name:<14} n={len(ids):<4} " + "   ".join(cells))
    return "\n".join(lines)


def main(argv: list[str]) -> int:
    if argv[:1] == ["--by-type"] and len(argv) == 3:
        print(by_type(Path(argv[1]), Path(argv[2])))
        return 0
    if not argv or argv[0].startswith("-"):
        raise ConfigError("usage: python -m studies.page_types RUN_DIR [RUN_DIR ...] | --by-type RUN_A RUN_B")
    print("\n\n".join(report(Path(a)) for a in argv))
    return 0


if __name__ == "__main__":
    run_main(main)
