"""The order in which the launchers hand a sweep's jobs to their workers."""

from __future__ import annotations

from hydra_plugins.boilerbench_dask_launcher.dispatch import dispatch_order, override_key


def test_override_keys_drop_the_grammar_prefixes():
    assert override_key("dataset=cleaneval") == "dataset"
    assert override_key("+headline=stack") == "headline"
    assert override_key("++extractor.seed=3") == "extractor.seed"
    assert override_key("~paths.cache_dir") == "paths.cache_dir"
    assert override_key("dataset@train_dataset=dragnet") == "dataset@train_dataset"


def test_jobs_go_round_robin_over_what_differs_but_the_dataset():
    # extractor=a,b dataset=x,y,z lists a-x a-y a-z b-x b-y b-z: a's three jobs share a's model
    # when it is fitted once for every dataset, so b's jobs go between them
    sweep = [[f"+headline={e}", f"dataset={d}", "experiment=t"] for e in "ab" for d in "xyz"]
    assert dispatch_order(sweep) == [0, 3, 1, 4, 2, 5]
    # unequal groups: the longer one's last jobs run after the other's are gone
    assert dispatch_order(
        [
            ["extractor=a", "dataset=x"],
            ["extractor=a", "dataset=y"],
            ["extractor=a", "dataset=z"],
            ["extractor=b", "dataset=x"],
        ]
    ) == [0, 3, 1, 2]


def test_what_a_model_learns_from_separates_the_groups():
    # the training set and the split decide the model: jobs that differ in them share nothing
    sweep = [
        ["extractor=s", "dataset@train_dataset=dragnet", "dataset=x"],
        ["extractor=s", "dataset@train_dataset=dragnet", "dataset=y"],
        ["extractor=s", "dataset@train_dataset=wcxb", "dataset=x"],
        ["extractor=s", "dataset@train_dataset=wcxb", "dataset=y"],
    ]
    assert dispatch_order(sweep) == [0, 2, 1, 3]
    split = [["extractor=s", "dataset=x", "dataset.split=a"], ["extractor=s", "dataset=x", "dataset.split=b"]]
    assert dispatch_order(split) == [0, 1]
    assert dispatch_order([]) == []


def test_the_parallel_launcher_is_hydras_joblib_launcher_with_that_order():
    from hydra import compose, initialize_config_dir
    from hydra.utils import instantiate

    from boilerbench.configs import CONF_DIR

    with initialize_config_dir(config_dir=str(CONF_DIR), version_base="1.3"):
        cfg = compose("config", overrides=["hydra/launcher=parallel", "n_jobs=3"], return_hydra_config=True)
    launcher = instantiate(cfg.hydra.launcher)
    # (Hydra's plugin scan may load these modules a second time: compare where the classes are defined)
    lineage = [f"{c.__module__}.{c.__name__}" for c in type(launcher).__mro__]
    assert lineage[:2] == [
        "hydra_plugins.boilerbench_dask_launcher.joblib_launcher.JoblibLauncher",
        "hydra_plugins.hydra_joblib_launcher.joblib_launcher.JoblibLauncher",
    ]
    assert launcher.joblib["n_jobs"] == 3 and launcher.joblib["pre_dispatch"] == "2*n_jobs"


def test_the_parallel_launcher_runs_the_jobs_in_that_order_and_returns_them_in_job_order(tmp_path, monkeypatch):
    """The launcher itself, its jobs replaced by a recorder (one joblib job runs in this process):
    it runs bte's first job, all_text's first, then the second ones, each with its own number,
    and returns the results in job order. What would fail: the launcher ignoring the order,
    numbering the jobs by their turn, or returning the results in the order they ran."""
    from hydra import compose, initialize_config_dir
    from omegaconf import open_dict

    from boilerbench.configs import CONF_DIR
    from hydra_plugins.boilerbench_dask_launcher import joblib_launcher

    ran = []

    def record(number, overrides, *_):
        ran.append((number, overrides))
        return number

    monkeypatch.setattr(joblib_launcher, "execute_job", record)
    with initialize_config_dir(config_dir=str(CONF_DIR), version_base="1.3"):
        cfg = compose("config", overrides=["hydra/launcher=parallel"], return_hydra_config=True)
    with open_dict(cfg):
        cfg.hydra.sweep.dir = str(tmp_path / "sweep")
    launcher = joblib_launcher.JoblibLauncher(n_jobs=1)
    launcher.setup(hydra_context=object(), task_function=lambda _: None, config=cfg)
    sweep = [[f"extractor={e}", f"dataset={d}"] for e in ("bte", "all_text") for d in ("x", "y")]
    assert launcher.launch(sweep, initial_job_idx=10) == [10, 11, 12, 13]
    assert ran == [(10, sweep[0]), (12, sweep[2]), (11, sweep[1]), (13, sweep[3])]
