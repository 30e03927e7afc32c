"""The engine that applies an extractor to pages (:mod:`boilerbench.engine`), as the runner and
``boilerbench extract`` use it: a worker SIGKILLed on a page (the page fails as ``WorkerCrashed``,
the run finishes, exit status 1), a page past ``page_timeout_s`` (it fails as ``PageTimeout``,
its worker is killed and replaced, the next pages are extracted), the size limit and its
deprecated key, and the one error format.

What would fail: a pool that hangs, stops or loses rows when a worker dies (the previous pool
raised ``BrokenProcessPool`` when a worker died while pages were being handed out), a time limit
that waits for the page (a thread cannot be killed), a killed worker not replaced (the pages after
it never run), a worker left running after the run or after its parent died, a failed page that
does not count for the exit status.
"""

from __future__ import annotations

import json
import multiprocessing
import os
import subprocess
import sys
import time

import pandas as pd
import pytest
from conftest import PROJECT, write_pairs
from misbehaving import Misbehaving
from omegaconf import OmegaConf

import boilerbench.api  # noqa: F401  (imported here, as a real run has it, not in each fresh worker)
from boilerbench import cli, commands
from boilerbench.datasets.page import Page
from boilerbench.engine.extraction import PageTimeout, extract_safely
from boilerbench.engine.pool import run_in_workers, stream_in_workers
from boilerbench.errors import ConfigError, describe
from boilerbench.experiments import runner
from boilerbench.experiments.parallel import evaluate_pages

pytestmark = pytest.mark.skipif(not hasattr(os, "fork"), reason="worker processes need fork")

#: Seconds a page may take in these tests; the sleeping page sleeps far longer.
LIMIT_S = 2.0


def story(n: int) -> str:
    return f"Story {n} tells of item{n} and more{n} words."


def html(n: int) -> str:
    return f"<html><body><p>{story(n)}</p></body></html>"


PAGES = [Page(f"p{n:02d}", html(n), story(n)) for n in range(6)]


def test_a_page_past_the_time_limit_is_a_timeout_and_the_next_pages_are_extracted():
    start = time.monotonic()
    results = evaluate_pages(Misbehaving(sleep_on="p01", sleep_s=60), PAGES, 10**6, page_timeout_s=LIMIT_S)
    assert time.monotonic() - start < 30, "the run waited for the sleeping page"
    assert [r.row["page_id"] for r in results] == [p.id for p in PAGES]
    errors = [r.row["error"] for r in results]
    assert errors == ["", f"PageTimeout: page took more than {LIMIT_S:g} s", "", "", "", ""]
    assert results[1].row["extract_ms"] == 1000 * LIMIT_S and results[1].text == ""
    assert [r.row["token_f1"] for r in results] == [1.0, 0.0, 1.0, 1.0, 1.0, 1.0]
    assert multiprocessing.active_children() == [], "a worker outlived the run"


def test_two_workers_one_sigkilled_on_a_page_one_past_the_time_limit():
    extractor = Misbehaving(die_on="p02", sleep_on="p04", sleep_s=60)
    results = evaluate_pages(extractor, PAGES, 10**6, n_workers=2, page_timeout_s=LIMIT_S)
    errors = {r.row["page_id"]: r.row["error"] for r in results if r.row["error"]}
    assert errors == {
        "p02": "WorkerCrashed: the worker process died twice on page 'p02'",
        "p04": f"PageTimeout: page took more than {LIMIT_S:g} s",
    }
    assert [r.text for r in results if not r.row["error"]] == [story(n) for n in (0, 1, 3, 5)]
    assert multiprocessing.active_children() == []


def test_a_bug_in_the_task_is_raised_not_recorded():
    def task(index: int) -> int:
        if index == 2:
            raise ZeroDivisionError("a bug")
        return index

    done: dict[int, int] = {}
    with pytest.raises(ZeroDivisionError, match="a bug"):
        run_in_workers(task, 4, 2, done.__setitem__, lambda i, e: None)
    assert multiprocessing.active_children() == []


def test_a_stream_is_served_by_the_same_workers_in_input_order_reading_a_window_ahead():
    # a pool that forks its workers again for each batch would show more than two pids; one that
    # waits for a batch's slowest page, or reads the whole input first, more than 4 pages ahead
    read: list[int] = []

    def payloads():
        for n in range(40):
            read.append(n)
            yield n

    def task(n: int) -> tuple[int, int]:
        time.sleep(0.05 if n % 7 == 0 else 0.0)
        return n * n, os.getpid()

    ahead = []
    rows = []
    for n, (square, pid), ok in stream_in_workers(task, payloads(), 2, window=4):
        ahead.append(len(read) - n - 1)
        rows.append((n, square, ok, pid))
    assert [(n, square, ok) for n, square, ok, _ in rows] == [(n, n * n, True) for n in range(40)]
    assert len({pid for *_, pid in rows}) == 2 and os.getpid() not in {pid for *_, pid in rows}
    assert max(ahead) <= 3 and multiprocessing.active_children() == []


def test_the_runner_reads_its_time_limit_and_size_limit_from_the_config(caplog):
    cfg = OmegaConf.create(
        {"max_html_chars": 10**6, "max_page_mb": None, "page_timeout_s": LIMIT_S, "progress": False, "n_workers": 1}
    )
    results = runner.evaluate(Misbehaving(sleep_on="p03", sleep_s=60), PAGES, cfg)
    assert [r.row["error"][:11] for r in results] == ["", "", "", "PageTimeout", "", ""]
    caplog.clear()
    cfg.max_html_chars = len(html(0)) - 1
    assert runner.max_html_chars(cfg) == len(html(0)) - 1 and not caplog.records
    cfg.max_page_mb = 0.001  # the deprecated key still works: a thousand characters, and one warning
    assert runner.max_html_chars(cfg) == 1000
    assert [r.getMessage() for r in caplog.records] == [
        "max_page_mb is deprecated (it counts characters): use max_html_chars=1000"
    ]


@pytest.mark.parametrize("value", [0, -1, "soon", True])
def test_a_bad_time_limit_is_a_config_error(value):
    with pytest.raises(ConfigError, match="page_timeout_s="):
        runner.page_timeout(OmegaConf.create({"page_timeout_s": value}))


def test_one_error_format_for_size_limit_and_extractor_errors():
    page = Page("big", html(1), story(1))
    assert extract_safely(Misbehaving(), page, 10) == (None, f"PageTooLarge: {len(page.html):,} characters > limit 10")
    assert describe(PageTimeout(1.5)) == "PageTimeout: page took more than 1.5 s"
    assert describe(ValueError("x" * 600)) == "ValueError: " + "x" * 488


@pytest.fixture
def folder(tmp_path):
    pages = tmp_path / "pages"
    pages.mkdir()
    for n in range(6):
        (pages / f"p{n}.html").write_text(html(n), encoding="utf-8")
    return pages


def extract(args: list[str], extractor: Misbehaving, capsys, monkeypatch) -> tuple[int, list[dict], str]:
    """``boilerbench extract ARGS`` with ``extractor``: exit status, rows, standard error."""
    monkeypatch.setattr(cli, "load_extractor", lambda *a: extractor)
    status = commands.main(["extract", "--extractor", "all_text", "--format", "jsonl", "--quiet", *args])
    out, err = capsys.readouterr()
    return status, [json.loads(line) for line in out.splitlines()], err


def test_extract_j2_with_a_worker_sigkilled_on_a_page_finishes_and_exits_1(folder, capsys, monkeypatch):
    status, rows, err = extract(["-j", "2", str(folder)], Misbehaving(die_on="p3"), capsys, monkeypatch)
    assert status == 1
    assert [(r["id"].rsplit("/", 1)[-1], r["status"]) for r in rows] == [
        (f"p{n}.html", "failed" if n == 3 else "extracted") for n in range(6)
    ]
    assert rows[3]["error"] == f"WorkerCrashed: the worker process died twice on page '{folder / 'p3.html'}'"
    assert [r["text"] for r in rows if r["status"] == "extracted"] == [story(n) for n in (0, 1, 2, 4, 5)]
    assert err.splitlines()[-1] == "6 pages: 5 extracted, 0 empty, 1 failed, 0 skipped"
    assert multiprocessing.active_children() == []


def test_extract_page_timeout_fails_the_page_and_extracts_the_next(folder, capsys, monkeypatch):
    extractor = Misbehaving(sleep_on="p1", sleep_s=60)
    status, rows, err = extract(["--page-timeout", str(LIMIT_S), str(folder)], extractor, capsys, monkeypatch)
    assert status == 1
    assert [r["status"] for r in rows] == ["extracted", "failed", "extracted", "extracted", "extracted", "extracted"]
    assert rows[1]["error"] == f"PageTimeout: page took more than {LIMIT_S:g} s" and rows[1]["ms"] == 1000 * LIMIT_S
    assert err.splitlines()[-1] == "6 pages: 5 extracted, 0 empty, 1 failed, 0 skipped"


@pytest.mark.parametrize("value", ["0", "-2", "soon"])
def test_extract_bad_page_timeout_is_one_line_exit_2(folder, capsys, value):
    with pytest.raises(SystemExit) as exit_info:
        commands.main(["extract", "--page-timeout", value, str(folder)])
    err = capsys.readouterr().err
    assert exit_info.value.code == 2 and len(err.splitlines()) == 1 and "--page-timeout" in err


@pytest.mark.slow
def test_run_py_n_workers_2_with_a_sigkilled_worker_and_a_timeout_finishes_and_exits_1(tmp_path):
    """``python run.py`` with 10 pages: one kills its worker, one sleeps past ``page_timeout_s``.
    The run writes every page; 2 of 10 failed is above ``max_error_rate`` (0.01): exit status 1."""
    pages = {f"p{n:02d}": (html(n), story(n)) for n in range(10)}
    args = [
        sys.executable,
        "run.py",
        "extractor=all_text",
        "extractor._target_=misbehaving.Misbehaving",
        "+extractor.die_on=p03",
        "+extractor.sleep_on=p06",
        "+extractor.sleep_s=60",
        "dataset=plaintext",
        f"dataset.root={write_pairs(tmp_path / 'pages', pages)}",
        f"paths.root_dir={tmp_path}",
        f"hydra.run.dir={tmp_path / 'out'}",
        "n_workers=2",
        f"page_timeout_s={LIMIT_S}",
        "progress=false",
        "bootstrap_resamples=0",
    ]
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(PROJECT / "tests"), os.environ.get("PYTHONPATH", "")])}
    done = subprocess.run(args, cwd=PROJECT, env=env, capture_output=True, text=True, timeout=120)
    assert done.returncode == 1, done.stderr[-2000:]
    assert "error: 2 of 10 pages failed (20.0 %), above max_error_rate=0.01" in done.stderr
    rows = pd.read_csv(tmp_path / "out" / "pages.csv", keep_default_na=False).set_index("page_id")
    assert list(rows.index) == list(pages)
    errors = rows.loc[rows.error != "", "error"].to_dict()
    assert errors == {
        "p03": "WorkerCrashed: the worker process died twice on page 'p03'",
        "p06": f"PageTimeout: page took more than {LIMIT_S:g} s",
    }
    assert (rows.drop(index=["p03", "p06"]).token_f1 == 1.0).all()


def _gone(pid: int) -> bool:
    """Whether process ``pid`` has exited (a zombie waiting for its reaper counts as gone)."""
    try:
        with open(f"/proc/{pid}/stat") as stat:
            return stat.read().rsplit(")", 1)[1].split()[0] in ("Z", "X")
    except FileNotFoundError:
        return True


@pytest.mark.skipif(not os.path.isdir("/proc"), reason="reads /proc")
def test_workers_end_when_their_parent_is_sigkilled(tmp_path):
    """A SIGKILLed run (test_kill's) leaves no worker behind: each one sees its pipe close."""
    script = (
        "import os, sys, time\n"
        "from boilerbench.engine.pool import run_in_workers\n"
        "def task(i):\n"
        "    open(os.path.join(sys.argv[1], str(os.getpid())), 'w').close()\n"
        "    time.sleep(0.2)\n"
        "run_in_workers(task, 10_000, 2, lambda i, r: None, lambda i, e: None)\n"
    )
    parent = subprocess.Popen([sys.executable, "-c", script, str(tmp_path)], cwd=PROJECT)
    deadline = time.monotonic() + 30
    while len(list(tmp_path.iterdir())) < 2:
        assert time.monotonic() < deadline and parent.poll() is None
        time.sleep(0.05)
    parent.kill()
    parent.wait()
    workers = [int(p.name) for p in tmp_path.iterdir()]
    while not all(_gone(pid) for pid in workers) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert all(_gone(pid) for pid in workers), "a worker outlived its parent"
