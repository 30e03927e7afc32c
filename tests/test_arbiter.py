"""The page-level arbiter (boilerbench/extractors/arbiter.py): its features, its selector and which
extraction it keeps. Its contract (fit, save/load, clone, hostile pages) with a real stack and
Readability is checked by tests/test_check_extractor.py."""

from __future__ import annotations

import math
from dataclasses import replace

import numpy as np
import pytest

from boilerbench.datasets.page import Page
from boilerbench.errors import ConfigError
from boilerbench.extractors.arbiter import (
    EXTRACTION_FEATURES,
    FEATURES,
    STRUCTURE_FEATURES,
    THRESHOLDS,
    Arbiter,
    Selector,
    arbiter_features,
    choose_threshold,
    extraction_features,
    page_gain,
    structure_features,
)
from boilerbench.extractors.base import BaseExtractor, Extraction, NotFittedError, Tags


class _Side(BaseExtractor):
    """Extracts ``texts[page.id]``, with ``doubts[page.id]`` as its doubt when given."""

    def __init__(self, texts: dict | None = None, doubts: dict | None = None, ms: float = 1.0) -> None:
        self.texts = texts
        self.doubts = doubts
        self.ms = ms

    def __boilerbench_tags__(self) -> Tags:
        return replace(super().__boilerbench_tags__(), learns=False)

    def extract(self, page: Page) -> Extraction:
        info: dict = {"features_ms": self.ms}
        if self.doubts is not None:
            info["doubt"] = self.doubts[page.id]
        return Extraction((self.texts or {})[page.id], info=info)


def test_the_features_of_a_short_extraction_inside_a_long_one():
    base = Extraction(
        "the cat sat on the mat", info={"doubt": 0.2, "predicted_page_type": "article", "page_type_confidence": 0.9}
    )
    row = dict(zip(EXTRACTION_FEATURES, extraction_features(base, Extraction("the cat")), strict=True))
    assert row["log_tokens_ratio"] == pytest.approx(math.log(3) - math.log(7))
    assert row["log_base_tokens"] == pytest.approx(math.log(7))
    assert row["alternative_in_base"] == 1.0
    assert row["base_in_alternative"] == pytest.approx(2 / 6)
    assert row["base_doubt"] == 0.2
    assert row["base_article"] == 0.9


def test_a_page_predicted_as_another_type_has_no_article_confidence_and_a_plain_extractor_none_known():
    index = EXTRACTION_FEATURES.index
    forum = Extraction("a b", info={"predicted_page_type": "forum", "page_type_confidence": 0.8})
    assert extraction_features(forum, Extraction("c"))[index("base_article")] == 0.0
    row = extraction_features(Extraction("a b"), Extraction("c d e"))
    assert np.isnan(row[index("base_doubt")]) and np.isnan(row[index("base_article")])
    assert row[index("alternative_in_base")] == 0.0
    empty = extraction_features(Extraction(""), Extraction(""))
    assert empty[index("alternative_in_base")] == 1.0 and empty[index("log_tokens_ratio")] == 0.0


def test_the_structure_of_what_the_base_keeps_and_the_alternative_leaves_out():
    """Six blocks: two covered paragraphs (10 and 5 words), three linked 3-word items of one path
    that the alternative lacks, after them; a 20-word block the base drops and the alternative holds."""
    row = structure_features(
        words=np.array([10, 5, 3, 3, 3, 20]),
        label=np.array([1, 1, 1, 1, 1, 0]),
        link=np.array([0, 0, 1, 1, 1, 0]),
        cover=np.array([0.9, 0.8, 0.1, 0.0, 0.2, 0.9]),
        path=np.array([0, 0, 1, 1, 1, 2]),
    )
    expected = {
        "extra_words_share": 9 / 24,
        "extra_link_share": 1.0,
        "kept_link_share": 9 / 24,
        "extra_block_words": math.log(1 + 3),
        "extra_repeated_share": 1.0,
        "extra_runs": math.log(2),
        "extra_after_share": 1.0,
        "extra_before_share": 0.0,
        "missing_words_share": 20 / 24,
        "extra_covered_path_share": 0.0,
        "extra_dropped_path_share": 0.0,
    }
    assert dict(zip(STRUCTURE_FEATURES, row, strict=True)) == pytest.approx(expected)
    # two runs of unlinked extra words, one before the covered block, of paths seen once or twice
    row = structure_features(
        words=np.array([4, 6, 2, 2]),
        label=np.array([1, 1, 1, 1]),
        link=np.zeros(4),
        cover=np.array([0.0, 1.0, 0.2, 0.0]),
        path=np.array([0, 1, 2, 2]),
    )
    got = dict(zip(STRUCTURE_FEATURES, row, strict=True))
    assert got["extra_words_share"] == pytest.approx(8 / 14) and got["extra_link_share"] == 0.0
    assert got["extra_repeated_share"] == 0.0 and got["extra_runs"] == pytest.approx(math.log(3))
    assert (got["extra_before_share"], got["extra_after_share"]) == (0.5, 0.5)
    assert np.isnan(structure_features(np.array([3]), np.array([0]), np.zeros(1), np.ones(1), np.zeros(1))).all()


def test_extra_words_on_the_covered_texts_path_and_on_a_dropped_blocks_path():
    """A thread: the first post (10 words) both keep, two replies of its path (8 and 6 words) only
    the base keeps, and a teaser slot (path 3) kept once (2 words) and dropped once."""
    row = structure_features(
        words=np.array([10, 8, 6, 2, 2]),
        label=np.array([1, 1, 1, 1, 0]),
        link=np.zeros(5),
        cover=np.array([0.9, 0.1, 0.0, 0.0, 0.0]),
        path=np.array([0, 0, 0, 3, 3]),
    )
    got = dict(zip(STRUCTURE_FEATURES, row, strict=True))
    assert got["extra_covered_path_share"] == pytest.approx(14 / 16)
    assert got["extra_dropped_path_share"] == pytest.approx(2 / 16)
    # nothing both keep: the path shares have no text to go on from, the others stand
    row = structure_features(
        words=np.array([8, 6, 2]),
        label=np.array([1, 1, 0]),
        link=np.zeros(3),
        cover=np.zeros(3),
        path=np.array([0, 0, 0]),
    )
    got = dict(zip(STRUCTURE_FEATURES, row, strict=True))
    assert np.isnan(got["extra_covered_path_share"]) and np.isnan(got["extra_dropped_path_share"])
    assert got["extra_words_share"] == 1.0


def test_a_teaser_rail_beside_the_article_is_extra_linked_and_repeated():
    html = (
        "<html><body><div><p>alpha beta gamma delta</p><p>epsilon zeta eta theta</p></div><div>"
        + "".join(f'<div><a href="/{i}">{a} {b}</a></div>' for i, (a, b) in enumerate(["12", "34", "56"]))
        + "</div></body></html>"
    )
    page = Page("p", html, "alpha beta gamma delta epsilon zeta eta theta")
    assert page.blocks.word_counts.tolist() == [4, 4, 2, 2, 2]
    base = Extraction.from_labels(page, np.ones(5, dtype=np.int8))
    alternative = Extraction("alpha beta gamma delta epsilon zeta eta theta")
    row = dict(zip(FEATURES, arbiter_features(page, base, alternative), strict=True))
    assert row["base_in_alternative"] == pytest.approx(8 / 14) and row["extra_words_share"] == pytest.approx(6 / 14)
    assert (row["extra_link_share"], row["extra_repeated_share"], row["extra_after_share"]) == (1.0, 1.0, 1.0)
    assert row["extra_block_words"] == pytest.approx(math.log(3)) and row["missing_words_share"] == 0.0
    # an extractor without block labels gives no structure
    plain = arbiter_features(page, Extraction(base.text), Extraction("alpha beta"))
    assert np.isnan(plain[len(EXTRACTION_FEATURES) :]).all() and not np.isnan(plain[0])


def test_the_gain_is_the_alternatives_token_f1_minus_the_bases():
    page = Page("p", "<p>x</p>", "a b c")
    # base: P 3/6, R 1, F1 2/3; alternative: P 1, R 2/3, F1 0.8
    assert page_gain(Extraction("a b c x y z"), Extraction("a b"), page) == pytest.approx(0.8 - 2 / 3)


def _teasers_and_articles(n: int = 30) -> tuple[list[Page], dict, dict, dict]:
    """2n validation pages on which Readability's extraction is the article's first three words:
    on t1..tn the gold is those three and the stack adds teasers (and doubts the page), on a1..an
    the gold is the whole text the stack keeps (and it is sure of it)."""
    short, long = "one two three", "one two three four five six seven eight"
    pages, ours, theirs, doubts = [], {}, {}, {}
    for i in range(1, n + 1):
        for kind, gold, doubt in (("t", short, 0.3 + i / 1000), ("a", long, 0.02 + i / 1000)):
            pages.append(Page(f"{kind}{i}", "<p>x</p>", gold))
            ours[f"{kind}{i}"], theirs[f"{kind}{i}"], doubts[f"{kind}{i}"] = long, short, doubt
    return pages, ours, theirs, doubts


def test_the_arbiter_keeps_readability_where_the_stack_doubts_a_page_like_those_where_it_lost():
    pages, ours, theirs, doubts = _teasers_and_articles()
    ours.update(new_doubtful=ours["t1"], new_sure=ours["a1"])
    theirs.update(new_doubtful=theirs["t1"], new_sure=theirs["a1"])
    doubts.update(new_doubtful=0.33, new_sure=0.03)
    arbiter = Arbiter(_Side(ours, doubts, ms=1.0), _Side(theirs, ms=2.0)).fit([], pages)
    assert arbiter.fit_info_ == {
        "selector_rows": 60,
        "alternative_better": 30,
        "base_better": 30,
        "threshold": arbiter.threshold_,
    }
    doubtful = arbiter.extract(Page("new_doubtful", "<p>x</p>", ""))
    sure = arbiter.extract(Page("new_sure", "<p>x</p>", ""))
    assert doubtful.text == "one two three" and doubtful.info["arbiter_choice"] == "alternative"
    assert sure.text.startswith("one two three four") and sure.info["arbiter_choice"] == "base"
    assert doubtful.info["arbiter_probability"] > arbiter.threshold_ > sure.info["arbiter_probability"]
    assert doubtful.info["features_ms"] == 3.0  # both sides ran


class _Fits:
    """The ids of the training pages of each fit, in order (one object that clones share)."""

    def __init__(self) -> None:
        self.fits: list[list[str]] = []


class _Learns(_Side):
    """A side that learns: ``fit`` records the ids of the pages it saw in ``seen``."""

    def __init__(self, texts: dict | None = None, doubts: dict | None = None, ms: float = 1.0, seen=None) -> None:
        super().__init__(texts, doubts, ms)
        self.seen = seen

    def __boilerbench_tags__(self) -> Tags:
        return replace(super().__boilerbench_tags__(), learns=True, persistent=True)

    def fit(self, train, validation=None):
        self.seen.fits.append(sorted(p.id for p in train))
        self.fitted_ = True
        return self

    def save(self, directory) -> None:
        pass

    def load(self, directory):
        return self


def test_the_selector_learns_from_out_of_fold_extractions_of_the_training_pages_cut_by_site():
    pages, ours, theirs, doubts = _teasers_and_articles(n=6)
    for k, page in enumerate(pages):
        page.meta["group"] = f"site{k % 4}"
    record = _Fits()
    arbiter = Arbiter(_Learns(ours, doubts, seen=record), _Side(theirs), selector_folds=2, threshold=0.5)
    arbiter.fit(pages, pages[:2])
    seen = record.fits
    # two fold fits, each without the other fold's sites, then the final fit on every page
    assert len(seen) == 3 and seen[2] == sorted(p.id for p in pages)
    sites = [{page.meta["group"] for page in pages if page.id in fold} for fold in seen[:2]]
    assert sites[0].isdisjoint(sites[1]) and sites[0] | sites[1] == {"site0", "site1", "site2", "site3"}
    # every training page is a row once (out of fold), and the two validation pages once more
    assert arbiter.fit_info_["selector_rows"] == len(pages) + 2


def test_the_chosen_threshold_makes_the_best_choices_on_separable_rows():
    rng = np.random.default_rng(0)
    x = rng.normal(size=(200, 1))
    gain = np.where(x[:, 0] < 0, 0.4, -0.3)
    threshold = choose_threshold(x, gain, [str(i) for i in range(200)], 3, 0)
    assert threshold in THRESHOLDS
    chosen = Selector.fit(x, gain, 0).probability(x) > threshold
    assert (chosen == (x[:, 0] < 0)).mean() > 0.95


def test_rows_of_one_site_cannot_choose_a_threshold_and_keep_the_base_by_default():
    x = np.array([[0.0], [1.0], [2.0]])
    assert choose_threshold(x, np.array([0.2, -0.1, 0.3]), ["site"] * 3, 3, 0) == THRESHOLDS[-1]


def test_pages_where_the_two_agree_teach_the_selector_nothing():
    rng = np.random.default_rng(1)
    X = rng.normal(size=(100, 2))
    gain = np.where(X[:, 0] < 0, 0.5, -0.4)
    agree = rng.normal(size=(50, 2)) * 5
    alone = Selector.fit(X, gain, 0)
    padded = Selector.fit(np.vstack([X, agree]), np.concatenate([gain, np.zeros(50)]), 0)
    assert np.array_equal(alone.probability(X), padded.probability(X))


def test_a_side_that_never_wins_is_never_chosen():
    X = np.array([[1.0, np.nan], [2.0, 3.0], [3.0, 5.0]])
    assert (Selector.fit(X, np.array([-0.1, -0.2, 0.0]), 0).probability(X) == 0.0).all()
    assert (Selector.fit(X, np.array([0.1, 0.2, 0.0]), 0).probability(X) == 1.0).all()


def test_the_selector_round_trips_through_its_model_text(tmp_path):
    pages, ours, theirs, doubts = _teasers_and_articles()
    arbiter = Arbiter(_Side(ours, doubts), _Side(theirs)).fit([], pages)
    arbiter.save(tmp_path)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["arbiter.json"]  # text and numbers, no pickle
    again = Arbiter(_Side(ours, doubts), _Side(theirs)).load(tmp_path)
    assert again.threshold_ == arbiter.threshold_
    for page in pages:
        assert again.extract(page).info["arbiter_probability"] == arbiter.extract(page).info["arbiter_probability"]
    with pytest.raises(ValueError, match="other hyperparameters"):
        Arbiter(_Side(ours, doubts), _Side(theirs), threshold=0.7).load(tmp_path)


def test_an_arbiter_extracts_nothing_before_fit_and_refuses_bad_settings():
    with pytest.raises(NotFittedError):
        Arbiter(_Side({"p": "x"}), _Side({"p": "y"})).extract(Page("p", "<p>x</p>", ""))
    for bad in ({"threshold": 1.0}, {"selector_folds": 1}, {"validation_share": 0.0}):
        with pytest.raises(ConfigError):
            Arbiter(_Side(), _Side(), **bad)
    with pytest.raises(ConfigError):
        Arbiter(None, _Side())


class _Fails(_Side):
    def extract(self, page: Page) -> Extraction:
        raise RecursionError("too deep")


def test_the_bases_extraction_stands_where_the_alternative_is_empty_or_fails():
    pages, ours, theirs, doubts = _teasers_and_articles()
    ours.update(empty=ours["t1"])
    theirs.update(empty="")
    doubts.update(empty=0.33)
    arbiter = Arbiter(_Side(ours, doubts), _Side(theirs)).fit([], pages)
    assert arbiter.extract(pages[0]).info["arbiter_choice"] == "alternative"  # t1, as the test above
    kept = arbiter.extract(Page("empty", "<p>x</p>", ""))
    assert kept.text == ours["t1"] and kept.info["arbiter_choice"] == "base"
    arbiter.alternative = _Fails()
    failed = arbiter.extract(pages[0])
    assert failed.text == ours["t1"] and failed.info["arbiter_alternative_error"] == "RecursionError: too deep"
    # pages the alternative leaves empty are not the selector's rows
    theirs.update(t1="")
    assert Arbiter(_Side(ours, doubts), _Side(theirs)).fit([], pages).fit_info_["selector_rows"] == 59
