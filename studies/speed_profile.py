"""Where a page's time goes in a stack: stage by stage, member by member, function by function.

Extracts the pages from raw HTML (a fresh page each time, disk cache off) with a fitted stack
(default: the shipped model) under cProfile, after one untimed warm-up page. Prints the stack's
stage split (``Stack.extract``'s ``info``), each member's share (library call and alignment of
its text apart) and trafilatura's own time on the same pages in the same run (the ratio), and
writes ``reports/out/speed/profile.prof`` (open with snakeviz, or ``python -m pstats``).
The flame graph is py-spy's, of this script (cProfile inflates pure-Python code such as
boilerpy3's tokenizer several times more than C code; the sampler does not), and
``studies/speed_flame_summary.py`` splits py-spy's raw samples by stage and member:

    py-spy record -r 250 -o reports/out/speed/flame.svg -- python studies/speed_profile.py --no-cprofile
    py-spy record -r 250 --format raw -o reports/out/speed/flame.txt -- python studies/speed_profile.py --no-cprofile

    BOILERBENCH_DATA=/work/shared/datasets PYTHONPATH=. python studies/speed_profile.py [--model PATH]
        [--dataset wcxb] [--part validation] [--limit 50]
"""

from __future__ import annotations

import argparse
import cProfile
import pstats
import time
from collections import defaultdict

import numpy as np
from speed_pages import fresh, load_pages, out_dir

from boilerbench.api import load_model
from boilerbench.extractors.references import Trafilatura


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--model", default=None, help="a fitted model file (default: the shipped one)")
    parser.add_argument("--dataset", default="wcxb")
    parser.add_argument("--part", default="validation")
    parser.add_argument("--limit", type=int, default=50)
    parser.add_argument("--no-cprofile", action="store_true", help="no cProfile (under py-spy)")
    args = parser.parse_args()

    trafilatura = Trafilatura()
    # pages over the references' size limit are errors in a run, not timings
    pages = [p for p in load_pages(args.dataset, args.part, args.limit) if len(p.html) <= trafilatura.max_html_chars]
    stack = load_model(args.model).extractor
    stack.extract(fresh(pages[0]))
    trafilatura.extract(fresh(pages[0]))
    for member in stack.built_members():
        member.seconds = 0.0

    infos: list[dict] = []
    reference = 0.0
    profile = None if args.no_cprofile else cProfile.Profile()
    start = time.perf_counter()
    for page in pages:
        if profile is not None:
            profile.enable()
        infos.append(stack.extract(fresh(page)).info)
        if profile is not None:
            profile.disable()
        tick = time.perf_counter()
        trafilatura.extract(fresh(page))
        reference += time.perf_counter() - tick
    total = time.perf_counter() - start - reference
    n = len(pages)
    print(
        f"{n} {args.dataset} {args.part} pages; stack {1000 * total / n:.1f} ms/page"
        f"{'' if profile is None else ' (under cProfile)'}, trafilatura {1000 * reference / n:.1f} ms/page "
        f"(ratio {total / reference:.2f})"
    )
    stages: dict[str, list[float]] = defaultdict(list)
    for info in infos:
        for key, value in info.items():
            if key.endswith("_ms"):
                stages[key].append(value)
    print("stages (ms/page):")
    for key, values in stages.items():
        print(f"  {key:<16} {np.mean(values):8.2f}")
    print("members (ms/page, vote including alignment):")
    for member in stack.built_members():
        print(f"  {member.name:<16} {1000 * member.seconds / n:8.2f}")
    if profile is None:
        return
    path = out_dir() / "profile.prof"
    profile.dump_stats(path)
    print(f"cProfile written to {path}; top functions by own time:")
    pstats.Stats(profile).sort_stats("tottime").print_stats(25)


if __name__ == "__main__":
    main()
