"""The contract checks (:func:`boilerbench.extractors.checks.check_extractor`) on every extractor
config in ``conf/extractor``: a new config is checked with no further code. Learned extractors
train on tiny settings (:data:`TINY`), so the checks judge the contract, not the accuracy."""

from __future__ import annotations

from dataclasses import replace

import pytest
from registry import EXTRACTOR_NAMES, QUICK_FIT

from boilerbench.datasets.page import Page
from boilerbench.errors import MissingDependencyError
from boilerbench.experiments import runner
from boilerbench.extractors.base import BaseExtractor, Extraction, Tags, clone
from boilerbench.extractors.checks import check_extractor

#: Settings that make the learned extractors fit in a second or so (each is fitted twice).
TINY = {
    **QUICK_FIT,
    "boilernet": ("epochs=2", "dense=16", "hidden=16"),
    "tagpath_lstm": ("epochs=1", "embedding_epochs=1", "hidden=16"),
    "web2text": ("max_steps=10", "eval_every=5"),
    "web2text_unary": ("max_steps=10", "eval_every=5"),
    "stack": ("n_estimators=5",),
    "stack_fast": ("n_estimators=5",),
    "cascade": ("fast.n_estimators=5", "accurate.n_estimators=5"),
    "arbiter": ("base.n_estimators=5",),
    "arbiter_stack": ("base.n_estimators=5",),
}
#: Configs whose checks still take several seconds (a language model, many member libraries).
SLOW = {"boilernet", "lm_embedding", "readabilipy"}


@pytest.mark.parametrize("name", [pytest.param(n, marks=pytest.mark.slow) if n in SLOW else n for n in EXTRACTOR_NAMES])
def test_every_extractor_keeps_the_contract(name, tmp_path):
    try:
        extractor = runner.make_extractor(name, TINY.get(name, ()))
    except MissingDependencyError as err:
        pytest.skip(f"{name}: {err}")
    check_extractor(extractor, tmp_path)


class _Converts(BaseExtractor):
    """Stores its argument converted: get_params no longer gives what the config said."""

    def __init__(self, weights: list[float] | tuple[float, ...] = (0.5, 0.5)) -> None:
        self.weights = tuple(weights)

    def extract(self, page: Page) -> Extraction:
        return Extraction(page.blocks.join())


class _ClaimsPersistence(_Converts):
    def __init__(self, weights: list[float] | tuple[float, ...] = (0.5, 0.5)) -> None:
        self.weights = weights

    def __boilerbench_tags__(self) -> Tags:
        return replace(super().__boilerbench_tags__(), learns=True, persistent=True)


class _LearnsSilently(_ClaimsPersistence):
    """Learns, but extracting before fit fails with an AttributeError instead of NotFittedError."""

    def __boilerbench_tags__(self) -> Tags:
        return replace(super().__boilerbench_tags__(), persistent=False)

    def fit(self, train, validation=None):
        self.kept_ = "x"
        return self

    def extract(self, page: Page) -> Extraction:
        return Extraction(self.kept_)  # type: ignore[attr-defined]


@pytest.mark.parametrize(
    ("extractor", "broken"),
    [
        (_Converts(), "check constructor: the constructor stores weights"),
        (_ClaimsPersistence(), r"check tags: .*persistent: save\(\)"),
        (_LearnsSilently(), "check unfitted: extract before fit raised AttributeError"),
    ],
)
def test_the_checks_catch_a_broken_contract(extractor, broken):
    with pytest.raises(AssertionError, match=broken):
        check_extractor(extractor)


def test_set_params_validates_as_the_constructor_and_clone_is_unfitted():
    from boilerbench.errors import ConfigError
    from boilerbench.extractors.numwords_rules import NumWordsRules

    rules = NumWordsRules()
    with pytest.raises(ConfigError, match="max_link_density"):
        rules.set_params(max_link_density=2.0)
    assert rules.set_params(max_link_density=0.5).get_params() == {"max_link_density": 0.5}
    fitted = _LearnsSilently().fit([])
    assert "kept_" not in vars(clone(fitted)) and clone(fitted).get_params() == fitted.get_params()
