"""The selector's explanation: SHAP values that, with the bias, add up to the probability's
log-odds, in the features' own order; a constant selector explained by its bias alone."""

from __future__ import annotations

import math
from dataclasses import replace

import numpy as np
import pytest

from boilerbench.datasets.page import Page
from boilerbench.extractors.arbiter import FEATURES, Arbiter, Selector
from boilerbench.extractors.base import BaseExtractor, Extraction, Tags
from studies.arbiter_explain import contributions, explain


class _Fixed(BaseExtractor):
    """Extracts ``texts[page.id]``."""

    def __init__(self, texts: dict | None = None) -> None:
        self.texts = texts

    def __boilerbench_tags__(self) -> Tags:
        return replace(super().__boilerbench_tags__(), learns=False)

    def extract(self, page: Page) -> Extraction:
        return Extraction((self.texts or {})[page.id])


def _selector() -> Selector:
    """Trees that learnt "the alternative wins where its extraction is much shorter" (feature 0,
    log_tokens_ratio, below -1) from rows where every other feature is 0: no tree splits on them."""
    rng = np.random.default_rng(0)
    X = np.zeros((400, len(FEATURES)))
    X[:, 0] = rng.uniform(-3, 1, size=400)
    gain = np.where(X[:, 0] < -1, 0.3, -0.3)
    return Selector.fit(X, gain, seed=0)


def test_the_shares_and_the_bias_add_up_to_the_log_odds_and_the_deciding_feature_leads():
    selector = _selector()
    X = np.zeros((2, len(FEATURES)))
    X[:, 0] = [-2.5, 0.5]
    shares = contributions(selector, X)
    probability = selector.probability(X)
    assert shares.shape == (2, len(FEATURES) + 1)
    assert shares.sum(axis=1) == pytest.approx(np.log(probability / (1 - probability)))
    assert np.argmax(np.abs(shares[:, :-1]), axis=1).tolist() == [0, 0]
    assert shares[0, 0] > 0 > shares[1, 0]


def test_a_constant_selector_is_its_bias_alone():
    shares = contributions(Selector(None, 0.8), np.zeros((3, len(FEATURES))))
    assert np.all(shares[:, :-1] == 0) and shares[:, -1] == pytest.approx([math.log(4)] * 3)


def test_explain_reports_each_pages_choice_and_ranks_the_features_by_their_mean_share():
    texts = {"short": "one two", "long": " ".join(f"w{k}" for k in range(40))}
    base = _Fixed({p: " ".join(f"w{k}" for k in range(40)) for p in texts})
    arbiter = Arbiter(base=base, alternative=_Fixed(texts))
    arbiter.selector_, arbiter.threshold_ = _selector(), 0.5
    pages = [Page(p, f"<p>{texts[p]}</p>", texts[p]) for p in texts]
    per_page, per_feature = explain(arbiter, pages)
    assert per_page["choice"].tolist() == ["alternative", "base"]  # log(3/41) < -1; the same text: 0
    assert per_page["log_tokens_ratio value"].tolist() == pytest.approx([math.log(3 / 41), 0.0])
    assert per_feature["feature"].iloc[0] == "log_tokens_ratio"
    assert per_feature["mean |share|"].is_monotonic_decreasing and per_feature["mean |share|"].iloc[1] == 0
    assert per_page["log_base_tokens share"].tolist() == [0.0, 0.0]  # a feature no tree splits on
    assert np.isnan(per_feature.set_index("feature").loc["extra_words_share", "mean value"])  # no block labels
