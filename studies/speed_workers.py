"""What keeps ``boilerbench extract -j 2`` from running twice as fast as ``-j 1``: the costs a
worker pays that one process pays once.

1. Start-up: the seconds to import the package and load the model (``api.load_model``), which the
   parent pays before forking.
2. Warm-up in a fresh fork: the command line forks a new pool for every batch of pages
   (``BATCH_PER_WORKER`` per worker); a worker forked from a parent that has extracted nothing
   builds again whatever is built lazily on first use. Measured as the time of one page in a
   child forked right after loading against the same page in a child forked after the parent
   extracted a few pages (and against the page again in the same child).
3. A pool's own cost: forking two workers from the loaded parent, one trivial task each, and the
   pool's shutdown (which waits for each worker's interpreter to exit, freeing the heap it
   inherited), as ``boilerbench extract`` pays it once per batch; and the same with the
   parent's objects frozen out of the garbage collector first (``gc.freeze()``).
4. The straggler wait of a batch: with ``J`` workers the batch lasts as long as its slowest
   worker; from the pages' own times, the idle share of the batch with pages dealt in order.

5. With ``--cli``: pages per second of ``boilerbench extract`` (the shipped model) and of
   ``trafilatura --input-dir`` at ``-j 1`` and ``-j 2`` on the same files, start-up included
   (``benchmarks/speed.py``'s command-line comparison, which this reuses).

    BOILERBENCH_DATA=/work/shared/datasets PYTHONPATH=. python studies/speed_workers.py [--pages 128]
        [--cli --cli-pages 300 --repeats 1]
"""

from __future__ import annotations

import argparse
import gc
import multiprocessing
import os
import sys
import time
from concurrent.futures import ProcessPoolExecutor

import numpy as np
from speed_pages import PROJECT, fresh, load_pages

from boilerbench.experiments.parallel import one_thread

#: Pages per worker in one forked pool of ``boilerbench extract`` (boilerbench/cli.py).
BATCH_PER_WORKER = 64


def in_child(fn) -> float:
    """Seconds of ``fn()`` in a forked child (read back through a pipe), set up as the command
    line's workers are (``one_thread``: without it, LightGBM's predict hangs in a child forked
    after the parent predicted, in OpenMP)."""
    read, write = os.pipe()
    pid = os.fork()
    if pid == 0:
        os.close(read)
        one_thread()
        start = time.perf_counter()
        fn()
        os.write(write, f"{time.perf_counter() - start:.6f}".encode())
        os._exit(0)
    os.close(write)
    with os.fdopen(read) as pipe:
        seconds = float(pipe.read())
    os.waitpid(pid, 0)
    return seconds


def pool_round_trip(jobs: int = 2) -> float:
    """Seconds to fork a pool of ``jobs`` workers as the command line does, run one trivial task
    on each and shut it down (median of three)."""
    context = multiprocessing.get_context("fork")
    times = []
    for _ in range(3):
        start = time.perf_counter()
        with ProcessPoolExecutor(jobs, mp_context=context, initializer=one_thread) as pool:
            list(pool.map(abs, range(jobs)))
        times.append(time.perf_counter() - start)
    return float(np.median(times))


def idle_share(ms: np.ndarray, jobs: int, batch: int) -> float:
    """Share of worker time idle at the ends of batches when pages of ``ms`` are taken in order by
    whichever of ``jobs`` workers is free, in pools of ``batch`` pages."""
    busy = idle = 0.0
    for start in range(0, len(ms), batch):
        free = np.zeros(jobs)
        for value in ms[start : start + batch]:
            free[np.argmin(free)] += value
        busy += free.sum()
        idle += (free.max() - free).sum()
    return idle / (busy + idle)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--dataset", default="wcxb")
    parser.add_argument("--part", default="all")
    parser.add_argument("--pages", type=int, default=128)
    parser.add_argument("--cli", action="store_true", help="time the command-line tools instead")
    parser.add_argument("--cli-pages", type=int, default=300)
    parser.add_argument("--repeats", type=int, default=1)
    args = parser.parse_args()
    if args.cli:
        sys.path.insert(0, str(PROJECT / "benchmarks"))
        from speed import cli_speeds

        from boilerbench.api import DEFAULT_MODEL

        cli_speeds(load_pages(args.dataset, args.part, args.cli_pages), [str(DEFAULT_MODEL)], [1, 2], args.repeats)
        return
    pages = load_pages(args.dataset, args.part, args.pages)

    start = time.perf_counter()
    from boilerbench.api import load_model

    imported = time.perf_counter()
    stack = load_model().extractor
    loaded = time.perf_counter()
    print(f"start-up: imports {imported - start:.2f} s, model load {loaded - imported:.2f} s (once, before forking)")

    probe = pages[len(pages) // 2]
    cold = in_child(lambda: stack.extract(fresh(probe)))
    again = in_child(lambda: (stack.extract(fresh(probe)), stack.extract(fresh(probe))))
    for page in pages[:3]:
        stack.extract(fresh(page))
    warm = in_child(lambda: stack.extract(fresh(probe)))
    print(
        f"one page in a child forked after loading: {1000 * cold:.0f} ms; forked after the parent extracted "
        f"3 pages: {1000 * warm:.0f} ms; first-use cost a fresh pool pays per worker: {1000 * (cold - warm):.0f} ms "
        f"(same page twice in one cold child: {1000 * again:.0f} ms)"
    )

    for freeze in (False, True):
        if freeze:
            gc.freeze()
        print(
            f"a pool of 2 forked workers, 2 trivial tasks, shut down{' (gc.freeze)' if freeze else ''}: "
            f"{1000 * pool_round_trip():.0f} ms"
        )
    gc.unfreeze()

    ms = np.empty(len(pages))
    for k, page in enumerate(pages):
        tick = time.perf_counter()
        stack.extract(fresh(page))
        ms[k] = 1000 * (time.perf_counter() - tick)
    print(f"{len(pages)} pages: mean {ms.mean():.0f} ms, p95 {np.percentile(ms, 95):.0f}, max {ms.max():.0f}")
    for jobs in (2,):
        share = idle_share(ms, jobs, BATCH_PER_WORKER * jobs)
        print(f"  -j {jobs}: idle share at batch ends {share:.1%} (batches of {BATCH_PER_WORKER * jobs} pages)")
        cost = (cold - warm) * 1000 * jobs / (BATCH_PER_WORKER * jobs) / ms.mean()
        print(f"  -j {jobs}: fresh-pool warm-up as a share of a batch's work {cost:.1%}")


if __name__ == "__main__":
    main()
