"""The protocol as one configured object (boilerbench.experiments.protocols): the switches of
earlier versions map onto the protocol they named, a protocol resolves into the one a run
follows once its split is known, and summaries of every version are read as the protocol they
ran. What would fail: an old command line silently running another protocol, a mixture read as a
cross-dataset run, a fallback used for a heuristic or a split with training pages of its own."""

from __future__ import annotations

import pytest
from hydra import compose, initialize_config_dir

from boilerbench.configs import CONF_DIR
from boilerbench.datasets.base import Split
from boilerbench.datasets.page import Page
from boilerbench.errors import ConfigError
from boilerbench.experiments.protocols import (
    CV,
    CrossDataset,
    Fallback,
    InDomain,
    Mixture,
    configured_protocol,
)
from boilerbench.experiments.results import legacy_protocol_name, protocol_name


def _cfg(*overrides: str):
    with initialize_config_dir(config_dir=str(CONF_DIR), version_base="1.3"):
        return compose("config", overrides=["paths.root_dir=.", *overrides])


@pytest.mark.parametrize(
    ("overrides", "expected"),
    [
        ((), InDomain()),
        (("evaluate_on=validation",), InDomain(evaluate_on="validation")),
        (("cv.folds=5",), CV(folds=5)),
        (("cv.folds=3", "cv.pool=all"), CV(folds=3, pool="all")),
        (("cv.folds=5", "cv.auto=true"), CV(folds=5, auto=True)),
        (("cv.folds=2", "train_on=[dragnet,wcxb:all]"), CV(folds=2, train_on=["dragnet", "wcxb:all"])),
        (
            ("train_on=[cleaneval,dragnet]", "train_weights=proportional"),
            Mixture(["cleaneval", "dragnet"], "proportional"),
        ),
        (("cv.folds=5", "cv.auto=true", "train_on=[dragnet]"), Mixture(["dragnet"])),
        (("fallback_train_on=[dragnet]",), Fallback(["dragnet"])),
        (("fallback_train_on=[dragnet]", "cv.folds=2", "cv.auto=true"), Fallback(["dragnet"], folds=2)),
        (("fallback_train_on=[dragnet]", "cv.folds=2"), CV(folds=2)),  # explicit cross-validation wins
        (("fallback_train_on=[dragnet]", "train_on=[wcxb]"), Mixture(["wcxb"])),
        (("protocol=cv", "protocol.folds=4"), CV(folds=4)),
        (("protocol=mixture",), Mixture(["cleaneval", "dragnet", "wcxb"])),
        (("protocol=fallback", "protocol.train_on=[wcxb]"), Fallback(["wcxb"])),
        (("protocol=cross_dataset", "protocol.train=cleaneval:web2text"), CrossDataset(train="cleaneval:web2text")),
        (("+train_source=mixture",), Mixture(["cleaneval", "dragnet", "wcxb"])),
    ],
)
def test_old_switches_and_the_protocol_group_name_the_same_protocols(overrides, expected):
    assert configured_protocol(_cfg(*overrides)) == expected


def test_cross_dataset_switch_keeps_its_dataset_node():
    cfg = _cfg("+transfer=cleaneval_to_l3s")
    protocol = configured_protocol(cfg)
    assert isinstance(protocol, CrossDataset) and protocol.train == "cleaneval"
    assert protocol.node is not None and protocol.node.split == "web2text"
    assert protocol.record() == {
        "name": "cross_dataset",
        "train": "cleaneval",
        "folds": 0,
        "pool": "auto",
        "auto": False,
    }


@pytest.mark.parametrize(
    ("overrides", "message"),
    [
        (("protocol=cv", "cv.folds=2"), "exclude each other"),
        (("train_on=[dragnet]", "dataset@train_dataset=wcxb"), "train_on and dataset@train_dataset"),
        (("cv.folds=2", "evaluate_on=validation"), "evaluate_on=validation needs"),
        (("protocol=cv", "+protocol.nfolds=3"), "protocol=cv"),
        (("protocol.name=holdout",), "protocol"),
    ],
)
def test_conflicting_or_unknown_protocols_are_one_line_errors(overrides, message):
    with pytest.raises(ConfigError, match=message) as caught:
        configured_protocol(_cfg(*overrides))
    assert "\n" not in str(caught.value)


def _split(train: int, validation: int = 0) -> Split:
    pages = [Page(id=str(i), html="<p>x</p>", gold_text="x") for i in range(train + validation + 2)]
    return Split("s", pages[:train], pages[train : train + validation], pages[train + validation :])


def test_resolution_once_the_split_is_known():
    cfg = _cfg()
    no_training, training = _split(0), _split(3, 1)
    fallback = Fallback(["dragnet"], folds=2)
    assert fallback.resolve(cfg, no_training, learns=True) == Mixture(["dragnet"])
    assert fallback.resolve(cfg, no_training, learns=False) == CV(folds=2, auto=True)  # a heuristic is not trained
    assert fallback.resolve(cfg, training, learns=True) == InDomain()  # the split trains it itself
    assert CV(folds=2, auto=True).resolve(cfg, training, True) == InDomain()
    assert CV(folds=2, auto=True).resolve(cfg, no_training, True) == CV(folds=2, auto=True)
    assert CrossDataset(train="cleaneval").resolve(cfg, training, True) == InDomain()  # the tested dataset itself
    assert CrossDataset(train="dragnet").resolve(cfg, training, True) == CrossDataset(train="dragnet")
    with pytest.raises(ConfigError, match="cv.folds and dataset@train_dataset"):
        CrossDataset(train="dragnet", folds=2, auto=False).resolve(cfg, training, True)


def test_in_domain_and_cv_plans():
    cfg = _cfg("dataset=plaintext")
    split = _split(4, 1)
    plan = InDomain().plan(cfg, split)
    assert [len(f.test) for f in plan.fits] == [2] and plan.label == "s" and plan.release_training
    assert [len(p) for p in (plan.fits[0].training.train, plan.fits[0].training.validation)] == [4, 1]
    plan = InDomain(evaluate_on="validation").plan(cfg, split)
    assert plan.fits[0].test == split.validation and plan.label == "s/validation" and not plan.release_training
    plan = CV(folds=5).plan(cfg, split)  # pool auto: the 5 training and validation pages
    assert plan.label == "s/cv5" and [f.fold for f in plan.fits] == [1, 2, 3, 4, 5] and not plan.release_training
    assert sorted(p.id for f in plan.fits for p in f.test) == ["0", "1", "2", "3", "4"]
    assert all(len(f.training.train) == 4 for f in plan.fits)
    with pytest.raises(ConfigError, match="cv.folds=6 needs 2 <= folds <= 5"):
        CV(folds=6).plan(cfg, split)


@pytest.mark.parametrize(
    ("summary", "expected"),
    [
        ({"protocol": {"name": "mixture", "configured": {"name": "fallback"}}}, "mixture"),
        ({"cv": {"folds": 5}}, "cv"),
        ({"trained_on": "mix(cleaneval,dragnet)/balanced", "mixture": {}}, "mixture"),
        ({"trained_on": "mix(cleaneval,dragnet)/balanced"}, "mixture"),
        ({"trained_on": "cleaneval/web2text"}, "cross_dataset"),
        ({}, "in_domain"),
    ],
)
def test_summaries_of_every_version_name_their_protocol(summary, expected):
    assert protocol_name(summary) == expected


def test_runs_csv_rows_of_earlier_versions():
    assert legacy_protocol_name("test", "") == "in_domain"
    assert legacy_protocol_name("cross", "mix(a,b)/balanced") == "mixture"  # once labelled cross
    assert legacy_protocol_name("cross", "l3s_gn1/all") == "cross_dataset"
    assert legacy_protocol_name("cv", "") == "cv" and legacy_protocol_name("mixture", "mix(a)/x") == "mixture"


def test_a_dataset_named_twice_in_train_on_weighs_two_shares():
    # what would fail: the repeated entry dropped (one share), or the fit keyed as the one-share mixture's
    cfg = _cfg("dataset=plaintext")
    split = _split(4, 1)
    once, twice = Mixture(["plaintext"]).plan(cfg, split), Mixture(["plaintext", "plaintext"]).plan(cfg, split)
    assert [len(p.fits[0].training.train) for p in (once, twice)] == [4, 8]
    assert [len(p.fits[0].training.validation) for p in (once, twice)] == [1, 2]
    assert twice.fits[0].source == "mix(plaintext*2)/balanced" and once.fits[0].source == "mix(plaintext)/balanced"
    assert twice.fits[0].identity["train_on"] == ["plaintext", "plaintext"]
