"""A page-level cascade of two fitted stacks, simulated on the validation pages of their training
mixture: the fast stack extracts every page; a page whose extraction it is unsure of goes to the
accurate stack as well, whose extraction then replaces it. What it would cost and bring, before a
cascade extractor is built.

The fast stack's doubt about a page is the share of the page's words it would label wrongly if its
probabilities were right: ``sum(words * min(p, 1 - p)) / sum(words)`` over the blocks. For each
doubt threshold (quantiles of the pages' doubts) the table gives the share of pages sent on, the
mean token F1 of the cascade, its difference from the accurate stack's (over all pages, then on
each dataset), and its mean ms per page (every page pays the fast stack, the pages sent on pay the
accurate one too: its members and features are computed again), beside each stack alone; then
the same for a perfect router that sends as many pages, those the accurate stack gains most on:
the bound of any page-level router at that cost. Timed
end to end from raw HTML (artefact cache off), on this process's one core. Validation pages only:
the figures rank settings, they are not test figures (the fits stopped early on them).

    BOILERBENCH_DATA=../shared/datasets python -m studies.cascade \\
        fast=models/stack/KEY1 accurate=models/stack/KEY2
"""

from __future__ import annotations

import argparse
import time
from pathlib import Path

import numpy as np

from benchmarks.common import run_main
from boilerbench.cache import set_cache_dir
from boilerbench.errors import ConfigError
from boilerbench.evaluation.token import token_prf
from boilerbench.experiments.runner import build
from studies.stack_validation import load_stack, mixture_datasets

#: The doubt thresholds tried: these quantiles of the validation pages' doubts.
QUANTILES = (0.0, 0.5, 0.6, 0.65, 0.7, 0.75, 0.8, 0.9, 0.95, 1.0)


def doubt(stack, page) -> float:
    """The share of the page's words that ``stack`` labels wrongly if its probabilities are right."""
    rows = stack._rows(page)
    layout = stack._layout(page)
    p = stack._pool(stack.probabilities(rows, page, layout), layout)
    words = layout.words.astype(np.float64)
    return float(words @ np.minimum(p, 1 - p) / words.sum()) if words.sum() else 0.0


def perfect_router(gain: np.ndarray, count: int) -> np.ndarray:
    """The ``count`` pages (at most) a router that knew the outcome would send on: those where the
    accurate stack's token F1 exceeds the fast one's the most (never a page it does not gain on).
    What no page-level router can beat at that cost."""
    sent = np.zeros(len(gain), dtype=bool)
    sent[np.argsort(-gain, kind="stable")[:count]] = True
    return sent & (gain > 0)


def timed_f1(stack, page) -> tuple[float, float]:
    """The token F1 of ``stack`` on ``page`` and its ms (the page segmented again: from raw HTML)."""
    page.release()
    start = time.perf_counter()
    text = stack.extract(page).text
    ms = 1000 * (time.perf_counter() - start)
    return token_prf(text, page.gold_text, page.tokenizer).f1, ms


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("stacks", nargs=2, help="fast=DIR accurate=DIR: the fitted stacks' model folders")
    args = parser.parse_args(argv)
    set_cache_dir(None)
    folders = dict(s.split("=", 1) for s in args.stacks if "=" in s)
    if set(folders) != {"fast", "accurate"}:
        raise ConfigError("give fast=DIR accurate=DIR")
    fast, accurate = (load_stack(Path(folders[name])) for name in ("fast", "accurate"))
    rows = []
    names = []
    for name, node in mixture_datasets().items():
        for page in (p for p in build(node).load().validation if not p.load_error):
            rows.append((doubt(fast, page), *timed_f1(fast, page), *timed_f1(accurate, page)))
            names.append(name)
            page.release()
    d, f1_fast, ms_fast, f1_accurate, ms_accurate = (np.array(c) for c in zip(*rows, strict=True))
    datasets = np.array(names)
    print(f"{len(d)} validation pages; fast alone: token F1 {f1_fast.mean():.4f}, {ms_fast.mean():.1f} ms a page; ")
    print(f"accurate alone: token F1 {f1_accurate.mean():.4f}, {ms_accurate.mean():.1f} ms a page")
    order = sorted(set(names))
    gain = f1_accurate - f1_fast
    for router in ("doubt", "perfect"):
        how = ": as many pages, those the accurate stack gains most on" if router == "perfect" else ""
        print(f"\nrouted by {router}{how}")
        print(f"| doubt above | pages sent on | cascade token F1 | − accurate | ms a page | {' | '.join(order)} |")
        print("|---|---|---|---|---|" + "---|" * len(order))
        for q in QUANTILES:
            threshold = float(np.quantile(d, q))
            sent = d > threshold if q < 1.0 else np.zeros(len(d), dtype=bool)
            if router == "perfect":
                sent = perfect_router(gain, int(sent.sum()))
            f1 = np.where(sent, f1_accurate, f1_fast)
            ms = ms_fast + np.where(sent, ms_accurate, 0.0)
            print(
                f"| {threshold:.4f} (q{q:.2f}) | {sent.mean():.1%} | {f1.mean():.4f} | "
                f"{f1.mean() - f1_accurate.mean():+.4f} | {ms.mean():.1f} | "
                + " | ".join(f"{(f1 - f1_accurate)[datasets == n].mean():+.4f}" for n in order)
                + " |"
            )
    return 0


if __name__ == "__main__":
    run_main(main)
