"""What the per-page artefact cache saves: ms per page of each cached family computed from the
page (the cache empty) and read back from the disk cache, in one run, with the ratio.

Families: gold labels (token alignment), Web2Text features, CRF features (shared by the CRF and
the stack), member votes (one reference, trafilatura, aligned onto the blocks) and LM embeddings
(with ``--lm``; slow when computed). Every family is timed on the same pages, after segmentation
(its cost is printed too: blocks are recomputed in every run), first into an empty cache in a
temporary folder, then again from it.

    BOILERBENCH_DATA=../shared/datasets python -m benchmarks.artefact_cache [--datasets cleaneval,wcxb]
        [--limit 100] [--lm]
"""

from __future__ import annotations

import argparse
import tempfile
from collections.abc import Callable

import torch

from benchmarks.common import record, run_main, timed
from benchmarks.dataset_speed import load
from boilerbench.cache import set_cache_dir
from boilerbench.configs import make_extractor
from boilerbench.datasets.page import Page
from boilerbench.extractors.crf.features import page_features as crf_page_features
from boilerbench.extractors.members import build_members
from boilerbench.extractors.web2text.features import page_features as web2text_page_features

#: The harness's sizes (``python -m benchmarks [--full]``).
QUICK = ["--datasets", "cleaneval", "--limit", "20"]
FULL = ["--datasets", "cleaneval,wcxb", "--limit", "100"]


def gold_labels(page: Page) -> object:
    """The page's gold labels, through the disk cache (the in-memory copy dropped first)."""
    page.__dict__.pop("gold_labels", None)
    return page.gold_labels


def families(lm: bool) -> dict[str, Callable[[Page], object]]:
    """Name -> the cached computation of that family for one page."""
    (member,) = build_members({"trafilatura": make_extractor("trafilatura")})
    steps: dict[str, Callable[[Page], object]] = {
        "gold labels": gold_labels,
        "Web2Text features": lambda p: web2text_page_features(p.blocks, p.html),
        "CRF features": crf_page_features,
        "member votes (trafilatura)": member.labels,
    }
    if lm:
        from boilerbench.extractors.lm_embedding.encoder import SentenceEncoder

        encoder = SentenceEncoder("all-MiniLM-L6-v2")
        steps["LM embeddings"] = lambda p: encoder.encode_page(p.blocks.texts)
    return steps


def ms_per_page(pages: list[Page], step: Callable[[Page], object]) -> float:
    return 1000 * timed(lambda: [step(page) for page in pages])[1] / len(pages)


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--datasets", default="cleaneval,wcxb")
    parser.add_argument("--limit", type=int, default=100, help="pages per dataset")
    parser.add_argument("--lm", action="store_true", help="also LM embeddings (about 2 s per page computed)")
    args = parser.parse_args(argv)
    torch.set_num_threads(1)
    steps = families(args.lm)
    print(f"ms per page, {args.limit} pages per dataset, one thread: computed (empty cache) / read (warm cache)")
    for name in args.datasets.split(","):
        split, _ = load(name)
        pages = [*split.test, *split.train][: args.limit]
        segment = ms_per_page(pages, lambda p: p.blocks)
        print(f"  {name:<10} segmentation (not cached)      {segment:8.2f}")
        record(f"{name}_segmentation_ms", segment)
        with tempfile.TemporaryDirectory() as folder:
            set_cache_dir(folder)
            for family, step in steps.items():
                computed = ms_per_page(pages, step)
                read = ms_per_page(pages, step)
                print(f"  {name:<10} {family:<30} {computed:8.2f} / {read:6.2f}   {computed / read:6.1f}x")
                key = family.split(" (")[0].lower().replace(" ", "_")
                record(f"{name}_{key}_computed_ms", computed)
                record(f"{name}_{key}_read_ms", read)
            set_cache_dir(None)
    return 0


if __name__ == "__main__":
    run_main(main)
