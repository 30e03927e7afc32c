"""Which gradient-boosted trees for the stack: LightGBM or scikit-learn's HistGradientBoosting,
on the same feature rows (same pages, same features, same hyperparameters), by validation quality
and fit time; the first stage only (``second_stage=False``), whose rows are the same for both.

Rows are built once (member votes from the disk cache, ``paths.cache_dir``, when present); each
backend is then fitted ``--repeats`` times on the training rows with early stopping on the
validation rows, and scored at ``threshold`` 0.5 on the validation pages and, for information, on
the test pages: block F1 (pooled) and token F1 (mean over pages of the kept blocks' text). The
choice is made on validation figures; test figures are printed to show that the choice holds.

    BOILERBENCH_DATA=../shared/datasets python -m studies.stack_gbt [--split web2text] [--repeats 3] [--threads 1]
"""

from __future__ import annotations

import argparse
import time
from pathlib import Path

import numpy as np
from threadpoolctl import threadpool_limits

from benchmarks.common import run_main
from boilerbench.cache import set_cache_dir
from boilerbench.datasets.cleaneval import CleanEval
from boilerbench.evaluation import block_counts, block_metrics, token_prf
from boilerbench.extractors.stack import Stack
from boilerbench.extractors.stack.features import crf_vocabulary

CACHE = Path(__file__).resolve().parents[1] / ".cache" / "boilerbench"


def rows_of(stack: Stack, pages):
    """Feature rows, labels, weights and per-page offsets of ``pages``."""
    X, y, w, _ = stack._dataset(pages)
    offsets = np.cumsum([0, *(len(p.blocks) for p in pages)])
    return X, y, w, offsets


def score(stack: Stack, X, pages, offsets) -> tuple[float, float]:
    """(block F1 pooled, mean token F1) of the stack's labels on ``pages``."""
    p = stack.probabilities(X)
    counts, tokens = [], []
    for k, page in enumerate(pages):
        page_labels = stack.decode(p[offsets[k] : offsets[k + 1]], page.blocks.word_counts)
        counts.append(block_counts(page_labels, page.gold_labels))
        tokens.append(token_prf(page.blocks.join(page_labels.astype(bool)), page.gold_text).f1)
    return block_metrics(counts)["f1"], float(np.mean(tokens))


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--split", default="web2text")
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--threads", type=int, default=1, help="threads of both libraries (OpenMP)")
    parser.add_argument("--backends", default="lightgbm,sklearn")
    args = parser.parse_args(argv)
    set_cache_dir(CACHE)
    split = CleanEval(split=args.split, download=False).load()
    base = Stack(n_jobs=args.threads, second_stage=False)
    train = [p for p in split.train if len(p.blocks)]
    base.vocabulary_ = crf_vocabulary(train)
    start = time.perf_counter()
    X, y, w, _ = rows_of(base, train)
    Xv, yv, wv, off_v = rows_of(base, split.validation)
    Xt, _, _, off_t = rows_of(base, split.test)
    print(
        f"CleanEval split {args.split}: {len(train)} training pages ({len(y)} blocks, {X.shape[1]} features), "
        f"{len(split.validation)} validation, {len(split.test)} test; rows built in {time.perf_counter() - start:.1f} s"
    )
    for backend in args.backends.split(","):
        stack = Stack(backend=backend, n_jobs=args.threads, second_stage=False)
        stack.vocabulary_ = base.vocabulary_
        fits = []
        for _ in range(args.repeats):
            start = time.perf_counter()
            with threadpool_limits(limits=args.threads):  # scikit-learn's OpenMP threads
                stack.model_ = stack._fit_trees(X, y, w, Xv, yv, wv)
            fits.append(time.perf_counter() - start)
        start = time.perf_counter()
        stack.probabilities(Xt)
        predict_ms = 1000 * (time.perf_counter() - start) / len(split.test)
        val_block, val_token = score(stack, Xv, split.validation, off_v)
        test_block, test_token = score(stack, Xt, split.test, off_t)
        print(
            f"  {backend:<9} trees {stack._n_trees(stack.model_):4d}  "
            f"fit {np.median(fits):6.2f} s (median of {args.repeats})  "
            f"predict {predict_ms:5.2f} ms/page  validation block F1 {val_block:.4f} token F1 {val_token:.4f}  "
            f"test block F1 {test_block:.4f} token F1 {test_token:.4f}"
        )
    return 0


if __name__ == "__main__":
    run_main(main)
