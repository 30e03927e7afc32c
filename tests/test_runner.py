"""The runner end to end on a small plaintext dataset, through Hydra's config composition."""

import json
import multiprocessing
import os
import shutil
import subprocess
import sys
import time
from dataclasses import replace

import numpy as np
import pandas as pd
import pytest
import torch
from conftest import PROJECT, write_pairs
from hydra import compose, initialize_config_dir
from memorising import Memorising

import boilerbench
from boilerbench import cache
from boilerbench.cache import code_version
from boilerbench.configs import CONF_DIR
from boilerbench.datasets.base import Dataset
from boilerbench.errors import ConfigError
from boilerbench.experiments import run
from boilerbench.experiments.results import summary_value
from boilerbench.experiments.reuse import package_versions, reference_packages
from boilerbench.extractors.base import BaseExtractor, Tags

ARTICLE = "<p>" + " ".join(f"word{i}" for i in range(40)) + "</p>"
PAGES = {
    "a": (
        f"<body><div><a>Home</a> <a>News</a></div>{ARTICLE}<p>Copyright 2024</p></body>",
        " ".join(f"word{i}" for i in range(40)),
    ),
    "b": (
        "<body><ul><li><a>Menu</a></li></ul><h1>Title</h1><p>Short story here.</p></body>",
        "<h>Title\n<p>Short story here.",
    ),
    "binary": (bytes(range(256)) * 20, "nothing"),
    "empty": (b"", ""),
}


def make_cfg(tmp_path, *overrides):
    data = write_pairs(tmp_path / "pages", PAGES)
    with initialize_config_dir(config_dir=str(CONF_DIR), version_base="1.3"):
        return compose(
            "config",
            overrides=[
                "dataset=plaintext",
                f"dataset.root={data}",
                f"paths.root_dir={tmp_path}",
                "progress=false",
                *overrides,
            ],
        )


def trained(tmp_path):
    """Overrides that train a learned extractor on pages a and b under other ids (a learned
    extractor with no training pages is refused before it fits)."""
    pages = {f"train_{name}": PAGES[name] for name in ("a", "b")}
    return ("dataset@train_dataset=plaintext", f"train_dataset.root={write_pairs(tmp_path / 'train', pages)}")


def test_run_writes_consistent_results(tmp_path):
    out = tmp_path / "out"
    summary = run(make_cfg(tmp_path, "extractor=bte"), out)
    assert {p.name for p in out.iterdir()} == {"pages.csv", "predictions.jsonl", "summary.json"}
    on_disk = json.loads((out / "summary.json").read_text())
    for key in ("extractor", "dataset", "split", "n_pages", "n_errors", "metrics", "timing", "config"):
        assert key in on_disk
    assert on_disk["n_pages"] == 4 and on_disk["split"] == "all"
    assert set(on_disk["metrics"]) == {"cleaneval", "block", "token", "word", "lcs_error"}
    figures = {"accuracy", "precision", "recall", "f1", "macro_f1"}
    assert set(on_disk["metrics"]["block"]) == figures | {f"{f}_ci95" for f in figures}
    # every figure of the summary has its page-bootstrap interval, around it
    for group, values in on_disk["metrics"].items():
        for name, value in values.items():
            if not name.endswith("_ci95"):
                lo, hi = values[f"{name}_ci95"]
                assert lo <= value <= hi, (group, name)
    assert set(on_disk["timing"]) >= {"extract_ms_per_page", "fit_s"}
    pages = pd.read_csv(out / "pages.csv", keep_default_na=False)
    assert list(pages["page_id"].astype(str)) == ["a", "b", "binary", "empty"]
    assert on_disk["metrics"]["cleaneval"]["mean"] == pytest.approx(pages["cleaneval"].mean())
    assert on_disk["metrics"]["token"]["f1"] == pytest.approx(pages["token_f1"].mean())
    assert on_disk["metrics"]["word"]["f1"] == pytest.approx(pages["word_f1"].mean())
    assert on_disk["metrics"]["lcs_error"]["wrong_rate"] == pytest.approx(pages["lcs_wrong"].mean())
    # the binary page extracts something that is not its gold: error 1, wrong; page a is exact
    assert list(pages["lcs_wrong"]) == [False, pages.loc[1, "lcs_error"] > 0.2, True, False]
    assert pages.loc[0, "lcs_error"] == 0.0 and pages.loc[2, "lcs_error"] == 1.0
    # page a: BTE keeps the article (40 words) and nothing else -> score 100
    assert pages.loc[0, "cleaneval"] == pytest.approx(100.0)
    # the empty page with empty gold scores 100, the binary page 0 against its gold
    assert pages.loc[3, "cleaneval"] == 100.0 and pages.loc[2, "cleaneval"] == 0.0
    preds = [json.loads(line) for line in (out / "predictions.jsonl").read_text().splitlines()]
    assert preds[0]["text"] == " ".join(f"word{i}" for i in range(40))
    assert summary["metrics"] == on_disk["metrics"]


def test_rouge_is_scored_on_request(tmp_path):
    summary = run(make_cfg(tmp_path, "extractor=bte", "rouge=true"), tmp_path / "out")
    pages = pd.read_csv(tmp_path / "out" / "pages.csv", keep_default_na=False)
    assert summary["metrics"]["rouge_lsum"]["f1"] == pytest.approx(pages["rouge_f1"].mean())
    assert pages.loc[0, "rouge_f1"] == 1.0 and pages.loc[3, "rouge_f1"] == 1.0  # exact page; both empty
    assert "rouge_lsum" not in run(make_cfg(tmp_path, "extractor=bte"), tmp_path / "plain")["metrics"]


def test_cross_validation_tests_every_page_once(tmp_path):
    out = tmp_path / "cv"
    summary = run(make_cfg(tmp_path, "extractor=crf", "extractor.max_iterations=20", "cv.folds=2"), out)
    pages = pd.read_csv(out / "pages.csv", keep_default_na=False)
    assert sorted(pages["page_id"].astype(str)) == ["a", "b", "binary", "empty"]
    assert sorted(pages["fold"]) == [1, 1, 2, 2]
    cv = summary["cv"]
    assert summary["split"] == "all/cv2" and cv["folds"] == 2 and cv["pool"] == 4
    assert [f["n_train"] for f in cv["per_fold"]] == [2, 2]
    f1 = [f["block_f1"] for f in cv["per_fold"]]
    assert cv["mean"]["block_f1"] == pytest.approx(np.mean(f1)) and cv["std"]["block_f1"] == pytest.approx(
        np.std(f1, ddof=1)
    )
    assert len(list((tmp_path / "models" / "crf").iterdir())) == 2  # one cached model per fold
    again = run(make_cfg(tmp_path, "extractor=crf", "extractor.max_iterations=20", "cv.folds=2"), tmp_path / "cv2")
    assert all(f["model_loaded_from_cache"] for f in again["cv"]["per_fold"])
    assert again["metrics"] == summary["metrics"]
    with pytest.raises(ConfigError, match="cv.folds=5"):
        run(make_cfg(tmp_path, "extractor=crf", "cv.folds=5"), tmp_path / "bad")


def test_cross_dataset_trains_on_one_and_tests_on_the_other(tmp_path):
    other = write_pairs(
        tmp_path / "other",
        {
            "c": (
                "<body><ul><li><a>Menu</a></li></ul><p>Short story here.</p><p>Unseen words.</p></body>",
                "Short story here.\nUnseen words.",
            ),
        },
    )
    overrides = (
        "extractor=bte",
        "+extractor.min_count=1",
        "extractor._target_=memorising.Memorising",
        "dataset@train_dataset=plaintext",
        f"train_dataset.root={tmp_path / 'pages'}",
    )
    cfg = make_cfg(tmp_path, *overrides)
    cfg.dataset.root = str(other)
    out = tmp_path / "cross"
    summary = run(cfg, out)
    # Trained on the four pages of the first folder (its split has no training part), tested on "c".
    assert summary["trained_on"] == "plaintext/all" and summary["split"] == "all<-plaintext/all"
    assert summary["counts"]["train"] == 4 and summary["n_pages"] == 1
    (prediction,) = [json.loads(line) for line in (out / "predictions.jsonl").read_text().splitlines()]
    assert prediction["page_id"] == "c" and prediction["text"] == "Short story here."
    assert summary["metrics"]["block"]["precision"] == 1.0 and summary["metrics"]["block"]["recall"] == 0.5
    bad = make_cfg(tmp_path, *overrides, "cv.folds=2")
    bad.dataset.root = str(other)
    with pytest.raises(ConfigError, match="exclude each other"):
        run(bad, tmp_path / "bad")
    # trained on the dataset under test: the in-domain run (here cross-validated, as its split has
    # no training pages), never a model scored on its own training pages
    same = run(make_cfg(tmp_path, *overrides, "cv.folds=2"), tmp_path / "same")
    assert "trained_on" not in same and same["cv"]["folds"] == 2 and same["n_pages"] == 4
    with pytest.raises(ConfigError, match="trains on 4 of the test pages"):
        leaky = make_cfg(tmp_path, *overrides)
        leaky.train_dataset.root = f"{tmp_path / 'pages'}/"  # the same folder, another config
        run(leaky, tmp_path / "leaky")


def test_learned_model_is_cached_and_reused(tmp_path):
    overrides = (
        "extractor=bte",
        "+extractor.min_count=1",
        "extractor._target_=memorising.Memorising",
        *trained(tmp_path),
    )
    Memorising.fits = 0
    first = run(make_cfg(tmp_path, *overrides), tmp_path / "r1")
    second = run(make_cfg(tmp_path, *overrides), tmp_path / "r2")
    third = run(make_cfg(tmp_path, *overrides, "retrain=true"), tmp_path / "r3")
    assert Memorising.fits == 2
    assert (
        first["timing"]["model_loaded_from_cache"],
        second["timing"]["model_loaded_from_cache"],
        third["timing"]["model_loaded_from_cache"],
    ) == (False, True, False)
    assert len(list((tmp_path / "models" / "memorising").iterdir())) == 1
    other = run(
        make_cfg(tmp_path, *overrides, "extractor.min_count=2"),
        tmp_path / "r4",
    )
    assert other["timing"]["model_loaded_from_cache"] is False
    assert len(list((tmp_path / "models" / "memorising").iterdir())) == 2


def test_two_processes_needing_one_model_fit_it_once(tmp_path):
    """Parallel jobs of a sweep that need the same model: one fits it (slowly), the other waits
    for the lock and loads it; both score the same pages the same way."""
    overrides = ("extractor=bte", "+extractor.min_count=1", "+extractor.delay=1.5", *trained(tmp_path))
    cfg = make_cfg(tmp_path, *overrides, "extractor._target_=memorising.Memorising")
    with multiprocessing.get_context("fork").Pool(2) as pool:
        summaries = pool.starmap(run, [(cfg, tmp_path / "r1"), (cfg, tmp_path / "r2")])
    loaded = sorted(s["timing"]["model_loaded_from_cache"] for s in summaries)
    assert loaded == [False, True]
    assert len(list((tmp_path / "models" / "memorising").iterdir())) == 1
    assert summaries[0]["metrics"] == summaries[1]["metrics"]


def test_an_identical_run_in_the_output_folder_is_kept_not_rerun(tmp_path, monkeypatch):
    """Rerunning a sweep runs only what changed: the same config, code, packages and pages in the
    same folder keep the earlier results; another config value, rerun=true or an edited page run."""
    overrides = (
        "extractor=bte",
        "+extractor.min_count=1",
        "extractor._target_=memorising.Memorising",
        *trained(tmp_path),
    )
    out = tmp_path / "job"
    Memorising.fits = 0
    first = run(make_cfg(tmp_path, *overrides, "retrain=true"), out)
    stamp = (out / "pages.csv").stat().st_mtime_ns
    # make_cfg writes the pages again (same bytes, new times): the pages are read, their run_key
    # matches, the run is kept and its quick_key (file sizes and times) brought up to date
    cfg = make_cfg(tmp_path, *overrides, "retrain=true", "n_workers=2", "progress=true")
    again = run(cfg, out)
    assert Memorising.fits == 1 and (out / "pages.csv").stat().st_mtime_ns == stamp
    assert {k: v for k, v in again.items() if k != "quick_key"} == {k: v for k, v in first.items() if k != "quick_key"}
    assert again["quick_key"] != first["quick_key"]
    # untouched files: kept on the quick key, without reading a page, whatever the folder the
    # data lives in is called (the same run in another checkout)
    with monkeypatch.context() as patch:
        patch.setattr(Dataset, "load", lambda self: pytest.fail("the pages were read"))
        assert run(cfg, out)["run_key"] == first["run_key"] and Memorising.fits == 1
        shutil.copytree(tmp_path / "pages", tmp_path / "moved")  # copy2: same sizes and times
        moved = cfg.copy()
        moved.dataset.root = str(tmp_path / "moved")
        assert run(moved, out)["run_key"] == first["run_key"] and Memorising.fits == 1
    assert run(make_cfg(tmp_path, *overrides, "retrain=true", "rerun=true"), out)["finished_at"] >= first["finished_at"]
    assert Memorising.fits == 2
    changed = run(make_cfg(tmp_path, *overrides, "retrain=true", "extractor.min_count=2"), out)
    assert Memorising.fits == 3 and changed["run_key"] != first["run_key"]
    cfg = make_cfg(tmp_path, *overrides, "retrain=true")
    write_pairs(tmp_path / "pages", dict(PAGES, b=(PAGES["b"][0].replace("Short story", "Long story"), PAGES["b"][1])))
    assert run(cfg, out)["run_key"] not in (first["run_key"], changed["run_key"])
    assert Memorising.fits == 4


def test_changed_extractor_code_is_refitted_not_loaded(tmp_path, monkeypatch):
    """A model cached by one version of an extractor's code is not reused by another version: the
    model cache keys models by the code version of the extractor's module (and its imports)."""
    package = tmp_path / "src"
    package.mkdir()
    source = (PROJECT / "tests" / "memorising.py").read_text()
    (package / "planted.py").write_text(source)
    monkeypatch.syspath_prepend(str(package))
    overrides = (
        "extractor=all_text",
        "+extractor.min_count=1",
        "extractor._target_=planted.Memorising",
        *trained(tmp_path),
    )
    import planted

    planted.Memorising.fits = 0
    first = run(make_cfg(tmp_path, *overrides), tmp_path / "r1")
    again = run(make_cfg(tmp_path, *overrides), tmp_path / "r2")
    assert (first["timing"]["model_loaded_from_cache"], again["timing"]["model_loaded_from_cache"]) == (False, True)
    # a comment or docstring change is not a code change; a change to what fit does is
    (package / "planted.py").write_text(source.replace('"""A tiny learned', '"""A (reworded) tiny learned'))
    code_version.cache_clear()
    assert run(make_cfg(tmp_path, *overrides), tmp_path / "r3")["timing"]["model_loaded_from_cache"] is True
    (package / "planted.py").write_text(source.replace("counts[text] = counts.get(text, 0) + 1", "counts[text] = 1"))
    code_version.cache_clear()
    changed = run(make_cfg(tmp_path, *overrides), tmp_path / "r4")
    assert changed["timing"]["model_loaded_from_cache"] is False
    assert changed["code_version"] != first["code_version"] and planted.Memorising.fits == 2
    assert len(list((tmp_path / "models" / "memorising").iterdir())) == 2


def test_the_runner_key_reads_neither_the_api_nor_the_reference_adapters(monkeypatch):
    """The runner's code version is in every run key: a change to the Python API, which no run
    executes, or to one reference adapter, whose code is in its own extractor's version, must not
    rerun every job. It fails if the runner imports the package's ``__init__`` (which names the API
    for type checkers) or the adapters' package again; the adapters' versions are still recorded."""
    read: list[str] = []
    real = cache._module_source
    monkeypatch.setattr(cache, "_module_source", lambda name: read.append(name) or real(name))
    code_version.cache_clear()
    try:
        code_version("boilerbench.experiments.runner")
    finally:
        code_version.cache_clear()
    assert "boilerbench.experiments.reuse" in read and "boilerbench.evaluation.token" in read
    assert [m for m in read if m in ("boilerbench", "boilerbench.api") or ".references" in m] == []
    versions = package_versions()
    assert "trafilatura" in reference_packages() and "readability-lxml" in reference_packages()
    assert versions["boilerbench"] == boilerbench.__version__
    assert {"trafilatura", "lxml", "python"} <= set(versions)


def test_a_model_that_fails_to_load_is_refitted_with_a_warning(tmp_path, caplog):
    overrides = (
        "extractor=bte",
        "+extractor.min_count=1",
        "extractor._target_=memorising.Memorising",
        *trained(tmp_path),
    )
    Memorising.fits = 0
    run(make_cfg(tmp_path, *overrides), tmp_path / "r1")
    (saved,) = (tmp_path / "models" / "memorising").iterdir()
    (saved / "content.json").write_text("{not json")
    with caplog.at_level("WARNING"):
        summary = run(make_cfg(tmp_path, *overrides), tmp_path / "r2")
    assert summary["timing"]["model_loaded_from_cache"] is False and Memorising.fits == 2
    assert "could not load the cached model" in caplog.text and "refitting" in caplog.text
    # the refitted model replaced the corrupt one and loads the next time
    assert run(make_cfg(tmp_path, *overrides), tmp_path / "r3")["timing"]["model_loaded_from_cache"] is True


def test_same_seed_same_model_other_seed_other_model(tmp_path):
    """A learned extractor (a short training of the tag-path LSTM) trained twice with the run's seed
    gives the same weights and results; another seed gives other weights."""
    quick = ("extractor=tagpath_lstm", "extractor.epochs=3", "extractor.embedding_epochs=3", "retrain=true")
    weights = {}
    for name, seed in (("x", 3), ("y", 3), ("z", 4)):
        run(make_cfg(tmp_path / name, *quick, f"seed={seed}", "cv.folds=2"), tmp_path / name / "out")
        saved = sorted((tmp_path / name / "models").glob("*/*/tagpath_lstm.pt"))
        assert len(saved) == 2  # one model per fold
        weights[name] = [torch.load(p, weights_only=True) for p in saved]
    scores = {name: pd.read_csv(tmp_path / name / "out" / "pages.csv").drop(columns="extract_ms") for name in weights}
    pd.testing.assert_frame_equal(scores["x"], scores["y"])
    for first, second in zip(weights["x"], weights["y"], strict=True):
        for key in first["net"]:
            assert torch.equal(first["net"][key], second["net"][key])
        assert torch.equal(first["vectors"], second["vectors"])
    assert not torch.equal(weights["x"][0]["vectors"], weights["z"][0]["vectors"])


def _cli(*args, env=None):
    return subprocess.run(
        [sys.executable, "run.py", *args],
        cwd=PROJECT,
        capture_output=True,
        text=True,
        env={**os.environ, **(env or {})},
        timeout=120,
    )


def test_cli_missing_dataset_is_one_clear_message(tmp_path):
    proc = _cli(
        "dataset.download=false",
        f"paths.data_dir={tmp_path}/data",
        f"hydra.run.dir={tmp_path}/run",
        env={"BOILERBENCH_DATA": str(tmp_path / "nowhere")},
    )
    assert proc.returncode == 2
    assert "Traceback" not in proc.stderr
    assert "Dataset 'cleaneval' not found" in proc.stderr and str(tmp_path / "nowhere" / "cleaneval") in proc.stderr


def test_cli_wrong_choice_lists_options(tmp_path):
    proc = _cli("extractor=no_such_thing", f"hydra.run.dir={tmp_path}/run")
    assert proc.returncode == 2
    assert proc.stderr.startswith("error: extractor=no_such_thing: no such option (choose from all_text, ")
    assert ", bte, " in proc.stderr and proc.stderr.count("\n") == 1
    proc = _cli("dataset=plaintext", f"dataset.root={tmp_path}", "dataset.split=train", f"hydra.run.dir={tmp_path}/run")
    assert proc.returncode == 2 and "choose one of: all" in proc.stderr and "Traceback" not in proc.stderr


def test_cli_wrong_extractor_value_is_one_clear_message(tmp_path):
    data = write_pairs(tmp_path / "pages", PAGES)
    proc = _cli(
        "extractor=cetd",
        "extractor.density=heavy",
        "dataset=plaintext",
        f"dataset.root={data}",
        f"hydra.run.dir={tmp_path}/run",
    )
    assert proc.returncode == 2 and "Traceback" not in proc.stderr
    assert "extractor.density='heavy' is not valid; choose one of: td, ctd" in proc.stderr


def test_cli_multirun_sweep_writes_one_summary_per_job(tmp_path):
    data = write_pairs(tmp_path / "pages", PAGES)
    proc = _cli(
        "-m",
        "extractor=scedd",
        "extractor.top_coef=0,0.05,0.1",
        "extractor.mode=short",
        "dataset=plaintext",
        f"dataset.root={data}",
        f"hydra.sweep.dir={tmp_path}/sweep",
        "progress=false",
    )
    assert proc.returncode == 0, proc.stderr
    summaries = sorted((tmp_path / "sweep").glob("*/summary.json"))
    assert [p.parent.name for p in summaries] == ["0_scedd_plaintext", "1_scedd_plaintext", "2_scedd_plaintext"]
    coefs = [json.loads(p.read_text())["config"]["extractor"]["top_coef"] for p in summaries]
    assert coefs == [0.0, 0.05, 0.1]
    for path in summaries:
        pages = pd.read_csv(path.parent / "pages.csv")
        assert set(pages["branch"]) == {"short"} and len(pages) == 4


@pytest.mark.parametrize("launcher", ["parallel", "submitit_local"])
def test_multirun_launchers_run_every_job(tmp_path, launcher):
    # joblib (local parallel, n_jobs from the config) and submitit's local executor (the Slurm
    # launcher's code path, without a cluster)
    data = write_pairs(tmp_path / "pages", PAGES)
    proc = _cli(
        "-m",
        "extractor=bte,all_text",
        "dataset=plaintext",
        f"dataset.root={data}",
        f"hydra/launcher={launcher}",
        "n_jobs=2",
        f"hydra.sweep.dir={tmp_path}/sweep",
        "progress=false",
        "save_predictions=false",
    )
    assert proc.returncode == 0, proc.stderr
    summaries = {
        json.loads(p.read_text())["extractor"]: json.loads(p.read_text())
        for p in (tmp_path / "sweep").rglob("summary.json")
    }
    assert sorted(summaries) == ["all_text", "bte"]
    assert summaries["all_text"]["metrics"]["block"]["recall"] == 1.0
    # each job's folder is named by its place in the sweep, whatever order the jobs ran in
    assert sorted(p.parent.name for p in (tmp_path / "sweep").glob("*/summary.json")) == [
        "0_bte_plaintext",
        "1_all_text_plaintext",
    ]


def test_evaluating_validation_pages_needs_a_split_that_has_them(tmp_path):
    with pytest.raises(ConfigError, match="evaluate_on=validation needs a split with validation pages"):
        run(make_cfg(tmp_path, "evaluate_on=validation"), tmp_path / "out")
    with pytest.raises(ConfigError, match="evaluate_on"):
        run(make_cfg(tmp_path, "evaluate_on=train"), tmp_path / "out")


def test_seed_everything_makes_generators_repeat():
    import random

    import numpy as np
    import torch

    from boilerbench.experiments.seed import seed_everything

    def draw():
        return random.random(), float(np.random.rand()), torch.rand(3).tolist()

    seed_everything(7)
    first = draw()
    seed_everything(7)
    assert draw() == first
    seed_everything(8)
    assert draw() != first


def test_seed_everything_pins_torch_to_one_thread():
    import torch

    from boilerbench.experiments.seed import seed_everything

    before = torch.get_num_threads()
    try:
        torch.set_num_threads(2)
        seed_everything(0)
        assert torch.get_num_threads() == 1
    finally:
        torch.set_num_threads(before)


def _twenty_pages(tmp_path):
    """20 pages, one of them (p07) too large for max_html_chars=1000: 5 % errors."""
    pages = {f"p{i:02d}": (f"<body><p>page {i} text</p></body>", f"page {i} text") for i in range(20)}
    pages["p07"] = ("<body><p>" + "long " * 400 + "</p></body>", "long")
    return write_pairs(tmp_path / "twenty", pages)


def test_cli_error_rate_above_the_limit_exits_1_and_keeps_the_results(tmp_path):
    data = _twenty_pages(tmp_path)
    common = ("dataset=plaintext", f"dataset.root={data}", "max_html_chars=1000", "progress=false")
    proc = _cli(*common, f"hydra.run.dir={tmp_path}/run")
    assert proc.returncode == 1, proc.stderr
    assert "1 of 20 pages failed (5.0 %), above max_error_rate=0.01" in proc.stderr
    assert "page p07: PageTooLarge" in proc.stderr and "Traceback" not in proc.stderr
    summary = json.loads((tmp_path / "run" / "summary.json").read_text())
    assert summary["error_rate"] == 0.05 and summary["error_rate_exceeded"] is True
    assert len(pd.read_csv(tmp_path / "run" / "pages.csv")) == 20
    # the same run with a tolerance of 10 % passes
    assert _cli(*common, "max_error_rate=0.1", f"hydra.run.dir={tmp_path}/ok").returncode == 0


def test_cli_multirun_runs_every_job_then_exits_1(tmp_path):
    data = _twenty_pages(tmp_path)
    proc = _cli(
        "-m",
        "extractor=bte,all_text",
        "dataset=plaintext",
        f"dataset.root={data}",
        "max_html_chars=1000",
        "progress=false",
        f"hydra.sweep.dir={tmp_path}/sweep",
    )
    assert proc.returncode == 1
    assert len(list((tmp_path / "sweep").rglob("summary.json"))) == 2  # both jobs ran and wrote their results
    assert "2 job(s) of this sweep exceeded max_error_rate" in proc.stderr


def test_optimize_names_the_returned_figure():
    summary = {"metrics": {"block": {"f1": 0.5}, "token": {"f1": 0.75}}}
    assert summary_value(summary, "metrics.token.f1") == 0.75
    with pytest.raises(ConfigError, match="metrics.block.f1, metrics.token.f1"):
        summary_value(summary, "metrics.token.nope")


class _Preparing(BaseExtractor):
    """A heuristic whose ``prepare`` takes a known time (or fails) before extraction."""

    def __boilerbench_tags__(self) -> Tags:
        return replace(super().__boilerbench_tags__(), prepares=True)

    def __init__(self, fail: bool = False) -> None:
        self.fail = fail
        self.prepared: list[str] = []

    def prepare(self, pages) -> None:
        if self.fail:
            raise RuntimeError("no encoder")
        self.prepared = [p.id for p in pages]
        time.sleep(0.2)

    def extract(self, page):
        from boilerbench.extractors.base import Extraction

        return Extraction.from_labels(page, np.ones(len(page.blocks), np.int8))


def test_batched_preparation_runs_first_and_its_time_is_spread_over_the_pages(caplog):
    from omegaconf import OmegaConf

    from boilerbench.datasets.page import Page
    from boilerbench.experiments.runner import evaluate

    cfg = OmegaConf.create({"max_html_chars": 100, "progress": False, "n_workers": 1})
    pages = [Page("a", "<p>one two</p>", "one two"), Page("big", "<p>" + "x " * 100 + "</p>", "x")]
    pages.append(Page("broken", "", "", load_error="PageReadError: gone"))
    extractor = _Preparing()
    results = evaluate(extractor, pages, cfg)
    assert extractor.prepared == ["a", "broken"]  # the 100-char limit leaves "big" to extraction (an error)
    rows = {r.row["page_id"]: r.row for r in results}
    assert rows["a"]["extract_ms"] >= 200 / 3 and rows["big"]["error"].startswith("PageTooLarge")
    assert rows["broken"]["extract_ms"] == 0.0  # a page that was not scored gets no share
    failing = evaluate(_Preparing(fail=True), pages[:1], cfg)
    assert failing[0].row["error"] == "" and failing[0].row["token_f1"] == 1.0
    assert "prepare failed (RuntimeError: no encoder)" in caplog.text
