"""Bad input never crashes a run: for every registered extractor, each hostile page gives what it
must (the empty text, or text containing the page's known sentence) and no recorded error; only a
page over the size limit, or an extractor that raises, becomes a recorded per-page error."""

import functools

import numpy as np
import pytest
from registry import EXTRACTOR_NAMES, make_extractor

from boilerbench.datasets.encoding import decode_bytes
from boilerbench.datasets.page import Page
from boilerbench.experiments.scoring import evaluate_page
from boilerbench.extractors.references.base import ReferenceExtractor

LIMIT = 50_000_000


def _random_bytes() -> bytes:
    return np.random.default_rng(0).integers(0, 256, 20_000, dtype=np.uint8).tobytes()


#: The known sentence of the hostile pages: an article paragraph that every content extractor keeps.
SENTENCE = (
    "The council said on Monday that the old stone bridge over the river will close for repairs during the "
    "whole summer, and that the ferry will carry people and bicycles across the water until September."
)
ARTICLE_TEXT = f"{SENTENCE} {SENTENCE.replace('council', 'mayor')}"
ARTICLE = f"<p>{ARTICLE_TEXT}</p>"
NAV = "<div><a href='/'>Home</a> | <a href='/news'>News</a></div>"

#: Each hostile page and what must come out of every extractor: the empty text, or text containing
#: the known sentence (None: any text, e.g. from random bytes). No case may end in a recorded error.
BAD_INPUTS: dict[str, tuple[bytes, str | None]] = {
    "empty": (b"", ""),
    "random_bytes": (_random_bytes(), None),
    "truncated": (
        f"<html><head><title>T</title></head><body>{NAV}{ARTICLE}<p>Some text that is cut".encode(),
        SENTENCE,
    ),
    "mixed_encodings": (
        f"<body>{NAV}{ARTICLE}".encode() + "<p>café crème à la carte</p></body>".encode("windows-1252"),
        SENTENCE,
    ),
    "nul_and_control": (f"<html><body>{NAV}\x00{ARTICLE}\x01\x1b</body></html>\x00".encode(), SENTENCE),
    "xml_declaration": (
        f'<?xml version="1.0" encoding="ISO-8859-1"?><html><body>{NAV}{ARTICLE}</body></html>'.encode("latin-1"),
        SENTENCE,
    ),
    "deep_nesting": (b"<div>" * 10_000 + f"{NAV}{ARTICLE}".encode() + b"</div>" * 10_000, SENTENCE),
    "only_markup": (
        b"<html><head><script>var x = '<p>not text</p>';</script></head><body><div></div></body></html>",
        "",
    ),
}
TRAINING_TEXTS = (
    "The school board voted on Tuesday to keep the library open in the evenings for the rest of the year.",
    "Farmers in the valley expect a late harvest because the spring was wet and the summer began cold.",
    "The museum will show the paintings of the old harbour that were found in an attic last winter.",
)
TRAIN = [
    Page(
        f"t{i}",
        f"<body>{NAV}<ul><li><a>Menu</a></li></ul><p>{text} {text}</p><p>Copyright</p></body>",
        f"{text} {text}",
    )
    for i, text in enumerate(TRAINING_TEXTS)
]


@functools.cache
def fitted(name: str):
    """Each extractor fitted once, briefly, on the two training pages."""
    return make_extractor(name, quick=True).fit(TRAIN, None)


#: Learned extractors, fitted here in seconds on three pages: on a page whose article is one block
#: they must keep or drop that block whole (the empty text is allowed, a part of it is not).
WHOLE_OR_NOTHING = {"boilernet", "crf", "fiasco", "genieknows", "lm_embedding", "tagpath_lstm", "web2text"}
WHOLE_OR_NOTHING |= {"web2text_unary"}
#: Third-party extractors that parse the raw HTML themselves: libxml2 drops everything below 2,048
#: levels, so on the 10,000-level page they give the empty text (and so do the votes over them);
#: on the gigantic page, too (each refuses it, see allowed_error).
DEPTH_LIMITED = {"goose3", "html_text", "justext", "newspaper", "readability", "trafilatura"}
DEPTH_LIMITED |= {"majority_vote", "weighted_vote"}
#: Heuristics whose published rule drops every paragraph of the gigantic page: Kohlschütter et al.'s
#: rules keep a line after a menu only when it has over 40 words or the next line over 17, and each
#: 35-word paragraph there sits between two 3-word menus.
RULE_LIMITED = {"numwords_rules"}
#: A recorded per-page error that a case may give: inscriptis walks the (flattened, 2,000-level)
#: tree recursively and overflows Python's stack; Readability.js (node) reports an error; jusText
#: has no stoplist for the language identified.
ALLOWED_ERRORS = {
    ("inscriptis", "deep_nesting"): "RecursionError",
    ("readabilipy", "deep_nesting"): "ReadabilityJsError",
    # random bytes read as text are identified as a language (py3langid: Guadeloupean Creole)
    # that jusText has no stoplist for
    ("justext", "random_bytes"): "NoStoplistError",
}


def allowed_error(name: str, case: str) -> str | None:
    """The recorded error a case may give: one of :data:`ALLOWED_ERRORS`, or, for a third-party
    extractor on the gigantic page, its refusal of a page over its size limit
    (``ReferenceExtractor.MAX_HTML_CHARS``); the votes over them then go empty."""
    if case == "gigantic" and isinstance(fitted(name), ReferenceExtractor):
        return "PageTooLargeError"
    return ALLOWED_ERRORS.get((name, case))


def _check(name: str, result, page: Page, expected: str | None) -> None:
    row = result.row
    assert row["page_id"] == page.id
    assert isinstance(result.text, str) and "\x00" not in result.text
    assert 0.0 <= row["cleaneval"] <= 100.0
    allowed = allowed_error(name, page.id)
    if allowed and row["error"]:
        assert row["error"].startswith(allowed) and result.text == ""
        return
    assert row["error"] == "", f"{name} on {page.id}: {row['error']}"
    may_be_empty = (
        name in WHOLE_OR_NOTHING
        or (name in DEPTH_LIMITED and page.id in ("deep_nesting", "gigantic"))
        or (name in RULE_LIMITED and page.id == "gigantic")
    )
    if expected == "" or (may_be_empty and result.text == ""):
        assert result.text == "", f"{name} on {page.id} extracted {result.text[:80]!r} from a page with no text"
    elif expected is not None:
        assert expected in " ".join(result.text.split()), f"{name} on {page.id} lost the article: {result.text[:200]!r}"


@pytest.mark.parametrize("case", sorted(BAD_INPUTS))
@pytest.mark.parametrize("name", EXTRACTOR_NAMES)
def test_bad_input_gives_what_it_must(name, case):
    data, expected = BAD_INPUTS[case]
    page = Page(case, decode_bytes(data), ARTICLE_TEXT if expected else "")
    result = evaluate_page(fitted(name), page, LIMIT)
    _check(name, result, page, expected)
    if case in ("empty", "only_markup"):
        assert result.row["n_blocks"] == 0


@pytest.fixture(scope="module")
def gigantic_page() -> Page:
    """A 7 MB page of 100,000 blocks, 18 times the largest page of CleanEval (parsed once, shared
    by the extractors). The metrics' LCS on millions of tokens is tested in test_lcs.py."""
    unit = f"<div>{NAV}<p>{SENTENCE}</p></div>"
    html = "<html><body>" + unit * 25_000 + "</body></html>"
    assert len(html) > 6_000_000
    return Page("gigantic", html, " ".join([SENTENCE] * 25_000))


@pytest.mark.slow
@pytest.mark.parametrize("name", EXTRACTOR_NAMES)
def test_gigantic_page(name, gigantic_page):
    result = evaluate_page(fitted(name), gigantic_page, LIMIT)
    _check(name, result, gigantic_page, SENTENCE)
    assert result.row["n_blocks"] == 100_000


def test_page_over_the_size_limit_is_a_recorded_error():
    page = Page("big", "<p>" + "x " * 1000 + "</p>", "x")
    result = evaluate_page(make_extractor("all_text"), page, max_html_chars=100)
    assert result.row["error"].startswith("PageTooLarge")
    assert result.text == "" and result.row["cleaneval"] == 0.0


def test_a_failing_extractor_is_isolated():
    class Broken:
        def fit(self, train, validation=None):
            return self

        def extract(self, page):
            raise RuntimeError("boom")

    page = Page("p", "<p>gold words</p>", "gold words")
    result = evaluate_page(Broken(), page, LIMIT)
    assert result.row["error"] == "RuntimeError: boom"
    assert result.text == "" and result.row["cleaneval"] == 0.0
    assert result.row["block_recall"] == 0.0 and result.row["n_gold_blocks"] == 1


def test_labels_of_wrong_length_are_a_recorded_error():
    from boilerbench.extractors.base import Extraction

    class WrongLength:
        def extract(self, page):
            return Extraction("gold words", labels=np.ones(5, dtype=np.int8))

    result = evaluate_page(WrongLength(), Page("p", "<p>gold words</p>", "gold words"), LIMIT)
    assert "differ in length" in result.row["error"]
    assert result.row["cleaneval"] == 100.0
