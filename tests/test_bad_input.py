"""Bad input never crashes a run: each case gives an empty extraction or a recorded error,
for every registered extractor."""

import functools

import numpy as np
import pytest
from registry import EXTRACTOR_NAMES, make_extractor

from boilerbench.datasets.encoding import decode_bytes
from boilerbench.datasets.page import Page
from boilerbench.experiments.scoring import evaluate_page

LIMIT = 50_000_000
TRAIN = [
    Page("t1", "<body><div><a>Home</a></div><p>" + "good text " * 30 + "</p></body>", " ".join(["good text"] * 30)),
    Page(
        "t2",
        "<body><ul><li><a>Menu</a></li></ul><p>" + "more words " * 30 + "</p></body>",
        " ".join(["more words"] * 30),
    ),
]


@functools.cache
def fitted(name: str):
    """Each extractor fitted once, briefly, on the two training pages."""
    return make_extractor(name, quick=True).fit(TRAIN, None)


def _random_bytes() -> bytes:
    return np.random.default_rng(0).integers(0, 256, 20_000, dtype=np.uint8).tobytes()


BAD_INPUTS = {
    "empty": b"",
    "random_bytes": _random_bytes(),
    "truncated": b"<html><head><title>T</title></head><body><div><p>Some text that is cut in the mid",
    "mixed_encodings": "<p>naïve</p>".encode() + "<p>café crème</p>".encode("windows-1252"),
    "nul_and_control": b"<html><body><p>a\x00b\x01c\x1bd text</p>\x00\x00</body></html>",
    "xml_declaration": b'<?xml version="1.0" encoding="ISO-8859-1"?><html><body><p>Declared text</p></body></html>',
    "deep_nesting": b"<div>" * 10_000 + b"deep text" + b"</div>" * 10_000,
}


@pytest.fixture(scope="module")
def gigantic_page() -> Page:
    """A 20 MB page (parsed once, shared by the extractors)."""
    unit = "<div><p>" + "word " * 5 + "gigantic page text</p></div>"
    html = "<html><body>" + unit * 400_000 + "</body></html>"
    assert len(html) > 20_000_000
    return Page("gigantic", html, "gigantic page text")


def _check(result, page):
    row = result.row
    assert row["page_id"] == page.id
    assert isinstance(row["error"], str)
    assert isinstance(result.text, str)
    assert 0.0 <= row["cleaneval"] <= 100.0
    if row["error"]:
        assert result.text == ""


@pytest.mark.parametrize("case", sorted(BAD_INPUTS))
@pytest.mark.parametrize("name", EXTRACTOR_NAMES)
def test_bad_input_never_crashes(name, case):
    extractor = fitted(name)
    page = Page(case, decode_bytes(BAD_INPUTS[case]), "Declared text")
    result = evaluate_page(extractor, page, LIMIT)
    _check(result, page)
    if case == "empty":
        assert result.text == "" and result.row["n_blocks"] == 0 and not result.row["error"]
    if case == "xml_declaration" and name in ("all_text", "oracle", "bte", "cetd", "scedd"):
        assert result.text == "Declared text"
    if case == "xml_declaration" and name in ("html_to_text", "inscriptis"):
        assert result.text.strip() == "Declared text"
    if case == "nul_and_control":
        assert "\x00" not in result.text


@pytest.mark.slow
@pytest.mark.parametrize("name", EXTRACTOR_NAMES)
def test_gigantic_page(name, gigantic_page):
    extractor = fitted(name)
    result = evaluate_page(extractor, gigantic_page, LIMIT)
    _check(result, gigantic_page)
    assert result.row["n_blocks"] == 400_000


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
