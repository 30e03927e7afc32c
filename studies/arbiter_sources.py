"""The arbiter's selector on a source it has never seen: fitted on the headline fit's rows of every
training source but one, and scored on the pages of the one left out.

The shipped selector chooses its threshold on out-of-fold rows grouped by site, so every figure
it reads comes from sources it was trained on. The pages it will meet come from other sources and
languages. Leaving one of the mixture's five sources out at a time (CleanEval, Dragnet, WCXB, DANIEL,
magic-html-bench) asks what the selector's choices are worth there. Each selector setting of
:data:`VARIANTS` is fitted as the arbiter fits it (rows weighted as the mixture repeats its pages, the
threshold chosen on the rows' out-of-fold probabilities by site) on the other sources' rows and
applied to the held-out source's distinct pages. Printed per source and setting: the mean token-F1
gain of the choices over the fast stack's extraction, with its page-bootstrap 95 % interval, the
pages sent to Readability, the threshold, and, beside them, the gain of the same setting fitted on
every source (out of fold by site: the figure the arbiter's own fit reads) and the oracle's.

Only the selector is left out: the rows' stack extractions come from stacks whose training held
the source's other pages, as the arbiter's own rows do.

    python -m studies.arbiter_rows --headline --out ../runs/arbiter_headline
    python -m studies.arbiter_sources --rows ../runs/arbiter_headline
"""

from __future__ import annotations

import argparse
import gzip
import json
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from benchmarks.common import run_main
from boilerbench.datasets.base import group_folds
from boilerbench.evaluation.stats import bootstrap_intervals
from boilerbench.extractors.arbiter import THRESHOLDS, Selector, best_threshold
from studies.arbiter_structure import FEATURE_SETS, structure_row

#: A selector's training rows: features, gains, site groups and sources.
Training = tuple[np.ndarray, np.ndarray, list[str], np.ndarray]


def gain_curve(probability: np.ndarray, gain: np.ndarray) -> np.ndarray:
    """The rows' mean gain when the alternative is taken above each candidate threshold."""
    return np.array([np.where(probability > t, gain, 0.0).mean() for t in THRESHOLDS])


def curve_threshold(curve: np.ndarray, allowed: np.ndarray | None = None) -> float:
    """The candidate of ``curve``'s largest gain among the ``allowed`` ones (all by default), the
    highest on a tie: the rule of :func:`~boilerbench.extractors.arbiter.best_threshold`, which
    takes one fit's probabilities, on a curve already computed (reshaping that function would
    change the code version of ``arbiter.py``, which keys every fitted arbiter)."""
    allowed = np.ones(len(curve), bool) if allowed is None else allowed
    best = curve[allowed].max()
    return max(t for t, g, ok in zip(THRESHOLDS, curve, allowed, strict=True) if ok and g >= best - 1e-12)


def one_se_threshold(probability: np.ndarray, gain: np.ndarray, groups: list[str]) -> float:
    """The highest candidate whose mean gain is within one standard error of the best one's, the
    error clustered by site group (a site's rows share its template; the ratio estimator's
    variance of the mean of per-row gains summed per group)."""
    curve = gain_curve(probability, gain)
    best = int(np.argmax(curve))
    taken = np.where(probability > THRESHOLDS[best], gain, 0.0)
    labels, index = np.unique(groups, return_inverse=True)
    sums, sizes = np.bincount(index, taken), np.bincount(index)
    n, k = len(gain), len(labels)
    error = np.sqrt(k / (k - 1) * np.sum((sums - sizes * curve[best]) ** 2)) / n if k > 1 else 0.0
    return max(t for t, g in zip(THRESHOLDS, curve, strict=True) if g >= curve[best] - error)


@dataclass(frozen=True)
class Setting:
    """A selector setting: LightGBM parameters over the shipped ones, boosting rounds, how many
    leading columns of the arbiter's features it reads (:data:`FEATURE_SETS`), and the page types
    (the stack's prediction) whose pages it may send on (None: every page; it learns from those
    pages' rows only); with ``agreement``, a page's probability is the lowest of the selectors
    fitted with one training source left out each (a choice must hold without any one source);
    with ``every_source``, the threshold is chosen among those at which no training source loses,
    with ``one_se`` as the highest within one standard error of the best (:meth:`threshold`)."""

    params: dict = field(default_factory=dict)
    rounds: int = Selector.ROUNDS
    columns: int = FEATURE_SETS["structure"]
    types: frozenset[str] | None = None
    agreement: bool = False
    every_source: bool = False
    one_se: bool = False

    def may_send(self, row: dict) -> bool:
        return not row["alternative_empty"] and (self.types is None or row["page_type"] in self.types)

    def fit(
        self, X: np.ndarray, gain: np.ndarray, sources: np.ndarray, seed: int
    ) -> Callable[[np.ndarray], np.ndarray]:
        """The fitted selector's probability function."""
        selector = type(
            "VariantSelector", (Selector,), {"PARAMS": {**Selector.PARAMS, **self.params}, "ROUNDS": self.rounds}
        )
        if not self.agreement or len(set(sources)) < 2:
            return selector.fit(X, gain, seed).probability
        fitted = [selector.fit(X[sources != s], gain[sources != s], seed) for s in sorted(set(sources))]
        return lambda Z: np.min([f.probability(Z) for f in fitted], axis=0)

    def threshold(self, probability: np.ndarray, rows: Training) -> float:
        """The arbiter's threshold over ``rows`` (:func:`best_threshold`: the candidate of the
        largest mean gain of the out-of-fold choices); with ``one_se``, :func:`one_se_threshold`;
        with ``every_source``, the candidate of the largest mean gain among those at which no
        source's rows lose on average (issue 29 allows no headline dataset a loss), the highest
        candidate where none is."""
        _, gain, groups, sources = rows
        if self.one_se:
            return one_se_threshold(probability, gain, groups)
        if not self.every_source:
            return best_threshold(probability, gain)
        safe = np.array(
            [
                all(np.where(probability > t, gain, 0.0)[sources == s].mean() >= 0.0 for s in set(sources))
                for t in THRESHOLDS
            ]
        )
        return curve_threshold(gain_curve(probability, gain), safe) if safe.any() else THRESHOLDS[-1]


#: The settings compared: the shipped selector; one more regularised (fewer and larger leaves,
#: half the rounds); one that reads the extractions' features only (the structure features
#: were chosen on rows of the training sources, by site); one that may send on only the pages
#: the stack takes for articles (Readability looks for one article); one whose choices must hold
#: without any one training source; one whose threshold no training source loses at; one whose
#: threshold is the highest within one standard error of the best (studies.arbiter_threshold).
VARIANTS: dict[str, Setting] = {
    "shipped": Setting(),
    "regularised": Setting({"num_leaves": 4, "min_data_in_leaf": 60}, rounds=50),
    "extraction features only": Setting(columns=FEATURE_SETS["extractions"]),
    "articles only": Setting(types=frozenset({"article"})),
    "agreement without each source": Setting(agreement=True),
    "no source loses": Setting(every_source=True),
    "one standard error": Setting(one_se=True),
}


def read_rows(folder: Path) -> list[dict]:
    """The headline fit's rows (``fold0.jsonl.gz``)."""
    with gzip.open(folder / "fold0.jsonl.gz", "rt", encoding="utf-8") as handle:
        return [json.loads(line) for line in handle]


def out_of_fold(setting: Setting, rows: Training, seed: int) -> np.ndarray:
    """Each row's probability from ``setting``'s selector fitted on the other fold's rows (two folds
    by site, as the arbiter chooses its threshold)."""
    X, gain, groups, sources = rows
    probability = np.zeros(len(gain))
    for held in group_folds(groups, min(2, len(set(groups))), seed):
        rest = np.setdiff1d(np.arange(len(gain)), held)
        probability[held] = setting.fit(X[rest], gain[rest], sources[rest], seed)(X[held])
    return probability


def chosen_gain(rows: list[dict], probability: np.ndarray, cut: float, setting: Setting) -> np.ndarray:
    """Each page's gain over the stack when the pages above ``cut`` that ``setting`` may send go to
    the alternative (none where the alternative's text is empty: the arbiter keeps the stack's)."""
    gain = np.array([r["f1_alternative"] - r["f1_base"] for r in rows])
    sent = (probability > cut) & np.array([setting.may_send(r) for r in rows])
    return np.where(sent, gain, 0.0)


def features(rows: list[dict], setting: Setting) -> np.ndarray:
    """The rows' features that ``setting`` reads."""
    return np.array([structure_row(r)[: setting.columns] for r in rows])


def training(rows: list[dict], setting: Setting) -> Training:
    """The selector's rows as the arbiter fits them: each page as often as the mixture holds it,
    pages ``setting`` may not send on (the alternative's text empty) left out."""
    kept = [r for r in rows if setting.may_send(r) for _ in range(r["count"])]
    X = features(kept, setting)
    gain = np.array([r["f1_alternative"] - r["f1_base"] for r in kept])
    return X, gain, [r["group"] for r in kept], np.array([r["source"] for r in kept])


def held_out_gain(rows: list[dict], source: str, setting: Setting, seed: int) -> tuple[np.ndarray, float]:
    """Per distinct page of ``source``: its gain under the selector fitted on the other sources'
    rows, and the threshold chosen on them."""
    train = training([r for r in rows if r["source"] != source], setting)
    cut = setting.threshold(out_of_fold(setting, train, seed), train)
    probability = setting.fit(train[0], train[1], train[3], seed)
    mine = distinct([r for r in rows if r["source"] == source])
    return chosen_gain(mine, probability(features(mine, setting)), cut, setting), cut


def in_source_gain(rows: list[dict], setting: Setting, seed: int) -> dict[str, np.ndarray]:
    """Per source, its distinct pages' gain under the selector fitted on every source's rows out
    of fold by site (two folds, as the arbiter chooses its threshold), at the threshold chosen there."""
    train = training(rows, setting)
    probability = out_of_fold(setting, train, seed)
    cut = setting.threshold(probability, train)
    kept = [r for r in rows if setting.may_send(r) for _ in range(r["count"])]
    page_probability = {(r["source"], r["id"], r["part"]): p for r, p in zip(kept, probability, strict=True)}
    by_source: dict[str, np.ndarray] = {}
    for source in sorted({r["source"] for r in rows}):
        mine = distinct([r for r in rows if r["source"] == source])
        p = np.array([page_probability.get((r["source"], r["id"], r["part"]), 0.0) for r in mine])
        by_source[source] = chosen_gain(mine, p, cut, setting)
    return by_source


def distinct(rows: list[dict]) -> list[dict]:
    """One row per page (the out-of-fold row where a page has two)."""
    seen: dict[str, dict] = {}
    for r in sorted(rows, key=lambda r: r["part"] != "oof"):
        seen.setdefault(r["id"], r)
    return list(seen.values())


def cell(values: np.ndarray) -> str:
    """The pages' mean gain, its page-bootstrap 95 % interval and how many pages it moved."""
    n = len(values)
    low, high = bootstrap_intervals(values[:, None], ["gain"], {"mean": lambda sums: sums["gain"] / n})["mean"]
    return f"{values.mean():+.4f} [{low:+.4f}, {high:+.4f}] ({int(np.count_nonzero(values))} moved)"


def report(rows: list[dict], seed: int) -> None:
    """The table of the module's docstring, one block per setting."""
    rows = [r for r in rows if r["part"] != "test"]
    sources = sorted({r["source"] for r in rows})
    for name, setting in VARIANTS.items():
        inside = in_source_gain(rows, setting, seed)
        print(f"\n== {name}")
        print(f"{'source':>12} {'pages':>5} {'oracle':>8}  {'held out (threshold)':<48} in source")
        left_out: list[np.ndarray] = []
        for source in sources:
            mine = distinct([r for r in rows if r["source"] == source])
            gain = np.array([r["f1_alternative"] - r["f1_base"] for r in mine])
            oracle = float(np.maximum(gain, 0.0).mean())
            values, cut = held_out_gain(rows, source, setting, seed)
            left_out.append(values)
            print(
                f"{source:>12} {len(mine):5d} {oracle:+8.4f}  {cell(values) + f' ({cut})':<48} {cell(inside[source])}"
            )
        print(
            f"{'mean of sources':>18}: held out {np.mean([v.mean() for v in left_out]):+.4f}, "
            f"in source {np.mean([v.mean() for v in inside.values()]):+.4f}"
        )


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rows", type=Path, required=True, help="the folder studies.arbiter_rows --headline wrote")
    parser.add_argument(
        "--seed", type=int, default=0, help="the selector's and the inner folds' seed (the arbiter's: 0)"
    )
    args = parser.parse_args(argv)
    report(read_rows(args.rows), args.seed)
    return 0


if __name__ == "__main__":
    run_main(main)
