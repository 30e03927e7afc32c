"""A page-level cascade of two fitted stacks, simulated on the validation pages of their training
mixture: the fast stack extracts every page; the pages a router picks go to the accurate stack as
well, whose extraction then replaces it. What each share of pages sent on costs and brings: the
measurement behind the cascade extractor's ``share`` (:mod:`boilerbench.extractors.cascade`,
``conf/extractor/cascade.yaml``), which routes by the ``doubt`` below.

Routers, each sending the same share of pages:

* ``doubt``: the pages the fast stack is least sure of. Its doubt is the share of the page's words
  it would label wrongly if its probabilities were right: ``sum(words * min(p, 1 - p)) / sum(words)``.
* ``doubt/chars^a``: the doubt over a power of the page's size in characters (``a`` of 0.5 and 1),
  what the accurate stack's time grows with: for the same time, more of the cheap pages the fast
  stack doubts. It is known before either stage runs, so a threshold on it is as deterministic as
  one on the doubt.
* ``learned``: gradient-boosted trees predicting the accurate stack's gain in token F1 from the
  fast stack's page signals (:func:`signals`: its doubt, how much it keeps, how unsure and how far
  the second stage moved it, the page's size and the page-type probabilities), five-fold
  cross-validated on these pages (folds stratified by dataset, averaged over five seeds).
* ``doubt/chars^0.5, none sure first``: the shipped score, but a page on which the fast stack is
  sure of no block (no block reaches p >= 0.5: its extraction is only what its page type's
  decoding picks below that, or nothing) goes first, whatever its doubt. The doubt misses such a
  page when most of its words are surely boilerplate: on Scrapinghub's test pages the fast stack
  scored token F1 0.045 on one (doubt 0.065, a third of the threshold's score) that the accurate
  one extracts at 0.89.
* ``perfect``: the pages the accurate stack gains most on (never one it does not gain on): the
  bound of any page-level router at that cost.

For each share the first table gives the cascade's mean token F1, its difference from the accurate
stack's (over all pages, then on each dataset), its mean ms per page (every page pays the fast
stack, the pages sent on pay the accurate one too: its members and features are computed again)
and that time over trafilatura's on the same pages (issue 37's goal 2 allows the most accurate
configuration twice trafilatura's time). Timed end to end from raw HTML (artefact cache off), one
page after another on this process's one core, trafilatura's page timed beside the stacks'; a
page over trafilatura's size limit (an error in its runs) is left out. Validation pages
only: the figures rank settings, they are not test figures (the fits stopped early on them).

The second table spends a time budget instead of a share: the cascade's time at most ``budget``
times trafilatura's on these pages, each router sending its pages in its order (a threshold router
sends every page above its threshold) until the next would overrun it; the perfect router sends the
pages of largest gain per ms of the accurate stack's.

With ``--test D1,D2`` and a fitted cascade (``cascade=FILE``) it reads those datasets' test pages
instead, after the choice: for each dataset, the cascade as fitted (its threshold) against the same
with the pages on which the fast stack is sure of no block sent on too, each beside the accurate
stack alone: what a routing rule chosen on the validation pages gives on the headline datasets.

    BOILERBENCH_DATA=../shared/datasets python -m studies.cascade \\
        fast=models/stack/KEY1 accurate=models/stack/KEY2
    BOILERBENCH_DATA=../shared/datasets python -m studies.cascade cascade=boilerbench/models/accurate.bbmodel
    BOILERBENCH_DATA=../shared/datasets python -m studies.cascade cascade=boilerbench/models/accurate.bbmodel \\
        --test wcxb,cleaneval,dragnet,l3s_gn1,scrapinghub,cleanportaleval,readability_tests
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import lightgbm as lgb
import numpy as np
from sklearn.model_selection import StratifiedKFold

from benchmarks.common import run_main
from boilerbench.cache import set_cache_dir
from boilerbench.errors import ConfigError
from boilerbench.evaluation.token import token_prf
from boilerbench.experiments.model_file import load_model_file
from boilerbench.experiments.runner import build
from boilerbench.extractors.cascade import Cascade, routing_score, sure_share
from boilerbench.extractors.references import Trafilatura
from boilerbench.extractors.stack.model import page_doubt
from studies.stack_validation import load_stack, mixture_datasets

#: The shares of pages sent on.
SHARES = (0.05, 0.1, 0.15, 0.2, 0.25, 0.3, 0.4, 0.5)
#: The powers of the page's size that the size-aware routers divide the doubt by (the cascade's
#: ``size_power``, scored by its own :func:`~boilerbench.extractors.cascade.routing_score`).
SIZE_POWERS = (0.5, 1)
#: The router that sends first the pages on which the fast stack is sure of no block.
NONE_SURE = "doubt/chars^0.5, none sure first"
ROUTERS = ("doubt", *(f"doubt/chars^{a}" for a in SIZE_POWERS), NONE_SURE, "learned", "perfect")
#: The time budgets of the second table: the cascade's time over trafilatura's.
BUDGETS = (1.5, 1.75, 2.0, 2.5)


def signals(stack, page) -> np.ndarray:
    """The fast stack's signals about a page: its doubt (first), the word-weighted mean of its
    probabilities, the shares of words it keeps and of words with 0.2 < p < 0.8, how far its second
    stage moved the first's probabilities, log blocks and words, the share of blocks kept, and the
    page-type classifier's probabilities. "Kept" is p >= 0.5, not the decoding the stack picks for
    the page's type: a router's input, not its extraction."""
    rows = stack._rows(page)
    layout = stack._layout(page)
    types = stack.gate_.probabilities(stack._summary(rows, layout)) if stack.gate_ is not None else np.zeros(0)
    first = stack._predict(stack.model_, rows, stack.compiled_trees)
    p = stack._pool(stack.probabilities(rows, page, layout, types if stack.type_features else None), layout)
    words = layout.words.astype(np.float64)
    total = max(float(words.sum()), 1.0)
    kept = p >= 0.5
    own = [
        page_doubt(p, words),
        words @ p / total,
        sure_share(p, words),
        words[(p > 0.2) & (p < 0.8)].sum() / total,
        words @ np.abs(p - first) / total,
        np.log1p(len(p)),
        np.log1p(total),
        kept.mean() if len(p) else 0.0,
    ]
    return np.concatenate([np.asarray(own, dtype=np.float64), types])


def none_sure(x: np.ndarray) -> np.ndarray:
    """The pages (rows of :func:`signals`) on which the fast stack is sure of no block: no word
    lies in a block of p >= 0.5 (what the cascade's ``send_none_sure`` sends on)."""
    return x[:, 2] <= 0


def learned_scores(x: np.ndarray, gain: np.ndarray, groups: np.ndarray, seeds: int = 5) -> np.ndarray:
    """Each page's predicted gain from trees fitted on the other folds (five folds stratified by
    ``groups``), averaged over ``seeds`` shufflings."""
    scores = np.zeros(len(gain))
    for seed in range(seeds):
        for train, test in StratifiedKFold(5, shuffle=True, random_state=seed).split(x, groups):
            trees = lgb.LGBMRegressor(
                n_estimators=200,
                learning_rate=0.03,
                num_leaves=7,
                min_child_samples=10,
                subsample=0.8,
                subsample_freq=1,
                colsample_bytree=0.8,
                random_state=seed,
                verbose=-1,
            )
            scores[test] += trees.fit(x[train], gain[train]).predict(x[test]) / seeds
    return scores


def route(scores: np.ndarray, count: int, gain: np.ndarray | None = None) -> np.ndarray:
    """The ``count`` pages of highest ``scores``; with ``gain`` (the perfect router), never one
    whose gain is not positive."""
    sent = np.zeros(len(scores), dtype=bool)
    sent[np.argsort(-scores, kind="stable")[:count]] = True
    return sent & (gain > 0) if gain is not None else sent


def within_budget(scores: np.ndarray, cost: np.ndarray, budget: float, gain: np.ndarray | None = None) -> np.ndarray:
    """The pages of highest ``scores`` taken in that order while their summed ``cost`` stays within
    ``budget``: the longest such run, as a threshold on the scores would send them; with ``gain``
    (the perfect router), only pages whose gain is positive are in the order."""
    order = np.argsort(-scores, kind="stable")
    if gain is not None:
        order = order[gain[order] > 0]
    taken = int(np.searchsorted(np.cumsum(cost[order]), budget, side="right"))
    sent = np.zeros(len(scores), dtype=bool)
    sent[order[:taken]] = True
    return sent


def timed_f1(extractor, page) -> tuple[float, float]:
    """The token F1 of ``extractor`` on ``page`` and its ms (the page segmented again: from raw HTML)."""
    page.release()
    start = time.perf_counter()
    text = extractor.extract(page).text
    ms = 1000 * (time.perf_counter() - start)
    return token_prf(text, page.gold_text, page.tokenizer).f1, ms


def stages(given: dict[str, str]) -> tuple:
    """The fast and accurate stacks and the cascade (None when given as two stacks): fitted model
    folders by stage, or a fitted cascade's model file."""
    if set(given) == {"cascade"}:
        cascade, _ = load_model_file(given["cascade"])
        if not isinstance(cascade, Cascade):
            raise ConfigError(f"{given['cascade']} holds no cascade")
        return cascade.fast, cascade.accurate, cascade
    if set(given) != {"fast", "accurate"}:
        raise ConfigError("give fast=DIR accurate=DIR, or cascade=FILE")
    return load_stack(Path(given["fast"])), load_stack(Path(given["accurate"])), None


def measure(fast, accurate, datasets: dict, part: str) -> dict[str, np.ndarray]:
    """Each page of ``part`` (``validation`` or ``test``) of the ``datasets`` (configs by name):
    the fast stack's :func:`signals`, both stacks' token F1 and ms and trafilatura's ms, the
    page's dataset and its size in characters. A page over trafilatura's size limit (an error in
    its runs, not a timing) is left out."""
    reference = Trafilatura()
    limit = reference.max_html_chars or sys.maxsize
    pages, rows, names, chars = [], [], [], []
    for name, node in datasets.items():
        for page in (p for p in getattr(build(node).load(), part) if not p.load_error and len(p.html) <= limit):
            pages.append(signals(fast, page))
            rows.append((*timed_f1(fast, page), *timed_f1(accurate, page), timed_f1(reference, page)[1]))
            names.append(name)
            chars.append(len(page.html))
            page.release()
    columns = ("f1_fast", "ms_fast", "f1_accurate", "ms_accurate", "ms_reference")
    measured = {c: np.array(v) for c, v in zip(columns, zip(*rows, strict=True), strict=True)}
    return {"x": np.array(pages), "dataset": np.array(names), "chars": np.array(chars), **measured}


def on_test_pages(cascade: Cascade, m: dict[str, np.ndarray]) -> None:
    """Per dataset, the fitted cascade's routing and the same with the pages on which the fast
    stack is sure of no block sent on too: pages sent, token F1 beside the accurate stack's, and
    time over trafilatura's."""
    scores = np.array([routing_score(d, c, cascade.size_power) for d, c in zip(m["x"][:, 0], m["chars"], strict=True)])
    routings = {"as fitted": scores > cascade.threshold_}
    routings["none sure sent too"] = routings["as fitted"] | none_sure(m["x"])
    print(
        "| dataset | pages | none sure | accurate alone | "
        + " | ".join(f"{r}: sent, token F1, − accurate, × trafilatura" for r in routings)
        + " |"
    )
    print("|" + "---|" * (4 + len(routings)))
    for name in dict.fromkeys(m["dataset"]):
        on = m["dataset"] == name
        accurate = m["f1_accurate"][on].mean()
        cells = []
        for sent in routings.values():
            f1 = np.where(sent, m["f1_accurate"], m["f1_fast"])[on].mean()
            ms = (m["ms_fast"] + np.where(sent, m["ms_accurate"], 0.0))[on].sum()
            cells.append(f"{sent[on].sum()}, {f1:.4f}, {f1 - accurate:+.4f}, {ms / m['ms_reference'][on].sum():.2f}")
        print(f"| {name} | {on.sum()} | {none_sure(m['x'][on]).sum()} | {accurate:.4f} | {' | '.join(cells)} |")


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "stacks", nargs="+", help="fast=DIR accurate=DIR (fitted stacks' model folders), or cascade=FILE"
    )
    parser.add_argument("--pages", type=Path, help="also write each page's figures (token F1, ms, scores) to this .npz")
    parser.add_argument("--test", help="datasets (comma-separated) whose test pages to read instead (cascade=FILE)")
    args = parser.parse_args(argv)
    set_cache_dir(None)
    fast, accurate, cascade = stages(dict(s.split("=", 1) for s in args.stacks if "=" in s))
    if args.test and cascade is None:
        raise ConfigError("--test reads a fitted cascade's routing: give cascade=FILE")
    part = "test" if args.test else "validation"
    m = measure(fast, accurate, mixture_datasets(args.test.split(",") if args.test else None), part)
    if args.pages:
        np.savez(args.pages, **m)
    if args.test:
        on_test_pages(cascade, m)
        return 0
    x, datasets, chars = m["x"], m["dataset"], m["chars"]
    f1_fast, ms_fast, f1_accurate, ms_accurate, ms_reference = (
        m[c] for c in ("f1_fast", "ms_fast", "f1_accurate", "ms_accurate", "ms_reference")
    )
    gain = f1_accurate - f1_fast
    scores = {
        "doubt": x[:, 0],
        **{
            f"doubt/chars^{a}": np.array([routing_score(d, c, a) for d, c in zip(x[:, 0], chars, strict=True)])
            for a in SIZE_POWERS
        },
        "learned": learned_scores(x, gain, datasets),
        "perfect": gain,
    }
    scores[NONE_SURE] = np.where(none_sure(x), np.inf, scores["doubt/chars^0.5"])
    print(f"{len(x)} validation pages ({none_sure(x).sum()} on which the fast stack is sure of no block); ")
    print(f"fast alone: token F1 {f1_fast.mean():.4f}, {ms_fast.mean():.1f} ms a page; ")
    print(f"accurate alone: token F1 {f1_accurate.mean():.4f}, {ms_accurate.mean():.1f} ms a page; ")
    print(f"trafilatura: {ms_reference.mean():.1f} ms a page")
    order = sorted(set(datasets))

    def row(router: str, sent: np.ndarray) -> str:
        f1 = np.where(sent, f1_accurate, f1_fast)
        ms = ms_fast + np.where(sent, ms_accurate, 0.0)
        per_dataset = " | ".join(f"{(f1 - f1_accurate)[datasets == n].mean():+.4f}" for n in order)
        return (
            f"| {router} | {sent.mean():.1%} | {f1.mean():.4f} | {f1.mean() - f1_accurate.mean():+.4f} | "
            f"{ms.mean():.1f} | {ms.mean() / ms_reference.mean():.2f} | {per_dataset} |"
        )

    columns = ["router", "pages sent on", "cascade token F1", "− accurate", "ms a page", "× trafilatura", *order]
    print(f"| {' | '.join(columns)} |")
    print("|" + "---|" * len(columns))
    for share in SHARES:
        for router in ROUTERS:
            print(row(router, route(scores[router], round(share * len(x)), gain if router == "perfect" else None)))
    print(f"\n| budget (× trafilatura) | {' | '.join(columns)} |")
    print("|" + "---|" * (len(columns) + 1))
    for budget in BUDGETS:
        spare = budget * ms_reference.sum() - ms_fast.sum()
        for router in ROUTERS:
            perfect = router == "perfect"
            ranked = gain / np.maximum(ms_accurate, 1e-3) if perfect else scores[router]
            sent = within_budget(ranked, ms_accurate, spare, gain if perfect else None)
            print(f"| {budget:.2f} {row(router, sent)}")
    return 0


if __name__ == "__main__":
    run_main(main)
