"""Kill tests: ``python run.py`` killed with SIGKILL during extraction, during a fit and while its
model is being saved, then run again with the same command. Nothing half-written is ever loaded,
``boilerbench cache verify`` finds the caches consistent (or removes the unfinished save), and
the rerun's pages are those of an uninterrupted run. A killed run does not resume: its results
are written at the end, so the rerun extracts every page again; what the killed run finished
(per-page artefacts such as gold labels, a saved model) is reused from the caches.

What would fail: a non-atomic artefact or model write (a truncated entry that the rerun loads or
that verify flags), a model folder that exists before its files are complete (the rerun loads
half a model and scores differently), results written page by page and then trusted as complete,
a lock that outlives its killed holder (the rerun hangs).
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from conftest import PROJECT, write_pairs

from boilerbench.cache_verify import verify

PAGES = {
    f"p{n:02d}": (
        f"<body><nav><a>Home</a> <a>News {n}</a></nav><p>Story {n} tells of item{n} and more{n} words.</p>"
        f"<p>{'Known paragraph.' if n % 2 else 'Other paragraph.'}</p><footer>Copyright {n}</footer></body>",
        f"Story {n} tells of item{n} and more{n} words.\nKnown paragraph.",
    )
    for n in range(10)
}
TRAIN = {"t1": PAGES["p01"], "t2": PAGES["p03"]}


def command(tmp_path: Path, root: Path, **settings: float) -> list[str]:
    """The run.py command of a job under ``root`` (its caches and output folder)."""
    return [
        sys.executable,
        "run.py",
        "extractor=bte",
        "extractor._target_=slow_memorising.SlowMemorising",
        "+extractor.min_count=1",
        *(f"+extractor.{name}={value}" for name, value in settings.items()),
        "dataset=plaintext",
        f"dataset.root={write_pairs(tmp_path / 'pages', PAGES)}",
        "dataset@train_dataset=plaintext",
        f"train_dataset.root={write_pairs(tmp_path / 'train', TRAIN)}",
        f"paths.root_dir={root}",
        f"hydra.run.dir={root / 'out'}",
        "progress=false",
        "bootstrap_resamples=0",
    ]


def _env() -> dict[str, str]:
    return {**os.environ, "PYTHONPATH": f"{PROJECT / 'tests'}{os.pathsep}{os.environ.get('PYTHONPATH', '')}"}


def finish(args: list[str]) -> subprocess.CompletedProcess:
    done = subprocess.run(args, cwd=PROJECT, env=_env(), capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr[-2000:]
    return done


def kill_when(args: list[str], ready, timeout: float = 60) -> None:
    """Start ``args``, SIGKILL it once ``ready()`` is true, and check that it died of the signal."""
    job = subprocess.Popen(args, cwd=PROJECT, env=_env(), stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    deadline = time.monotonic() + timeout
    while not ready():
        assert job.poll() is None, "the run ended before it could be killed"
        assert time.monotonic() < deadline, "the moment to kill never came"
        time.sleep(0.05)
    job.send_signal(signal.SIGKILL)
    assert job.wait(timeout=30) == -signal.SIGKILL


def pages_of(root: Path) -> pd.DataFrame:
    """The run's page rows without their timings."""
    return pd.read_csv(root / "out" / "pages.csv", keep_default_na=False).drop(columns="extract_ms")


def entries(root: Path, step: str) -> list[Path]:
    return [p for p in (root / ".cache" / "boilerbench" / step).rglob("*") if p.is_file()]


@pytest.fixture
def reference(tmp_path) -> pd.DataFrame:
    """The pages of an uninterrupted run (its own caches)."""
    finish(command(tmp_path, tmp_path / "reference"))
    return pages_of(tmp_path / "reference")


def models(root: Path) -> list[Path]:
    return sorted((root / "models" / "bte").iterdir()) if (root / "models" / "bte").is_dir() else []


@pytest.mark.slow
def test_killed_during_extraction_then_rerun_gives_the_same_pages(tmp_path, reference):
    root = tmp_path / "killed"
    args = command(tmp_path, root, extract_delay=0.3)
    # 2 training pages, then the test pages' gold labels as they are scored: kill after 4 of 10
    kill_when(args, lambda: len(entries(root, "gold_labels")) >= len(TRAIN) + 4)
    assert not (root / "out" / "summary.json").exists() and not (root / "out" / "pages.csv").exists()
    # the kill may land inside an atomic write: it leaves a temporary file, never a half entry
    report = verify(root / ".cache" / "boilerbench", root / "models", remove=False)
    assert {why for _, why in report.bad} <= {"temporary file of an unfinished write"}
    assert report.checked >= len(TRAIN) + 4 + 1  # labels and the saved model
    finish(args)
    pd.testing.assert_frame_equal(pages_of(root), reference)
    assert verify(root / ".cache" / "boilerbench", root / "models").bad == report.bad  # removed
    assert verify(root / ".cache" / "boilerbench", root / "models").bad == []
    # the rerun computed the labels of the pages the killed run had not reached, once each (the
    # training pages are two of the test pages: the same labels)
    assert len(entries(root, "gold_labels")) == len(PAGES)


@pytest.mark.slow
def test_killed_during_fit_then_rerun_fits_and_gives_the_same_pages(tmp_path, reference):
    root = tmp_path / "killed"
    args = command(tmp_path, root, delay=2)
    locks = root / "models" / ".locks"
    kill_when(args, lambda: locks.is_dir() and any(locks.iterdir()))
    assert models(root) == []  # nothing saved, not even a staging folder
    finish(args)  # the dead process's lock was released by the kernel: no wait
    pd.testing.assert_frame_equal(pages_of(root), reference)
    assert [p.name.startswith(".") for p in models(root)] == [False]


@pytest.mark.slow
def test_killed_while_saving_the_model_never_loads_half_a_model(tmp_path, reference):
    root = tmp_path / "killed"
    args = command(tmp_path, root, save_delay=3)
    kill_when(args, lambda: any(p.name.startswith(".") for p in models(root)))
    (staging,) = models(root)  # half a model, in a staging folder the cache never reads
    assert staging.name.startswith(".")
    finish(args)
    pd.testing.assert_frame_equal(pages_of(root), reference)
    report = verify(root / ".cache" / "boilerbench", root / "models")
    assert [(path, why) for path, why in report.bad] == [(staging, "staging folder of an unfinished save")]
    (model,) = models(root)
    assert not model.name.startswith(".") and verify(None, root / "models").bad == []


def test_cache_verify_removes_exactly_the_bad_entries(tmp_path, capsys):
    """Planted damage, one of each kind, beside good entries: ``boilerbench cache verify`` names and
    removes the damaged ones only; a dry run removes nothing; exit status 1 while any is bad."""
    from boilerbench.cache import cached_array, cached_text, set_cache_dir
    from boilerbench.commands import main

    cache, model_dir = tmp_path / "cache", tmp_path / "models"
    set_cache_dir(cache)
    good = [cached_array("step", "v1", (str(n),), lambda: np.arange(5)) for n in range(3)]
    cached_text("text", "v1", ("x",), lambda: "héllo")
    arrays = sorted((cache / "step").rglob("*.npy"))
    arrays[0].write_bytes(arrays[0].read_bytes()[:-8])  # truncated
    (text,) = (cache / "text").rglob("*.txt")
    (text.parent / f"{'f' * 64}.txt").write_bytes(b"\xff\xfe bad")  # not UTF-8 (and in the wrong shard)
    (arrays[1].parent / f".{arrays[1].name}.abc.tmp").write_bytes(b"half")  # an unfinished write
    (model_dir / "crf" / "k1").mkdir(parents=True)
    (model_dir / "crf" / "k1" / "model.json").write_text('{"fine": 1}')
    (model_dir / "crf" / "k2").mkdir()
    (model_dir / "crf" / "k2" / "model.json").write_text('{"cut')
    (model_dir / "crf" / ".k3.x1").mkdir()
    args = ["cache", "verify", "--dir", str(cache), "--models", str(model_dir)]
    planted = sorted(p for p in cache.rglob("*") if p.is_file() and ".locks" not in p.parts)
    assert main([*args, "--dry-run"]) == 1 and len(planted) == 6
    assert sorted(p for p in cache.rglob("*") if p.is_file() and ".locks" not in p.parts) == planted
    assert main(args) == 1
    out = capsys.readouterr().out
    assert out.count("removed: ") == 5 and "9 entries checked, 5 bad" in out.splitlines()[-1]
    assert sorted(p.name for p in (model_dir / "crf").iterdir()) == ["k1"]
    assert sorted(cache.rglob("*.npy")) == arrays[1:] and text.is_file()
    assert main(args) == 0
    assert cached_array("step", "v1", ("0",), lambda: np.arange(5)).tolist() == good[0].tolist()
