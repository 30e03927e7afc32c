"""``hydra/launcher=dask``: a sweep run on a local two-worker Dask cluster gives the same results
as the same sweep run locally, job for job."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pandas as pd
import pytest
from conftest import PROJECT, TWO_PAGES, write_pairs

distributed = pytest.importorskip("distributed")

#: Columns that measure how long a page took, not what came out.
TIMINGS = ("extract_ms", "score_ms")


def _sweep(tmp_path, folder, *launcher, extractors="bte,cetd"):
    return subprocess.run(
        [
            sys.executable,
            "run.py",
            "-m",
            f"extractor={extractors}",
            "dataset=plaintext",
            f"dataset.root={tmp_path / 'pages'}",
            f"paths.root_dir={tmp_path}",
            f"hydra.sweep.dir={tmp_path / folder}",
            "progress=false",
            *launcher,
        ],
        cwd=PROJECT,
        capture_output=True,
        text=True,
        env={**os.environ, "PYTHONPATH": str(PROJECT)},
        timeout=300,
    )


def _results(folder):
    runs = {}
    for summary_file in sorted(folder.glob("*/summary.json")):
        summary = json.loads(summary_file.read_text())
        pages = pd.read_csv(summary_file.parent / "pages.csv", dtype={"page_id": str}, keep_default_na=False)
        runs[summary_file.parent.name] = (
            summary["metrics"],
            summary["run_key"],
            pages.drop(columns=[c for c in pages.columns if c in TIMINGS]),
        )
    return runs


@pytest.mark.slow
def test_a_sweep_on_a_two_worker_cluster_gives_the_local_results(tmp_path):
    write_pairs(tmp_path / "pages", TWO_PAGES)
    done = _sweep(tmp_path, "local")
    assert done.returncode == 0, done.stderr[-3000:]
    local = _results(tmp_path / "local")
    with distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True) as cluster:
        on = ("hydra/launcher=dask", f"hydra.launcher.address={cluster.scheduler_address}")
        with distributed.Client(cluster) as client, distributed.get_task_stream(client) as stream:
            ran = _sweep(tmp_path, "dask", *on)
        # a job refused for its configuration ends the sweep as a local one ends: one line, status 2
        refused = _sweep(tmp_path, "refused", *on, extractors="crf")
    assert ran.returncode == 0, ran.stderr[-3000:]
    assert refused.returncode == 2 and "Traceback" not in refused.stderr
    assert "exited with status 2: error: extractor crf learns from training pages" in refused.stderr
    # the jobs were tasks of that cluster's workers, and each wrote what the local sweep wrote
    assert f"Dask launcher: 2 jobs on {cluster.scheduler_address}" in ran.stdout + ran.stderr
    assert sorted(t["key"].rsplit("-", 1)[-1] for t in stream.data if str(t["key"]).startswith("hydra-job-")) == [
        "0",
        "1",
    ]
    on_cluster = _results(tmp_path / "dask")
    assert sorted(on_cluster) == sorted(local) == ["0_bte_plaintext", "1_cetd_plaintext"]
    for job, (metrics, run_key, pages) in local.items():
        assert on_cluster[job][0] == metrics and on_cluster[job][1] == run_key
        pd.testing.assert_frame_equal(on_cluster[job][2], pages)


def test_the_launcher_is_a_hydra_launcher_option():
    from hydra import compose, initialize_config_dir

    from boilerbench.configs import CONF_DIR

    with initialize_config_dir(config_dir=str(CONF_DIR), version_base="1.3"):
        cfg = compose(
            "config", overrides=["hydra/launcher=dask", "hydra.launcher.n_workers=3"], return_hydra_config=True
        )
    assert cfg.hydra.launcher._target_ == "hydra_plugins.boilerbench_dask_launcher.dask_launcher.DaskLauncher"
    assert cfg.hydra.launcher.address is None and cfg.hydra.launcher.n_workers == 3
