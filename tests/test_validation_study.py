"""The validation studies' comparison table (studies/stack_validation.py, studies/model_validation.py):
each row's pages, each model's mean and its paired difference from the first model."""

import pytest

from boilerbench.errors import ConfigError
from studies.model_validation import main
from studies.stack_validation import print_comparison


def test_the_table_gives_each_models_mean_and_its_paired_difference_from_the_first(capsys):
    scores = {
        "all": {"a": [0.5, 1.0, 0.75], "b": [0.5, 1.0, 1.0]},
        "daniel:ru": {"a": [0.4], "b": [0.2]},
    }
    print_comparison(scores)
    lines = capsys.readouterr().out.splitlines()
    assert lines[0] == "| rows | pages | a | b | b − a |"
    assert lines[1] == "|---|---|---|---|---|"
    # b - a on the three pages: 0, 0, +0.25: mean +0.0833, its bootstrap interval within [0, 0.25]
    assert lines[2].startswith("| all | 3 | 0.7500 | 0.8333 | +0.0833 [")
    low, high = (float(x) for x in lines[2].split("[")[1].rstrip(" |]").split(", "))
    assert 0.0 <= low <= 0.0833 <= high <= 0.25
    # one page: the interval is the page's difference
    assert lines[3] == "| daniel:ru | 1 | 0.4000 | 0.2000 | -0.2000 [-0.2000, -0.2000] |"


@pytest.mark.parametrize(
    "argv", [["a=+headline=arbiter"], ["a=+headline=arbiter", "b"], ["a=+headline=arbiter", "b= "]]
)
def test_the_model_study_needs_two_models_each_with_its_overrides(argv):
    with pytest.raises(ConfigError, match='NAME="OVERRIDES"'):
        main(argv)


@pytest.mark.parametrize(
    "vote",
    ["v=a,b", "v=a,b,c,d", "v=a,b,z", "v=a"],  # even, even, a model not named, too few
)
def test_a_vote_needs_an_odd_number_of_the_models_named_three_or_more(vote):
    # what would fail: a tie-prone vote of two or four fits, or a vote of a model never fitted, let through
    # (checked before any model is fitted: the overrides below would take minutes to fit)
    argv = ["a=+headline=arbiter", "b=+headline=arbiter seed=1", "c=+headline=arbiter seed=2", "--vote", vote]
    with pytest.raises(ConfigError, match="NAME=A,B,C"):
        main(argv)


def test_planned_model_is_the_runs_fit_of_the_fold_that_tests_the_pages_and_comes_from_the_cache(tmp_path, monkeypatch):
    # what would fail: the first fold taken whatever the pages, or the model refitted where the
    # runner's key finds it in the cache
    from conftest import write_pairs
    from hydra.core.hydra_config import HydraConfig
    from memorising import Memorising

    from studies.model_validation import planned_model

    # planned_model sets Hydra's global config, as a run does: put it back for the tests after this one
    monkeypatch.setattr(HydraConfig.instance(), "cfg", HydraConfig.instance().cfg)

    pages = {
        name: (f"<body><p>Story {name} here today.</p><p>Menu</p></body>", f"Story {name} here today.")
        for name in ("a", "b", "c", "d")
    }
    overrides = [
        "extractor=bte",
        "+extractor.min_count=1",
        "extractor._target_=memorising.Memorising",
        "dataset=plaintext",
        f"dataset.root={write_pairs(tmp_path / 'pages', pages)}",
        "cv.folds=2",
        f"paths.model_dir={tmp_path / 'models'}",
        f"paths.cache_dir={tmp_path / 'cache'}",
    ]
    Memorising.fits = 0
    first, fit = planned_model(overrides)
    folds = {name: planned_model(overrides, name)[1].fold for name in pages}
    assert fit.fold == 1 and sorted(folds.values()) == [1, 1, 2, 2]
    model, fit_c = planned_model(overrides, "c")
    assert [p.id for p in fit_c.test if p.id == "c"] == ["c"]
    assert "Story c here today." not in model.content_  # the fold that tests c never saw it
    assert Memorising.fits == 2  # one per fold, then every model loaded from the cache
