"""Victor's CRF: features of named blocks on a hand-made page, labels from gold markers, the model."""

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from boilerbench.datasets.page import Page
from boilerbench.errors import ConfigError
from boilerbench.extractors.crf import CRF
from boilerbench.extractors.crf.features import FEATURE_SETS, block_features
from boilerbench.extractors.crf.labels import crf_labels

PAGE = (
    "<html><body>"
    '<div id="nav"><a href="/">Home</a> | <a href="/x">News</a></div>'
    '<div id="main"><h1>The Title</h1><p>First sentence here. Second one!</p>'
    "<p>Call 12:30 on 3/4/2007 at www.example.com</p>"
    "<ul><li>- item one</li><li>- item one</li></ul></div>"
    "</body></html>"
)
L = math.log1p


@pytest.fixture()
def features():
    page = Page("p", PAGE, "")
    assert page.blocks.texts == [
        "Home",
        "|",
        "News",
        "The Title",
        "First sentence here. Second one!",
        "Call 12:30 on 3/4/2007 at www.example.com",
        "- item one",
        "- item one",
    ]
    return block_features(page.blocks)


def test_markup_features(features):
    home, bar, _, title, first = features[:5]
    assert home["container.a"] == 1.0 and "container.a" not in bar
    assert title["container.class-header"] == 1.0 and features[6]["container.class-list"] == 1.0
    # before "Home": <body>, <div> (block tags) and <a> (inline); before "|": </a>
    assert home["split.class-block"] == pytest.approx(L(2)) and home["split.class-inline"] == pytest.approx(L(1))
    assert bar["split.class-inline"] == pytest.approx(L(1)) and "split.class-block" not in bar
    # between the title and the first paragraph: </h1> (block) and <p>
    assert first["split.p"] == pytest.approx(L(1)) and first["split.class-block"] == pytest.approx(L(1))


def test_content_features(features):
    first, call, item1, item2 = features[4], features[5], features[6], features[7]
    assert first["sentence.count"] == pytest.approx(L(2))
    assert first["sentence.avg-length"] == pytest.approx(L(5 / 2))
    assert first["sentence-begin"] == 1.0 and first["sentence-end"] == 1.0
    assert "sentence-end" not in call
    # tokens: Call, on, at words; 12:30 and 3/4/2007 numbers; www.example.com other
    assert call["token.alpha-rel"] == pytest.approx(3 / 6)
    assert call["token.num-rel"] == pytest.approx(2 / 6) and call["token.num-abs"] == pytest.approx(L(2))
    assert call["token.other-rel"] == pytest.approx(1 / 6)
    assert call["regexp.time=1"] == 1.0 and call["regexp.date=1"] == 1.0 and call["regexp.url=2"] == 1.0
    assert first["regexp.url=0"] == 1.0
    assert item1["bullet=dash"] == 1.0 and first["bullet=none"] == 1.0
    assert item1["duplicate-count"] == pytest.approx(L(1)) and item2["duplicate-count"] == pytest.approx(L(1))
    assert item1.get("first-duplicate") == 1.0 and "first-duplicate" not in item2
    assert first["char.alpha-rel"] == pytest.approx(26 / 32) and first["char.punct-rel"] == pytest.approx(2 / 32)


def test_group_and_document_features(features):
    # nav holds 3 of the page's 22 words, main 19; there is no td: one group of everything
    assert features[0]["div-group.word-ratio"] == pytest.approx(3 / 22)
    assert features[3]["div-group.word-ratio"] == pytest.approx(19 / 22)
    assert features[0]["td-group.word-ratio"] == 1.0
    assert features[0]["document.max-div-group"] == pytest.approx(19 / 22)
    assert features[0]["document.word-count"] == pytest.approx(L(22))
    assert features[0]["document.block-count"] == pytest.approx(L(8))
    assert (features[0]["position"], features[7]["position"]) == (0.0, 1.0)


def test_feature_sets_drop_named_features():
    page = Page("p", PAGE, "")
    reduced = block_features(page.blocks, frozenset(FEATURE_SETS["no_counts_url"]))
    assert all("token.num-abs" not in f and "div-group.word-ratio" not in f for f in reduced)
    assert all(not any(k.startswith("regexp.url=") for k in f) and "document.word-count" not in f for f in reduced)
    assert all("regexp.date=0" in f or "regexp.date=1" in f for f in reduced)


def test_labels_from_gold_markers():
    html = (
        "<body><div><a>Home</a></div><h2>The Title</h2><p>Hello <b>world</b> again</p>"
        "<ul><li>- item one</li><li>- item two</li></ul><div>Copyright</div></body>"
    )
    markup = "URL: http://x\n<h>The Title\n<p>Hello world again\n<l>- item one\n<l>- item two\n"
    page = Page("p", html, "The Title Hello world again - item one - item two", meta={"gold_markup": markup})
    assert crf_labels(page) == [
        "other",
        "header",
        "paragraph",
        "continuation",
        "continuation",
        "list",
        "list",
        "other",
    ]
    plain = Page("q", html, "The Title Hello world again")
    assert crf_labels(plain) == ["other", "paragraph", "paragraph", "paragraph", "paragraph", "other", "other", "other"]


def _pages():
    nav = "<div><a>Home</a> <a>News</a> <a>Sport</a></div>"
    foot = "<div>Copyright 2007 Example Ltd</div>"
    pages = []
    for k in range(3):
        body = f"<p>Story {k} tells a long tale of many things that happened today.</p><p>It goes on for a while.</p>"
        pages.append(
            Page(
                str(k),
                f"<body>{nav}{body}{foot}</body>",
                f"Story {k} tells a long tale of many things that happened today. It goes on for a while.",
            )
        )
    return pages


def test_crf_fits_three_pages_and_round_trips(tmp_path):
    pages = _pages()
    model = CRF(max_iterations=100).fit(pages)
    for page in pages:
        assert list(model.extract(page).labels) == list(page.gold_labels)
    model.save(tmp_path)
    loaded = CRF(max_iterations=100).load(tmp_path)
    assert loaded.predict(pages[0]) == model.predict(pages[0])
    with pytest.raises(ValueError, match="other hyperparameters"):
        CRF(max_iterations=50).load(tmp_path)


def test_crf_training_is_deterministic():
    pages = _pages()
    assert CRF(max_iterations=30).fit(pages).model_ == CRF(max_iterations=30).fit(pages).model_


def test_crf_empty_page_and_bad_options():
    model = CRF(max_iterations=10).fit(_pages())
    result = model.extract(Page("e", "", ""))
    assert result.text == "" and len(result.labels) == 0
    with pytest.raises(ConfigError, match="feature_set"):
        CRF(feature_set="some")
    with pytest.raises(ConfigError):
        CRF(c1=-1)
    with pytest.raises(RuntimeError, match="before fit"):
        CRF().extract(Page("e", "<p>x</p>", ""))
    assert np.array_equal(model.extract(Page("x", "<p>Story</p>", "")).labels.shape, (1,))


def test_crf_labels_become_cleaneval_markup():
    from boilerbench.extractors.base import block_markup

    # header, paragraph, continuation, other, list: the continuation joins the paragraph
    texts, seps = ["Title", "First part", "second part", "Menu", "item"], ["", "\n", " ", "\n", "\n"]
    labels = np.array([1, 1, 1, 0, 1], dtype=np.int8)
    kinds = ["h", "p", "", "", "l"]
    assert block_markup(texts, seps, labels, kinds) == "<h>Title\n<p>First part second part\n<l>item"


def test_cached_features_are_the_computed_ones_for_every_setting(tmp_path):
    """The CRF's features come from one per-page cache entry (shared with the stack) and equal
    the computed ones, for the full set and for a reduced one."""
    from boilerbench.cache import set_cache_dir
    from boilerbench.extractors.crf.features import page_features

    page = Page("p", "<body><ul><li><a>Home</a></li></ul><p>One sentence here. And 2 more.</p></body>", "")
    reduced = frozenset(FEATURE_SETS["no_counts_url"])
    set_cache_dir(tmp_path)
    try:
        assert page_features(page) == block_features(page.blocks)  # computed and stored
        assert page_features(page) == block_features(page.blocks)  # read back
        assert page_features(page, reduced) == block_features(page.blocks, reduced)
        assert len(list((tmp_path / "crf_features").rglob("*.txt"))) == 1
    finally:
        set_cache_dir(None)


#: Victor's e-mail and domain patterns as written, quadratic on a long run of non-space characters.
VICTOR_PATTERNS = (r"\b\S+@\S+\.\w+", r"\b\S+\.(?:com|org|net|edu|gov|uk)\b")


@settings(max_examples=3000, deadline=None, database=None, derandomize=True)
@given(st.text(alphabet="a1_.@ (-\t\u4e2d\u00e9COMcomorguknet!/", max_size=24))
def test_linear_url_patterns_match_exactly_the_texts_victors_match(text):
    """The linear rewrites (Victor's take 1 s on a 20,000-character run, quadratic) must keep every
    CRF feature value: each agrees with its original on every text. What would fail: a rewrite
    that needs the word character right before the ``@`` or the dot, takes only the last ``@``,
    or lets a match span a space."""
    import re

    from boilerbench.extractors.crf.features import URL_PATTERNS

    for original, linear in zip(VICTOR_PATTERNS, URL_PATTERNS[2:], strict=True):
        assert bool(re.search(original, text, re.I)) == bool(re.search(linear, text, re.I)), (original, text)
