"""The page-level cascade (boilerbench/extractors/cascade.py): which pages go on, and what the
extraction of a page sent on says. Its contract (fit, save/load, clone, hostile pages) with real
stacks is checked by tests/test_check_extractor.py."""

from __future__ import annotations

from dataclasses import replace

import numpy as np
import pytest

from boilerbench.configs import build, extractor_config
from boilerbench.datasets.page import Page
from boilerbench.errors import ConfigError
from boilerbench.experiments.model_file import load_model_file, save_model_file
from boilerbench.extractors import checks
from boilerbench.extractors.base import BaseExtractor, Extraction, NotFittedError, Tags
from boilerbench.extractors.cascade import Cascade, RoutingStack, routing_score, share_threshold, sure_share
from boilerbench.extractors.stack.model import page_doubt


class _Stage(BaseExtractor):
    """A stage that extracts its name, with the doubt of ``doubts[page.id]`` when it has doubts,
    and then the share of words it is sure of, ``sure[page.id]`` (1 for a page not named there)."""

    def __init__(
        self, name: str = "fast", doubts: dict | None = None, ms: dict | None = None, sure: dict | None = None
    ) -> None:
        self.name = name
        self.doubts = doubts
        self.ms = ms
        self.sure = sure

    def __boilerbench_tags__(self) -> Tags:
        return replace(super().__boilerbench_tags__(), learns=True)

    def extract(self, page: Page) -> Extraction:
        info = dict(self.ms or {})
        if self.doubts is not None:
            info["doubt"] = self.doubts[page.id]
            info["sure_share"] = (self.sure or {}).get(page.id, 1.0)
        return Extraction(self.name, info=info)


def pages(*ids: str) -> list[Page]:
    return [Page(i, "<p>x</p>", "x") for i in ids]


DOUBTS = {"v1": 0.1, "v2": 0.2, "v3": 0.3, "v4": 0.4, "sure": 0.05, "tie": 0.3, "unsure": 0.35}


def cascade(share: float) -> Cascade:
    """A cascade routing by the doubt alone (size_power 0; every page here has the same size)."""
    fast = _Stage("fast", DOUBTS, {"features_ms": 1.0, "segment_ms": 4.0})
    accurate = _Stage("accurate", None, {"features_ms": 2.0, "members_ms": 5.0})
    return Cascade(fast, accurate, share, size_power=0.0).fit(pages("t1"), pages("v1", "v2", "v3", "v4"))


def test_the_threshold_sends_the_share_of_the_most_doubtful_validation_pages():
    doubts = np.array([0.1, 0.4, 0.2, 0.3])
    assert share_threshold(doubts, 0.5) == 0.2  # 0.4 and 0.3 lie above it: half the pages
    assert share_threshold(doubts, 0.25) == 0.3
    assert share_threshold(doubts, 0.0) == 0.4  # none lies above the largest
    assert share_threshold(doubts, 1.0) == -1.0  # every doubt (never negative) lies above


def test_a_page_the_fast_stage_doubts_more_than_the_threshold_is_extracted_by_the_accurate_one():
    model = cascade(0.25)  # the threshold is v3's doubt, 0.3: only v4 of the validation pages lies above
    assert model.threshold_ == 0.3
    sure, tie, unsure = (model.extract(p) for p in pages("sure", "tie", "unsure"))
    assert (sure.text, sure.info["cascade_stage"]) == ("fast", "fast")
    assert (tie.text, tie.info["cascade_stage"]) == ("fast", "fast")  # a tie at the threshold stays
    assert (unsure.text, unsure.info["cascade_stage"]) == ("accurate", "accurate")
    # a page sent on pays both stages: the ms of each stage summed, the fast stage's doubt kept
    assert unsure.info == {
        "features_ms": 3.0,
        "segment_ms": 4.0,
        "members_ms": 5.0,
        "doubt": 0.35,
        "cascade_stage": "accurate",
    }


def test_a_share_of_zero_sends_no_page_and_of_one_every_page():
    assert [cascade(0.0).extract(p).text for p in pages("v4", "unsure")] == ["fast", "fast"]
    assert [cascade(1.0).extract(p).text for p in pages("sure", "v1")] == ["accurate", "accurate"]


def sized(page_id: str, chars: int) -> Page:
    """A page whose HTML is ``chars`` characters long."""
    return Page(page_id, "<p>" + "x" * (chars - 7) + "</p>", "x")


def test_the_score_is_the_doubt_over_a_power_of_the_size_so_a_small_doubtful_page_goes_before_a_big_one():
    assert routing_score(0.1, 100, 0.5) == pytest.approx(0.01)  # 0.1 / sqrt(100)
    assert routing_score(0.15, 400, 0.5) == pytest.approx(0.0075)  # 0.15 / sqrt(400)
    assert routing_score(0.15, 400, 0.0) == 0.15
    assert routing_score(0.2, 0, 1.0) == 0.2  # an empty page counts as one character
    doubts = {"small": 0.1, "big": 0.15, "new small": 0.09, "new big": 0.3}
    validation = [sized("small", 100), sized("big", 400)]
    by_size = Cascade(_Stage("fast", doubts), _Stage("accurate"), 0.5, size_power=0.5).fit(validation, validation)
    # half the validation pages go on: the small page (0.01) lies above the big one's 0.0075
    assert by_size.threshold_ == pytest.approx(0.0075)
    assert [by_size.extract(p).text for p in validation] == ["accurate", "fast"]
    # 0.09 / 10 = 0.009 goes on; 0.3 / sqrt(3600) = 0.005 stays, for all its doubt
    assert [by_size.extract(p).text for p in (sized("new small", 100), sized("new big", 3600))] == ["accurate", "fast"]
    by_doubt = Cascade(_Stage("fast", doubts), _Stage("accurate"), 0.5, size_power=0.0).fit(validation, validation)
    assert by_doubt.threshold_ == 0.1
    assert [by_doubt.extract(p).text for p in validation] == ["fast", "accurate"]


def test_a_page_the_fast_stage_is_sure_of_no_block_goes_on_whatever_its_doubt():
    fast = _Stage("fast", DOUBTS, sure={"sure": 0.0, "v1": 0.0, "tie": 0.02})
    routed = Cascade(fast, _Stage("accurate"), 0.25, size_power=0.0, send_none_sure=True)
    routed.fit(pages("t1"), pages("v1", "v2", "v3", "v4"))
    # the threshold is learnt from the doubts alone: v1, sure of nothing, does not move it
    assert routed.threshold_ == 0.3
    extracted = {p.id: routed.extract(p) for p in pages("sure", "tie", "unsure")}
    # doubt 0.05 and no word in a sure block: sent on; 0.02 of the words sure: kept, as its doubt says
    assert {i: e.info["cascade_stage"] for i, e in extracted.items()} == {
        "sure": "accurate",
        "tie": "fast",
        "unsure": "accurate",
    }
    assert extracted["sure"].info["doubt"] == 0.05
    scored = Cascade(fast, _Stage("accurate"), 0.25, size_power=0.0).fit(pages("t1"), pages("v1", "v2", "v3", "v4"))
    assert [scored.extract(p).text for p in pages("sure", "unsure")] == ["fast", "accurate"]


def test_a_fast_stage_that_reports_no_sure_share_is_a_config_error_with_the_rule_on():
    class _DoubtOnly(_Stage):
        def extract(self, page: Page) -> Extraction:
            return Extraction(self.name, info={"doubt": 0.0})

    with pytest.raises(ConfigError, match="sure_share"):
        on = Cascade(_DoubtOnly(), _Stage("accurate"), 0.5, send_none_sure=True)
        on.fit(pages("t1"), pages("v1")).extract(pages("v2")[0])
    off = Cascade(_DoubtOnly(), _Stage("accurate"), 0.5).fit(pages("t1"), pages("v1"))  # the default: off
    assert off.extract(pages("v2")[0]).text == "fast"


def test_the_cascade_refuses_to_extract_before_fit():
    with pytest.raises(NotFittedError):
        Cascade(_Stage("fast", DOUBTS), _Stage("accurate"), 0.5).extract(pages("sure")[0])


def test_a_fast_stage_that_reports_no_doubt_and_a_bad_share_are_config_errors():
    with pytest.raises(ConfigError, match="doubt"):
        Cascade(_Stage("fast"), _Stage("accurate"), 0.5).fit(pages("t1"), pages("v1"))
    with pytest.raises(ConfigError, match="share"):
        Cascade(_Stage("fast"), _Stage("accurate"), 1.5)
    with pytest.raises(ConfigError, match="size_power"):
        Cascade(_Stage("fast"), _Stage("accurate"), 0.5, size_power=-1.0)
    with pytest.raises(ConfigError, match="both stages"):
        Cascade(_Stage("fast"))


def test_the_page_doubt_by_hand():
    # min(p, 1 - p) = 0.1, 0.5, 0.2 on 10, 4 and 6 words: (1 + 2 + 1.2) / 20
    assert page_doubt(np.array([0.9, 0.5, 0.2]), np.array([10.0, 4.0, 6.0])) == pytest.approx(0.21)
    assert page_doubt(np.array([0.5]), np.array([0.0])) == 0.0


def test_the_sure_share_by_hand():
    # blocks of p >= 0.5 hold 10 + 4 of the 20 words; none on the second page; an empty page: 0
    assert sure_share(np.array([0.9, 0.5, 0.2]), np.array([10.0, 4.0, 6.0])) == pytest.approx(0.7)
    assert sure_share(np.array([0.49, 0.3]), np.array([10.0, 4.0])) == 0.0
    assert sure_share(np.array([0.9]), np.array([0.0])) == 0.0


def test_the_routing_stack_extracts_as_the_stack_and_reports_the_share_of_words_it_is_sure_of():
    # threshold decoding at 0.5, no smoothing: the blocks of p >= 0.5 are those it keeps
    plain = build(extractor_config("stack_fast", ("n_estimators=5",))).fit(*checks.training_pages())
    routing = RoutingStack(**plain.get_params()).fit(*checks.training_pages())
    shares = []
    for page in checks.test_pages():
        mine, theirs = routing.extract(page), plain.extract(page)
        assert mine.text == theirs.text and "sure_share" not in theirs.info
        words = page.blocks.word_counts.astype(float)
        assert mine.info["sure_share"] == pytest.approx(words[mine.labels == 1].sum() / max(words.sum(), 1.0))
        shares.append(mine.info["sure_share"])
    assert 0.0 < max(shares) <= 1.0  # some page has a sure block


def test_a_cascade_of_two_stacks_survives_its_model_file(tmp_path):
    overrides = ("fast.n_estimators=5", "accurate.n_estimators=5")
    config = extractor_config("cascade", overrides)
    model = build(config).fit(*checks.training_pages())
    path = tmp_path / "cascade.model"
    manifest = save_model_file(model, path, "cascade", config, "hand-made", {})
    assert {"lightgbm", "resiliparse", "trafilatura"} <= set(manifest["requires"])
    loaded, _ = load_model_file(path)
    assert isinstance(loaded, Cascade) and loaded.threshold_ == model.threshold_
    assert loaded.feature_names() == model.feature_names()
    assert {n.partition(".")[0] for n in model.feature_names()} == {"fast", "accurate"}
    for page in checks.test_pages():
        first, again = model.extract(page), loaded.extract(page)
        assert (again.text, again.info["cascade_stage"]) == (first.text, first.info["cascade_stage"])
        # the fast stage comes back a RoutingStack: the same share of sure words
        assert loaded.fast.extract(page).info["sure_share"] == model.fast.extract(page).info["sure_share"]
    assert isinstance(loaded.fast, RoutingStack)


def test_a_page_sent_on_runs_the_members_the_stages_share_and_the_block_features_once(monkeypatch):
    from boilerbench.extractors.references import Resiliparse
    from boilerbench.extractors.stack import features

    config = extractor_config("cascade", ("fast.n_estimators=5", "accurate.n_estimators=5"))
    model = build(config).fit(*checks.training_pages())
    model.threshold_ = -1.0  # every page goes on
    page = checks.test_pages()[0]
    alone = model.accurate.extract(page).text
    calls = {"resiliparse": 0, "block features": 0}

    def counted(name, function):
        def wrapper(*args, **kwargs):
            calls[name] += 1
            return function(*args, **kwargs)

        return wrapper

    monkeypatch.setattr(Resiliparse, "extract", counted("resiliparse", Resiliparse.extract))
    monkeypatch.setattr(features, "page_features", counted("block features", features.page_features))
    both = model.extract(Page(page.id, page.html, page.gold_text, page.url))
    assert both.info["cascade_stage"] == "accurate" and both.text == alone
    # both stages read Resiliparse's vote and the block features (neither uses CRF's): once each
    assert calls == {"resiliparse": 1, "block features": 1}
    model.accurate.extract(Page(page.id, page.html, page.gold_text, page.url))  # alone: no scope, its own
    assert calls == {"resiliparse": 2, "block features": 2}
