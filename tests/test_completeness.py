"""The store's completeness check (``boilerbench report --complete``): each job of the experiments
``make reports`` runs, keyed as the runner keys it, against the run keys of the store."""

from __future__ import annotations

import pandas as pd
from conftest import write_pairs
from hydra.core.hydra_config import HydraConfig

from boilerbench.experiments import run
from boilerbench.reports.__main__ import main
from boilerbench.reports.completeness import Job, experiment_jobs, job_config, key_of_job, missing_jobs, sweep_jobs

PAGES = {"a": ("<body><div><a>Home</a></div><p>" + "word " * 40 + "</p></body>", "word " * 40)}


def test_a_sweep_is_the_product_of_its_values_first_key_slowest():
    assert sweep_jobs({"extractor": "a,b", "dataset": "x,y,z"}) == [
        ("extractor=a", "dataset=x"),
        ("extractor=a", "dataset=y"),
        ("extractor=a", "dataset=z"),
        ("extractor=b", "dataset=x"),
        ("extractor=b", "dataset=y"),
        ("extractor=b", "dataset=z"),
    ]
    assert sweep_jobs({"+headline": "stack"}) == [("+headline=stack",)]


def test_the_jobs_of_an_experiment_come_from_its_sweep():
    jobs = experiment_jobs("fig_scedd_coefficients")
    assert len(jobs) == 16  # 4 top_coef x 4 bottom_coef
    assert jobs[0] == Job("fig_scedd_coefficients", ("extractor.top_coef=0.0", "extractor.bottom_coef=0.85"))
    assert jobs[-1].overrides == ("extractor.top_coef=0.2", "extractor.bottom_coef=1.0")


def test_the_check_keys_a_job_as_the_runner_does(tmp_path):
    data = write_pairs(tmp_path / "pages", PAGES)
    job = Job(
        "fig_scedd_coefficients",
        ("extractor.top_coef=0.1", "dataset=plaintext", f"dataset.root={data}", f"paths.root_dir={tmp_path}"),
    )
    with job_config(job) as cfg:
        assert "hydra" not in cfg and cfg.report == "fig_scedd_coefficients"
        summary = run(cfg, tmp_path / "run")
    # Hydra's config is set for the job only: a later compose in this process reads its own choices
    assert not HydraConfig.initialized()
    assert key_of_job(job) == summary["run_key"]
    assert key_of_job(Job(job.experiment, ("extractor.top_coef=0.2", *job.overrides[1:]))) != summary["run_key"]


def test_a_job_is_missing_without_its_key_and_a_job_that_cannot_be_planned_says_why():
    jobs = [Job("e", ("x=1",)), Job("e", ("x=2",)), Job("e", ("x=3",))]

    def key_of(job: Job) -> str:
        if job.overrides == ("x=3",):
            raise ValueError("no such dataset")
        return "key" + job.overrides[0][-1]

    missing = missing_jobs(jobs, {"key1"}, key_of)
    assert [m.line() for m in missing] == [
        "missing: e x=2: no row with run key key2",
        "missing: e x=3: cannot plan: ValueError: no such dataset",
    ]


def test_the_command_line_refuses_an_unknown_experiment_and_a_missing_store(tmp_path, capsys):
    store = tmp_path / "runs.csv"
    pd.DataFrame({"run_key": ["k"]}).to_csv(store, index=False)
    assert main(["--complete", str(tmp_path / "none.csv")]) == 2
    assert main(["--complete", str(store), "--experiments", "table_nothing"]) == 2
    err = capsys.readouterr().err
    assert "no such runs file" in err and "not an experiment make reports runs: table_nothing" in err
