"""The arbiter's selector features compared on the rows of DANIEL's site-grouped cross-validation
(``studies.arbiter_rows`` writes them): the extraction features alone, then with the structure
features, without and with the two tag-path shares (:data:`FEATURE_SETS`).

The extraction features (:data:`boilerbench.extractors.arbiter.EXTRACTION_FEATURES`) say how large
the two extractions are and how much they overlap. Where the stack keeps a rail of teasers beside a short
article, or a forum's replies that Readability's single element leaves out, those figures are
alike; what differs is what the extra words are: linked or not, short items repeating one tag path
or a run of paragraphs, before or after the text both keep. :func:`~boilerbench.extractors.arbiter.structure_features`
reads that from the stack's block labels and each block's share of token pairs in the alternative's
text.

Each fold is replayed as the arbiter fits it: the selector on the fold's out-of-fold and validation
rows, the threshold chosen on the same rows (as :func:`~boilerbench.extractors.arbiter.choose_threshold` does),
then applied to the fold's test pages. What is chosen is chosen on the training rows; the test
pages only report. Printed per feature set: the inner figure (the mean token-F1 gain of the chosen
threshold over the training rows, out of fold by site: per source, and averaged over ``--seeds``
seeds of the inner folds, the figure a choice reads, since one seed's folds move it by about
0.001) and the cross-validated token F1 per language, beside the stack's and the alternative's.

    python -m studies.arbiter_structure --rows ../runs/arbiter_rows
"""

from __future__ import annotations

import argparse
import gzip
import json
from collections import Counter, defaultdict
from pathlib import Path

import numpy as np
from hydra import compose, initialize_config_dir

from benchmarks.common import run_main
from boilerbench.configs import CONF_DIR, build
from boilerbench.experiments.protocols import configured_protocol
from boilerbench.extractors.arbiter import (
    EXTRACTION_FEATURES,
    FEATURES,
    STRUCTURE_FEATURES,
    THRESHOLDS,
    Selector,
    best_threshold,
    out_of_fold_probability,
    structure_features,
)
from studies.arbiter_rows import CV_OVERRIDES


def read_rows(folder: Path) -> list[dict]:
    """Every fold's rows (``fold<N>.jsonl.gz``), each with its ``count``: how often the fold's
    training or validation pages hold it (a balanced mixture repeats pages, and the arbiter's
    selector has a row for each time), 1 for a test page."""
    rows = []
    for path in sorted(folder.glob("fold*.jsonl.gz")):
        with gzip.open(path, "rt", encoding="utf-8") as handle:
            rows.extend(json.loads(line) for line in handle)
    counts = page_counts(folder / "counts.json")
    for row in rows:
        row["count"] = 1 if row["part"] == "test" else counts[str(row["fold"])][f"{row['source']}/{row['id']}"]
    return rows


def page_counts(path: Path) -> dict[str, dict[str, int]]:
    """Per fold, how often its training and validation pages hold each page (``source/id``), from
    the cross-validation's plan (written to ``path`` once: reading the mixture takes minutes)."""
    if path.is_file():
        return json.loads(path.read_text(encoding="utf-8"))
    with initialize_config_dir(config_dir=str(CONF_DIR), version_base="1.3"):
        cfg = compose("config", overrides=CV_OVERRIDES)
    split = build(cfg.dataset).load()
    plan = configured_protocol(cfg).resolve(cfg, split, True).plan(cfg, split)
    counts = {
        str(fit.fold): dict(
            Counter(f"{p.source}/{p.id}" for p in (*fit.training.train, *fit.training.validation) if not p.load_error)
        )
        for fit in plan.fits
    }
    path.write_text(json.dumps(counts), encoding="utf-8")
    return counts


def extraction_row(row: dict) -> np.ndarray:
    """The arbiter's own features of a row (None, a missing value, as NaN)."""
    return np.array([np.nan if x is None else x for x in row["features"]], dtype=np.float64)


def structure_row(row: dict) -> np.ndarray:
    """The arbiter's features and :func:`structure_features`."""
    arrays = [np.asarray(row[k]) for k in ("words", "label", "link", "cover", "path")]
    if not len(arrays[1]):
        return np.concatenate([extraction_row(row), np.full(len(STRUCTURE_FEATURES), np.nan)])
    return np.concatenate([extraction_row(row), structure_features(*arrays)])


#: The feature sets compared, each the leading columns of :func:`structure_row`: the extractions'
#: features, then the structure features without and with the two tag-path shares.
FEATURE_SETS: dict[str, int] = {
    "extractions": len(EXTRACTION_FEATURES),
    "structure without the path shares": FEATURES.index("extra_covered_path_share"),
    "structure": len(FEATURES),
}


def report(rows: list[dict], seeds: int) -> None:
    """Per feature set: the inner gain (its mean over ``seeds`` seeds of the inner folds is what
    the choice reads; seed 0, the arbiter's own, per source), then the CV token F1 per language."""
    folds = sorted({r["fold"] for r in rows})
    for name, columns in FEATURE_SETS.items():
        by_source: dict[str, list[float]] = defaultdict(list)
        by_seed: dict[int, list[float]] = defaultdict(list)
        chosen_f1: dict[str, list[float]] = defaultdict(list)
        thresholds = []

        def featurise(row: dict, columns: int = columns) -> np.ndarray:
            return structure_row(row)[:columns]

        for fold in folds:
            train = [
                r
                for r in rows
                if r["fold"] == fold and r["part"] != "test" and not r["alternative_empty"]
                for _ in range(r["count"])
            ]
            test = [r for r in rows if r["fold"] == fold and r["part"] == "test"]
            X = np.array([featurise(r) for r in train])
            gain = np.array([r["f1_alternative"] - r["f1_base"] for r in train])
            groups = [r["group"] for r in train]
            for seed in range(seeds):
                probability = out_of_fold_probability(X, gain, groups, 2, seed)
                cut = best_threshold(probability, gain)
                chosen = np.where(probability > cut, gain, 0.0)
                by_seed[seed].extend(chosen)
                if seed == 0:
                    threshold = cut
                    thresholds.append(cut)
                    for r, g in zip(train, chosen, strict=True):
                        by_source[r["source"]].append(g)
            selector = Selector.fit(X, gain, 0)
            p = selector.probability(np.array([featurise(r) for r in test]))
            for r, prob in zip(test, p, strict=True):
                alternative = prob > threshold and not r["alternative_empty"]
                f1 = r["f1_alternative"] if alternative else r["f1_base"]
                for key in (r["language"], "all"):
                    chosen_f1[key].append(f1)
                    chosen_f1[f"{key}:sent"].append(float(alternative))
        print(f"\n== {name}: thresholds {thresholds}")
        everything = [g for v in by_source.values() for g in v]
        print(f"inner mean gain, all {len(everything)} training rows: {np.mean(everything):+.5f}")
        per_seed = [float(np.mean(by_seed[seed])) for seed in range(seeds)]
        print(
            f"inner mean gain over {seeds} seeds of the inner folds: {np.mean(per_seed):+.5f} "
            f"({' '.join(f'{g:+.5f}' for g in per_seed)})"
        )
        print(
            "inner mean gain per source (out of fold by site): "
            + ", ".join(f"{s} {np.mean(v):+.4f}" for s, v in sorted(by_source.items()))
        )
        print(f"{'':>6} {'chosen':>8} {'stack':>8} {'alt':>8} {'sent':>5}")
        test_rows = [r for r in rows if r["part"] == "test"]
        for key in sorted({r["language"] for r in test_rows}) + ["all"]:
            mine = [r for r in test_rows if key in (r["language"], "all")]
            base = np.mean([r["f1_base"] for r in mine])
            alt = np.mean([r["f1_alternative"] for r in mine])
            sent = int(sum(chosen_f1[f"{key}:sent"]))
            print(f"{key:>6} {np.mean(chosen_f1[key]):8.4f} {base:8.4f} {alt:8.4f} {sent:5d}")


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rows", type=Path, required=True, help="the folder studies.arbiter_rows wrote")
    parser.add_argument("--seeds", type=int, default=5, help="seeds of the inner folds the choice averages")
    args = parser.parse_args(argv)
    if args.seeds < 1:
        parser.error(f"--seeds={args.seeds} must be 1 or more")
    rows = read_rows(args.rows)
    print(f"{len(rows)} rows; thresholds from {THRESHOLDS}")
    report(rows, args.seeds)
    return 0


if __name__ == "__main__":
    run_main(main)
