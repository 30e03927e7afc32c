"""The LM-embedding classifier on the thesis's own protocol (papers/003, "Реализация модели"):
every block of every CleanEval page in one shuffled pool, 64 % for training and the next 33 %
for testing (the thesis leaves 3 % unused), scored as block accuracy / precision / recall / F1.

Blocks of one page fall on both sides of this split, unlike the page-level splits of
``run.py``, so it measures a different (easier) task; the tag vocabulary, as in the thesis,
comes from all pages. Embeddings are cached on disk (``--cache``), so the page-level runs of
``run.py extractor=lm_embedding`` reuse them.

    BOILERBENCH_DATA=../shared/datasets python -m studies.lm_block_split [--seed 0]
        [--limit N] [--threads 2] [--set positional=false ...]
"""

from __future__ import annotations

import argparse
import time
from pathlib import Path

import numpy as np
import torch

from benchmarks.common import run_main
from boilerbench.cache import set_cache_dir
from boilerbench.datasets.cleaneval import CleanEval
from boilerbench.evaluation import block_counts, block_metrics
from boilerbench.experiments.runner import make_extractor

PUBLISHED = {"accuracy": 0.84, "precision": 0.86, "recall": 0.83, "f1": 0.84}
DEFAULT_CACHE = Path(__file__).resolve().parents[1] / ".cache" / "boilerbench"


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--limit", type=int, default=None, help="use only the first N pages")
    parser.add_argument("--threads", type=int, default=None, help="torch intra-op threads")
    parser.add_argument("--cache", default=str(DEFAULT_CACHE), help="derived-artefact cache ('' for none)")
    parser.add_argument("--set", nargs="*", default=[], help="extractor overrides, e.g. positional=false")
    args = parser.parse_args(argv)
    if args.threads:
        torch.set_num_threads(args.threads)
    set_cache_dir(args.cache or None)

    split = CleanEval(split="cleaneval", download=False).load()
    pages = [p for p in split.train + split.validation + split.test if len(p.blocks)][: args.limit]
    extractor = make_extractor("lm_embedding", tuple(args.set))
    start = time.perf_counter()
    extractor.set_tags([p.blocks for p in pages])
    x = np.vstack([extractor.features(p) for p in pages])
    y = np.concatenate([p.gold_labels for p in pages])
    print(
        f"{len(pages)} CleanEval pages, {len(y)} blocks ({y.mean():.3f} content), {x.shape[1]} features, "
        f"built in {time.perf_counter() - start:.1f} s ({extractor.encoder.texts_encoded} texts embedded)"
    )

    order = np.random.default_rng(args.seed).permutation(len(y))
    n_train, n_test = int(0.64 * len(y)), int(0.33 * len(y))
    train, test = order[:n_train], order[n_train : n_train + n_test]
    start = time.perf_counter()
    extractor.fit_matrix(x[train], y[train])
    predicted = (extractor.predict_proba_matrix(x[test]) >= extractor.threshold).astype(np.int8)
    metrics = block_metrics([block_counts(predicted, y[test])])
    print(
        f"fitted on {n_train} blocks in {time.perf_counter() - start:.1f} s ({extractor.fit_summary()}); "
        f"tested on {n_test} blocks"
    )
    print(f"  {'':<10} {'measured':>9} {'published':>9}")
    for name, value in PUBLISHED.items():
        print(f"  {name:<10} {metrics[name]:9.3f} {value:9.2f}")
    return 0


if __name__ == "__main__":
    run_main(main)
