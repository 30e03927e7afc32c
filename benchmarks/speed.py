"""Per-page speed of the hot path and of every extractor, on the CleanEval test split, one process.

Prints mean and p95 milliseconds per page for: loading (read + decode), segmentation (lxml
parse + canonical blocks), gold labelling (token LCS alignment), then each extractor end to
end as a user calls it on raw HTML (a fresh page each time, so our extractors pay for parsing
and segmentation), and each one's speed relative to trafilatura's, measured in the same run. Learned extractors
are first fitted on the split's training and validation pages, and the fit time is printed.
Reference extractors that are not installed are skipped with a note. For an extractor with a
sentence encoder (``lm_embedding``) the embedding cost per block is printed on its own.

    BOILERBENCH_DATA=../shared/datasets python benchmarks/speed.py [--split cleaneval] [--limit N]
        [--extractors bte,cetd,scedd,trafilatura,...] [--threads 1]

``--threads`` sets torch's intra-op threads (the neural extractors' "one core" figures).
"""

from __future__ import annotations

import argparse
import time
from collections.abc import Callable, Sequence
from pathlib import Path

import numpy as np
import torch
from cli import run_main

from boilerbench.datasets.align import align_labels
from boilerbench.datasets.blocks import segment
from boilerbench.datasets.cleaneval import CleanEval, read_page_id
from boilerbench.datasets.page import Page
from boilerbench.errors import MissingDependencyError, check_choice
from boilerbench.experiments.runner import make_extractor

CONF = Path(__file__).resolve().parents[1] / "boilerbench" / "conf" / "extractor"
DEFAULT_EXTRACTORS = "bte,cetd,scedd,crf,trafilatura,readability,justext,boilerpipe,html_to_text"


def time_each(items: Sequence, fn: Callable) -> np.ndarray:
    """Milliseconds of ``fn(item)`` for each item."""
    out = np.empty(len(items))
    for k, item in enumerate(items):
        start = time.perf_counter()
        fn(item)
        out[k] = 1000 * (time.perf_counter() - start)
    return out


def report(name: str, ms: np.ndarray) -> None:
    print(
        f"  {name:<34} mean {ms.mean():7.2f} ms   p95 {np.percentile(ms, 95):7.2f} ms   total {ms.sum() / 1000:6.2f} s"
    )


def embedding_cost(name: str, encoder, blocks: Sequence) -> None:
    """A language-model extractor's embedding cost alone: a fresh encoder (empty caches, model
    loaded beforehand) embeds every block text of the pages, each distinct text once."""
    fresh = type(encoder)(encoder.model, encoder.max_tokens, encoder.batch_size)
    start = time.perf_counter()
    _ = fresh.dimension  # loads the model, so that its load time is not counted as embedding
    loaded = time.perf_counter()
    texts = [t for b in blocks for t in b.texts]
    fresh.encode(texts)
    seconds = time.perf_counter() - loaded
    print(
        f"  {name} embedding: {1000 * seconds / max(fresh.texts_encoded, 1):.2f} ms per block text "
        f"({fresh.texts_encoded} distinct of {len(texts)} blocks, {seconds:.1f} s; model load "
        f"{loaded - start:.1f} s)"
    )


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--split", default="cleaneval")
    parser.add_argument("--limit", type=int, default=None)
    parser.add_argument("--extractors", default=DEFAULT_EXTRACTORS, help="configs in conf/extractor, comma-separated")
    parser.add_argument("--threads", type=int, default=None, help="torch intra-op threads (default: torch's)")
    args = parser.parse_args(argv)
    if args.threads:
        torch.set_num_threads(args.threads)

    dataset = CleanEval(split=args.split, download=False)
    root = dataset.locate()
    split = dataset.load_split(root, args.split)
    ids = [int(p.id) for p in split.test][: args.limit]
    print(f"CleanEval split {args.split}, test pages: {len(ids)}")

    pages: list[Page] = []
    load_ms = time_each(ids, lambda i: pages.append(read_page_id(root, i)))
    blocks = []
    segment_ms = time_each(pages, lambda p: blocks.append(segment(p.html)))
    label_ms = time_each(range(len(pages)), lambda k: align_labels(blocks[k], pages[k].gold_text))
    report("load (read + decode)", load_ms)
    report("segment (parse + blocks)", segment_ms)
    report("gold labels (alignment)", label_ms)
    report("segment + gold labels", segment_ms + label_ms)

    timings: dict[str, np.ndarray] = {}
    names = args.extractors.split(",")
    for name in names:
        check_choice("--extractors", name, sorted(p.stem for p in CONF.glob("*.yaml")))
    for name in names:
        try:
            extractor = make_extractor(name)
        except MissingDependencyError as err:
            print(f"  {name}: skipped ({err})")
            continue
        if getattr(extractor, "learns", True):
            start = time.perf_counter()
            extractor.fit(split.train, split.validation)
            done = getattr(extractor, "fit_summary", lambda: "")()
            print(
                f"  {name}: fitted on {len(split.train)} + {len(split.validation)} pages in "
                f"{time.perf_counter() - start:.2f} s{f' ({done})' if done else ''}"
            )
        timings[name] = time_each(pages, lambda p, e=extractor: e.extract(Page(p.id, p.html, "")))
        report(f"{name} (end to end)", timings[name])
        if hasattr(extractor, "encoder_"):
            embedding_cost(name, extractor.encoder_, blocks)
    if "trafilatura" in timings:
        reference = timings["trafilatura"].mean()
        for name, ms in timings.items():
            print(f"  {name:<14} trafilatura's time / this one's: {reference / ms.mean():7.3g}x")
    return 0


if __name__ == "__main__":
    run_main(main)
