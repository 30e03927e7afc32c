"""The LM-embedding extractor's embedding cost before and after its two speed-ups, in one run,
and what the int8 encoder changes in its output and its accuracy.

1. Seconds per page to embed every block text of ``--pages`` pages of each dataset, with the
   disk cache off and torch on ``--threads`` threads (1: a job of a parallel sweep), for each of:
   float32 page by page (before), float32 across pages (``prefetch``), int8 page by page, int8
   across pages (after); the ratios to "before" are measured in the same run.
2. int8 against float32 on the same texts: cosine similarity of the embeddings (mean and 1st
   percentile), and block F1 / token F1 of the extractor trained on ``--train`` CleanEval
   training pages and tested on ``--test`` of its test pages with each precision.

    BOILERBENCH_DATA=../shared/datasets python -m studies.lm_speed [--pages 40] [--train 80] [--test 80]
"""

from __future__ import annotations

import argparse
import time
from collections.abc import Sequence

import numpy as np
import torch

from benchmarks.common import run_main
from benchmarks.dataset_speed import load
from boilerbench.cache import set_cache_dir
from boilerbench.datasets.page import Page
from boilerbench.evaluation import block_counts, block_metrics
from boilerbench.evaluation.token import token_prf
from boilerbench.extractors.lm_embedding import LMEmbedding
from boilerbench.extractors.lm_embedding.encoder import SentenceEncoder

VARIANTS = (("float32", "page"), ("float32", "pages"), ("int8", "page"), ("int8", "pages"))


def embed_seconds(pages: Sequence[Sequence[str]], precision: str, mode: str) -> float:
    """Seconds to embed ``pages`` (lists of block texts) with a fresh encoder (model loaded first)."""
    encoder = SentenceEncoder("all-MiniLM-L6-v2", precision=precision)
    _ = encoder.dimension
    start = time.perf_counter()
    if mode == "pages":
        encoder.prefetch(pages)
    for texts in pages:
        encoder.encode_page(texts)
    return time.perf_counter() - start


def scores(precision: str, train: list[Page], test: list[Page]) -> tuple[float, float]:
    """(block F1, token F1) of LMEmbedding with ``precision`` trained on ``train``, tested on ``test``."""
    model = LMEmbedding(precision=precision).fit(train)
    extractions = [model.extract(p) for p in test]
    counts = [block_counts(e.labels, p.gold_labels) for e, p in zip(extractions, test, strict=True)]
    tokens = [token_prf(e.text, p.gold_text).f1 for e, p in zip(extractions, test, strict=True)]
    return block_metrics(counts)["f1"], float(np.mean(tokens))


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--datasets", default="cleaneval,wcxb")
    parser.add_argument("--pages", type=int, default=40, help="pages per dataset for the speed figures")
    parser.add_argument("--train", type=int, default=80)
    parser.add_argument("--test", type=int, default=80)
    parser.add_argument("--threads", type=int, default=1)
    args = parser.parse_args(argv)
    torch.set_num_threads(args.threads)
    set_cache_dir(None)
    print(f"embedding, {args.pages} pages per dataset, {args.threads} torch thread(s), no disk cache:")
    for name in args.datasets.split(","):
        split, _ = load(name)
        pages = [p.blocks.texts for p in [*split.test, *split.train][: args.pages]]
        n_texts = sum(len(t) for t in pages)
        seconds = {variant: embed_seconds(pages, *variant) for variant in VARIANTS}
        before = seconds[VARIANTS[0]]
        for (precision, mode), value in seconds.items():
            print(
                f"  {name:<10} {precision:<8} {'across pages' if mode == 'pages' else 'page by page':<13}"
                f" {value / len(pages):7.3f} s/page  {1000 * value / n_texts:6.2f} ms/block   {before / value:5.2f}x"
            )
    split, _ = load("cleaneval")
    texts = [t for p in split.test[:20] for t in p.blocks.texts]
    exact = SentenceEncoder("all-MiniLM-L6-v2").encode(texts)
    quantized = SentenceEncoder("all-MiniLM-L6-v2", precision="int8").encode(texts)
    cosine = (exact * quantized).sum(axis=1) / (
        np.linalg.norm(exact, axis=1) * np.linalg.norm(quantized, axis=1) + 1e-12
    )
    print(
        f"int8 vs float32 on {len(texts)} CleanEval block texts: cosine mean {cosine.mean():.4f}, "
        f"1st percentile {np.percentile(cosine, 1):.4f}"
    )
    train, test = split.train[: args.train], split.test[: args.test]
    for precision in ("float32", "int8"):
        block_f1, token_f1 = scores(precision, train, test)
        print(
            f"  {precision:<8} trained on {len(train)} CleanEval pages, tested on {len(test)}: "
            f"block F1 {block_f1:.4f}  token F1 {token_f1:.4f}"
        )
    return 0


if __name__ == "__main__":
    run_main(main)
