"""Per-page cost of reading a dataset, segmenting its pages and labelling their blocks, one process.

For each dataset: load (read, decompress, decode every page and its gold, as ``Dataset.load``
does, manifest check off), segmentation (lxml parse + canonical blocks) and gold labels (token
LCS alignment), each as mean milliseconds per page, twice: cold (an empty disk cache, as a
first run) and warm (the same cache again, as every later run: detected encodings and gold
labels come from the cache; segmentation is always computed). The target is load + segment +
gold labels <= 10 ms per page on wcxb and dragnet. Times are CPU time of this process
(``time.process_time``), which other jobs on a shared machine do not inflate as they do wall time.

    BOILERBENCH_DATA=../shared/datasets python -m benchmarks.dataset_speed [--datasets dragnet,wcxb] [--limit N]
"""

from __future__ import annotations

import argparse
import tempfile
import time
from pathlib import Path

import numpy as np
from omegaconf import OmegaConf

from benchmarks.common import record, run_main, timed
from boilerbench.cache import set_cache_dir
from boilerbench.datasets.base import Split
from boilerbench.experiments.runner import build

CONF = Path(__file__).resolve().parents[1] / "boilerbench" / "conf" / "dataset"
TARGET_MS = 10.0
#: The harness's sizes (``python -m benchmarks [--full]``).
QUICK = ["--datasets", "dragnet", "--limit", "100"]
FULL = ["--datasets", "dragnet,wcxb"]


def load(name: str) -> tuple[Split, float]:
    """The dataset's default split (manifest check off) and the CPU seconds it took to load."""
    node = OmegaConf.load(CONF / f"{name}.yaml")
    node.data_dir = "data"
    node.verify = False
    node.download = False
    return timed(lambda: build(node).load(), time.process_time)


def measure(name: str, limit: int | None) -> dict[str, float]:
    """Mean ms per page of load, segment and gold labels (and p95 of the last two)."""
    split, seconds = load(name)
    pages = [p for p in (*split.train, *split.validation, *split.test) if not p.load_error]
    load_ms = 1000 * seconds / max(len(pages), 1)
    pages = pages[:limit]
    segment_ms = np.empty(len(pages))
    label_ms = np.empty(len(pages))
    for k, page in enumerate(pages):
        segment_ms[k] = 1000 * timed(lambda page=page: page.blocks, time.process_time)[1]
        label_ms[k] = 1000 * timed(lambda page=page: page.gold_labels, time.process_time)[1]
        page.release()
    return {
        "pages": len(pages),
        "load": load_ms,
        "segment": float(segment_ms.mean()),
        "segment_p95": float(np.percentile(segment_ms, 95)),
        "labels": float(label_ms.mean()),
        "labels_p95": float(np.percentile(label_ms, 95)),
    }


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--datasets", default="dragnet,wcxb", help="configs in conf/dataset, comma-separated")
    parser.add_argument("--limit", type=int, default=None, help="segment and label only the first N pages")
    args = parser.parse_args(argv)
    print(f"{'dataset':<18} {'cache':<5} {'pages':>5}  {'load':>6}  {'segment':>7} (p95)  {'labels':>6} (p95)  total")
    for name in args.datasets.split(","):
        with tempfile.TemporaryDirectory() as cache:
            set_cache_dir(cache)
            for state in ("cold", "warm"):
                m = measure(name, args.limit)
                total = m["load"] + m["segment"] + m["labels"]
                for figure in ("load", "segment", "labels"):
                    record(f"{name}_{state}_{figure}_ms", m[figure])
                print(
                    f"{name:<18} {state:<5} {m['pages']:>5}  {m['load']:6.2f}  {m['segment']:7.2f} "
                    f"({m['segment_p95']:5.1f})  {m['labels']:6.2f} ({m['labels_p95']:5.1f})  {total:6.2f} ms/page"
                    + ("" if total <= TARGET_MS else f"  (over the {TARGET_MS:g} ms target)")
                )
        set_cache_dir(None)
    return 0


if __name__ == "__main__":
    run_main(main)
