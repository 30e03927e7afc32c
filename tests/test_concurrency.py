"""Two processes on one cache: the same artefact or the same model needed at the same moment is
made once; the other process waits for it and reads it; no corrupt, doubled or temporary file
is left. What would fail: a cache without inter-process locks (both compute: two lines in the
log of computations, two fits), a non-atomic write (a reader sees half a file), a staging file
or folder left behind."""

from __future__ import annotations

import json
import multiprocessing
import os
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
from conftest import PROJECT, write_pairs

from boilerbench.cache import cached_array, set_cache_dir

PAGES = {
    "a": ("<body><div><a>Home</a></div><p>Alpha story text here.</p></body>", "Alpha story text here."),
    "b": ("<body><ul><li>Menu</li></ul><p>Beta story text here.</p></body>", "Beta story text here."),
}


def _compute_artefact(cache: str, log: str, start: float) -> list[float]:
    """In a fresh process: wait for the common start, then ask for one slow artefact."""
    set_cache_dir(cache)
    time.sleep(max(0.0, start - time.time()))

    def slow() -> np.ndarray:
        with open(log, "a") as handle:  # one line per computation
            handle.write(f"{os.getpid()}\n")
        time.sleep(1.0)
        return np.arange(100_000, dtype=np.float64)

    return cached_array("concurrency", "v1", ("page",), slow)[:3].tolist()


def test_two_processes_writing_one_artefact_compute_it_once(tmp_path):
    log = tmp_path / "computed.log"
    start = time.time() + 1.5  # both processes are started and importing by then
    with multiprocessing.get_context("spawn").Pool(2) as pool:
        values = pool.starmap(_compute_artefact, [(str(tmp_path / "cache"), str(log), start)] * 2)
    assert values == [[0.0, 1.0, 2.0]] * 2
    assert len(log.read_text().split()) == 1  # one did the work, the other waited and read it
    files = [p for p in (tmp_path / "cache" / "concurrency").rglob("*") if p.is_file()]
    assert len(files) == 1 and files[0].suffix == ".npy"  # no temporary or doubled file
    assert np.load(files[0], allow_pickle=False).shape == (100_000,)


def test_two_run_py_processes_fitting_one_model_fit_it_once(tmp_path):
    """Two ``python run.py`` jobs (a parallel sweep's) need the same model: one fits it (slowly),
    the other waits for the lock and loads it; both score the pages the same way."""
    test = write_pairs(tmp_path / "pages", PAGES)
    train = write_pairs(tmp_path / "train", {f"t{k}": v for k, v in PAGES.items()})
    args = [
        sys.executable,
        "run.py",
        "extractor=bte",
        "extractor._target_=memorising.Memorising",
        "+extractor.min_count=1",
        "+extractor.delay=2",
        "dataset=plaintext",
        f"dataset.root={test}",
        "dataset@train_dataset=plaintext",
        f"train_dataset.root={train}",
        f"paths.root_dir={tmp_path}",
        "progress=false",
    ]
    env = {**os.environ, "PYTHONPATH": f"{PROJECT / 'tests'}{os.pathsep}{os.environ.get('PYTHONPATH', '')}"}
    jobs = [
        subprocess.Popen([*args, f"hydra.run.dir={tmp_path / name}"], cwd=PROJECT, env=env, stderr=subprocess.PIPE)
        for name in ("r1", "r2")
    ]
    for job in jobs:
        assert job.wait(timeout=120) == 0, job.stderr.read().decode() if job.stderr else ""
    summaries = [json.loads((tmp_path / name / "summary.json").read_text()) for name in ("r1", "r2")]
    assert sorted(s["timing"]["model_loaded_from_cache"] for s in summaries) == [False, True]
    assert summaries[0]["metrics"] == summaries[1]["metrics"]
    models = tmp_path / "models" / "bte"  # the config choice names the folder
    assert [p.name.startswith(".") for p in models.iterdir()] == [False]  # one model, no staging folder
    (model,) = models.iterdir()
    assert sorted(json.loads(Path(model / "content.json").read_text())) == sorted(
        ["Alpha story text here.", "Beta story text here."]
    )
