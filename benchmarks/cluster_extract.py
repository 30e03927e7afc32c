"""Extraction throughput of ``boilerbench extract`` in one process, in ``-j 2`` local processes and
on a local Dask cluster of two worker processes, on the same pages, with the outputs compared;
and Dask's own per-task overhead (1,000 empty tasks), which decides the batch size.

    BOILERBENCH_DATA=../shared/datasets python -m benchmarks.cluster_extract [--dataset wcxb]
        [--pages 1000] [--extractor trafilatura] [--batch 16]

The pages are every page of the dataset's default split (train, validation and test), first
``--pages`` of them.
"""

from __future__ import annotations

import argparse
from collections.abc import Callable, Iterator

from benchmarks.common import record, run_main, timed
from benchmarks.dataset_speed import load
from boilerbench import page_rows
from boilerbench.errors import import_optional


def noop(x: int) -> int:
    return x


#: The harness's sizes (``python -m benchmarks [--full]``).
QUICK = ["--dataset", "dragnet", "--pages", "100"]
FULL = ["--dataset", "wcxb", "--pages", "1000"]


def rows_of(rows: Callable[[], Iterator[dict]]) -> tuple[list[dict], float]:
    """The rows and the seconds it took to make them all."""
    return timed(lambda: list(rows()))


def texts(rows: list[dict]) -> list[tuple[str, str, str]]:
    return [(r["id"], r["text"], r["error"]) for r in rows]


def main(argv: list[str]) -> int:
    from boilerbench.distributed import run_on_cluster

    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--dataset", default="wcxb")
    parser.add_argument("--pages", type=int, default=1000)
    parser.add_argument("--extractor", default="trafilatura")
    parser.add_argument("--batch", type=int, default=16)
    args = parser.parse_args(argv)
    distributed = import_optional("distributed", "dask[distributed]", 'pip install -e ".[dask]"')

    split, _ = load(args.dataset)
    pages = [*split.train, *split.validation, *split.test][: args.pages]
    items = [page_rows.Item(p.id, p.html.encode("utf-8"), p.url, "utf-8") for p in pages]
    print(f"{len(items)} pages of {args.dataset}, extractor {args.extractor}")

    job = page_rows.Job(page_rows.load_extractor(args.extractor, None), args.extractor)
    local, one_s = rows_of(lambda: page_rows.run_pages(items, job, 1))
    jobs, two_s = rows_of(lambda: page_rows.run_pages(items, job, 2))
    cluster = distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None)
    with distributed.Client(cluster) as client:
        gathered = timed(lambda: client.gather(client.map(noop, range(1000), pure=False)))[1]
        overhead_ms = gathered / 1000 * 1000 * 2  # two workers share the wall time
        client.run(lambda: __import__("boilerbench.page_rows"))  # warm imports, as a long-running cluster has them
        remote, dask_s = rows_of(lambda: run_on_cluster(items, client, args.extractor, None, batch=args.batch))
    cluster.close()

    print(f"dask per-task overhead: {overhead_ms:.2f} ms of worker time per empty task (1,000 tasks, 2 workers)")
    print(f"{'mode':<28} {'pages/s':>9} {'vs one process':>15}")
    for mode, seconds in (("one process", one_s), ("-j 2", two_s), (f"dask 2 workers, batch {args.batch}", dask_s)):
        print(f"{mode:<28} {len(items) / seconds:>9.1f} {one_s / seconds:>14.2f}x")
    for mode, seconds in (("one_process", one_s), ("jobs_2", two_s), ("dask_2_workers", dask_s)):
        record(f"{mode}_pages_per_s", len(items) / seconds)
    record("dask_task_overhead_ms", overhead_ms)
    same = texts(local) == texts(jobs) == texts(remote)
    print(f"identical outputs (id, text, error) in all three modes: {same}")
    return 0 if same else 1


if __name__ == "__main__":
    run_main(main)
