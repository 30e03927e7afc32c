"""The ensembles and the stack on a few real CleanEval pages (small: the full runs are in the results store)."""

from __future__ import annotations

import numpy as np
import pytest

from boilerbench.configs import make_extractor
from boilerbench.datasets.cleaneval import CleanEval
from boilerbench.evaluation import block_counts, block_metrics, token_prf
from boilerbench.extractors.ensembles import MajorityVote
from boilerbench.extractors.stack import Stack

pytestmark = [pytest.mark.data, pytest.mark.slow]


@pytest.fixture(scope="module")
def split():
    from conftest import real_data_root

    root = real_data_root()
    if root is None:
        pytest.skip("BOILERBENCH_DATA is not set: real-dataset tests skipped")
    return CleanEval(root=str(root / "cleaneval"), split="cleaneval", download=False).load()


def scores(extractor, pages) -> tuple[float, float]:
    extractions = [extractor.extract(p) for p in pages]
    f1 = block_metrics(block_counts(e.labels, p.gold_labels) for e, p in zip(extractions, pages, strict=True))["f1"]
    return f1, float(np.mean([token_prf(e.text, p.gold_text).f1 for e, p in zip(extractions, pages, strict=True)]))


def test_stack_block_features_beat_every_block(split):
    stack = Stack(features="blocks", n_estimators=200, n_jobs=1).fit(split.train[:30], split.validation)
    block_f1, token_f1 = scores(stack, split.test[:30])
    assert block_f1 > 0.80 and token_f1 > 0.88  # blocks only on the full web2text split: 0.874 / 0.902


def test_majority_vote_of_two_references_and_bte(split):
    vote = MajorityVote({name: make_extractor(name) for name in ("bte", "justext", "boilerpipe")})
    block_f1, token_f1 = scores(vote, split.test[:20])
    assert block_f1 > 0.78 and token_f1 > 0.82  # measured 0.825 / 0.855
