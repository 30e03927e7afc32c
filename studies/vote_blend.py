"""Shrinking the stack towards its members' vote: does it carry better to sites it has not seen?

By site-grouped cross-validation on DANIEL (``table_languages_cv``), the members' plain majority
vote beats the headline stack on Greek (0.957 against 0.911) and Russian (0.835 against 0.802),
though the stack wins on every English test set. A learned combination that reads the blocks' text
statistics can fit the training sites; the vote cannot. This blends the stack's probability of
each block with the share of its members that keep it, ``alpha * p + (1 - alpha) * share``
(``alpha`` 1: the stack as fitted; 0: about the majority vote), before the stack's own decoding,
and scores each page of a cross-validated run with the fold's model, which did not see its site.

    BOILERBENCH_DATA=../shared/datasets python -m studies.vote_blend \\
        --run multirun/table_languages_cv_weights/0_stack_daniel \\
        --models models/stack/F0,models/stack/F1,... --alphas 1,0.8,0.6,0.4
"""

from __future__ import annotations

import argparse
from collections import defaultdict
from pathlib import Path

import numpy as np
import pandas as pd

from benchmarks.common import run_main
from boilerbench.cache import set_cache_dir
from boilerbench.datasets.daniel import Daniel
from boilerbench.evaluation.token import token_prf
from boilerbench.extractors.stack.model import Stack
from studies.stack_validation import difference, load_stack


def blend(stack: Stack, alpha: float) -> None:
    """Make ``stack`` blend its probabilities with its members' keep share (in place)."""
    column = stack.feature_names().index("members.keep_share")
    fitted = type(stack).probabilities.__get__(stack)

    def probabilities(rows, page=None, layout=None, types=None):
        return alpha * fitted(rows, page, layout, types) + (1 - alpha) * rows[:, column]

    stack.probabilities = probabilities  # type: ignore[method-assign]


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--run", required=True, help="a cross-validated run's folder (its pages.csv has the folds)")
    parser.add_argument("--models", required=True, help="the folds' fitted stacks, comma-separated, fold 1 first")
    parser.add_argument("--alphas", default="1,0.8,0.6,0.4")
    parser.add_argument("--cache", default=str(Path(__file__).resolve().parents[1] / ".cache" / "boilerbench"))
    args = parser.parse_args(argv)
    set_cache_dir(args.cache)
    rows = pd.read_csv(Path(args.run) / "pages.csv").set_index("page_id")
    folds, recorded = rows["fold"].astype(int).to_dict(), rows["token_f1"].to_dict()
    stacks = [load_stack(Path(d)) for d in args.models.split(",")]
    alphas = [float(a) for a in args.alphas.split(",")]
    split = Daniel(root=None, split="all").load()
    scores: dict[str, dict[float, list[float]]] = defaultdict(lambda: defaultdict(list))
    drift = []
    for page in (*split.train, *split.validation, *split.test):
        if page.load_error or page.id not in folds:
            continue
        stack = stacks[folds[page.id] - 1]  # folds are numbered from 1
        for alpha in alphas:
            blend(stack, alpha)
            f1 = token_prf(stack.extract(page).text, page.gold_text, page.tokenizer).f1
            if alpha == 1:
                drift.append(abs(f1 - recorded[page.id]))
            for key in ("daniel", f"daniel:{page.language}"):
                scores[key][alpha].append(f1)
        page.release()
    first = alphas[0]
    if drift:  # the folds' models as the run used them: alpha 1 gives the run's page scores
        print(f"alpha 1 against the run's page scores: largest difference {max(drift):.2e}")
    print(
        "| rows | pages | "
        + " | ".join(f"alpha {a}" for a in alphas)
        + " | "
        + " | ".join(f"{a} − {first}" for a in alphas[1:])
        + " |"
    )
    print("|---" * (1 + 2 * len(alphas)) + "|")
    for key in sorted(scores):
        by = scores[key]
        cells = [f"{np.mean(by[a]):.4f}" for a in alphas] + [difference(by[a], by[first]) for a in alphas[1:]]
        print(f"| {key} | {len(by[first])} | " + " | ".join(cells) + " |", flush=True)
    return 0


if __name__ == "__main__":
    run_main(main)
