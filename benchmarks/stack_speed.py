"""The stack's speed on new pages, and ``boilerbench extract`` throughput next to trafilatura's
command-line tool, in one run.

1. ms/page of the stack on CleanEval test pages, end to end from raw HTML with the disk cache off
   (every member runs): split into the members' time (each member's share printed too) and the
   stack's own (segmentation, block features, trees, decoding).
2. Pages per second on the same files, one after the other: ``boilerbench extract --model STACK
   -j J``, ``boilerbench extract --extractor trafilatura -j J`` and ``trafilatura --input-dir
   --parallel J`` (the library's own command-line tool), each as a fresh process (start-up
   included, as a user runs them).

    BOILERBENCH_DATA=../shared/datasets python benchmarks/stack_speed.py --model stack.model [--limit 200] [-j 2]

``--model`` is a file written by ``python run.py extractor=stack ... save_model=PATH``.
"""

from __future__ import annotations

import argparse
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np
from cli import run_main

from boilerbench.cache import set_cache_dir
from boilerbench.datasets.cleaneval import CleanEval
from boilerbench.datasets.page import Page
from boilerbench.experiments.model_file import load_model_file

PROJECT = Path(__file__).resolve().parents[1]


def timed(command: list[str]) -> float:
    """Wall seconds of a command (its output discarded); a failure stops the benchmark."""
    start = time.perf_counter()
    subprocess.run(command, cwd=PROJECT, check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    return time.perf_counter() - start


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--model", required=True)
    parser.add_argument("--split", default="cleaneval")
    parser.add_argument("--limit", type=int, default=200)
    parser.add_argument("-j", "--jobs", type=int, default=2)
    args = parser.parse_args(argv)
    set_cache_dir(None)
    split = CleanEval(split=args.split, download=False).load()
    pages = split.test[: args.limit]
    stack, manifest = load_model_file(args.model)
    print(f"stack model {args.model} (trained on {manifest['trained_on']}); {len(pages)} CleanEval test pages")

    members, own = [], []
    for page in pages:
        info = stack.extract(Page(page.id, page.html, "")).info
        members.append(info["members_ms"])
        own.append(info["stack_ms"])
    total = np.add(members, own)
    print(
        f"  stack end to end {total.mean():7.2f} ms/page (p95 {np.percentile(total, 95):.1f}): "
        f"members {np.mean(members):7.2f}, stack's own {np.mean(own):6.2f}"
    )
    for member in stack.built_members():
        print(f"    member {member.name:<12} {1000 * member.seconds / len(pages):7.2f} ms/page")

    folder = Path(tempfile.mkdtemp(prefix="stack-speed-"))
    try:
        source = folder / "pages"
        source.mkdir()
        for page in pages:
            (source / f"{page.id}.html").write_text(page.html, encoding="utf-8")
        python = [sys.executable, "-m", "boilerbench.cli", "extract", "--quiet", "--format", "jsonl"]
        out = str(folder / "out.jsonl")
        runs = {
            f"boilerbench extract --model stack -j {args.jobs}": python
            + ["--model", args.model, "-j", str(args.jobs), "-o", out, str(source)],
            f"boilerbench extract --extractor trafilatura -j {args.jobs}": python
            + ["--extractor", "trafilatura", "-j", str(args.jobs), "-o", out, str(source)],
        }
        tool = shutil.which("trafilatura") or str(Path(sys.executable).with_name("trafilatura"))
        runs[f"trafilatura --input-dir --parallel {args.jobs}"] = [
            tool,
            "--input-dir",
            str(source),
            "--output-dir",
            str(folder / "trafilatura"),
            "--parallel",
            str(args.jobs),
        ]
        for name, command in runs.items():
            seconds = timed(command)
            print(f"  {name:<52} {len(pages) / seconds:7.1f} pages/s ({seconds:.1f} s)")
    finally:
        shutil.rmtree(folder, ignore_errors=True)
    return 0


if __name__ == "__main__":
    run_main(main)
