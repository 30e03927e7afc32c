"""``boilerbench extract --cluster``: on a local Dask cluster of two worker processes started
inside the test, the same rows as the local run, in input order, and a worker killed mid-run
loses no page."""

from __future__ import annotations

import os
import signal

import pytest

from boilerbench.page_rows import Item, Job, load_extractor, run_pages

distributed = pytest.importorskip("distributed")
from boilerbench.distributed import run_on_cluster  # noqa: E402

ARTICLE = "The river rose by two metres overnight and the old bridge was closed to traffic until Monday."


def items(n: int) -> list[Item]:
    pages = [Item(f"p{i}", f"<html><body><p>Page {i}: {ARTICLE}</p></body></html>".encode()) for i in range(n)]
    pages[3] = Item("p3", b"")  # a failing page is a row with its error, as locally
    return pages


def local_rows(n: int) -> list[dict]:
    """The rows of ``items(n)`` extracted by ``all_text`` in this process."""
    return list(run_pages(items(n), Job(load_extractor("all_text", None), "all_text")))


def strip_ms(rows: list[dict]) -> list[dict]:
    return [{k: v for k, v in r.items() if k != "ms"} for r in rows]


@pytest.fixture(scope="module")
def client():
    cluster = distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None)
    with distributed.Client(cluster) as c:
        yield c
    cluster.close()


def test_cluster_rows_equal_the_local_rows(client):
    local = local_rows(40)
    remote = list(run_on_cluster(items(40), client, "all_text", None, batch=3, window=2))
    assert strip_ms(remote) == strip_ms(local)
    assert [r["id"] for r in remote] == [f"p{i}" for i in range(40)]
    assert remote[3]["error"] == "empty page" and remote[0]["text"] == f"Page 0: {ARTICLE}"


def test_a_worker_killed_mid_run_loses_no_page(client):
    pids = list(client.run(os.getpid).values())
    rows = run_on_cluster(items(200), client, "all_text", None, batch=2, window=4)
    first = next(rows)
    os.kill(pids[0], signal.SIGKILL)  # the nanny restarts it; its batches run again elsewhere
    rest = list(rows)
    local = local_rows(200)
    assert strip_ms([first, *rest]) == strip_ms(local)
    client.wait_for_workers(2)
    assert pids[0] not in client.run(os.getpid).values(), "the worker was not killed"


def test_a_failed_task_reports_each_of_its_pages(client, tmp_path):
    """A batch whose task fails on the worker (here: a model file the workers cannot read) is
    one row per page, with the task's error, in input order."""
    missing = str(tmp_path / "no.model")
    rows = list(run_on_cluster(items(5), client, None, missing, batch=2, window=1))
    assert [r["id"] for r in rows] == [f"p{i}" for i in range(5)]
    assert all(r["text"] == "" and r["error"].startswith("UsageError: no such model file") for r in rows)
