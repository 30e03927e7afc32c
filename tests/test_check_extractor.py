"""The contract checks (:func:`boilerbench.extractors.checks.check_extractor`) on every extractor
config in ``conf/extractor``: a new config is checked with no further code. Learned extractors
train on tiny settings (:data:`TINY`), so the checks judge the contract, not the accuracy."""

from __future__ import annotations

import pytest
from registry import EXTRACTOR_NAMES, QUICK_FIT

from boilerbench.errors import MissingDependencyError
from boilerbench.experiments import runner
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
