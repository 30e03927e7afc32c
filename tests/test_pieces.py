"""Huge pages extracted piece by piece (:mod:`boilerbench.engine.pieces`), on small hand-made pages
with the sizes scaled down.

What would fail: a cut inside an element's start tag, a script, a comment or in the middle of a
word; a piece that loses the elements open at its cut (its blocks' tag paths, classes and ids) or
the page's title; text lost or repeated between pieces; unclosed ``<p>`` counted as open (a page
of them would look ever deeper and never be cut between sections); a page at the threshold cut;
a stack member let in on a piece of a page over its size limit; the API's pieces without their
warning, markdown or metadata.
"""

from __future__ import annotations

import re

import pytest

from boilerbench.api import extract_document
from boilerbench.datasets.page import Page
from boilerbench.engine.pieces import html_pieces, piece_pages
from boilerbench.extractors.base import Extraction
from boilerbench.extractors.references.base import PageTooLargeError
from boilerbench.extractors.references.trafilatura import Trafilatura

TITLE = "<title>Ferries</title>"
BODY = '<body class="b"><div id="main">'


def sections(n: int, words: int = 8) -> str:
    """``n`` sections of ``words`` words each (about 120 characters each at 8 words)."""
    return "".join(
        f"<section><h2>S{k}</h2><p>" + " ".join(f"w{k}x{j}" for j in range(words)) + "</section>" for k in range(n)
    )


def page_html(body: str) -> str:
    return f"<html><head>{TITLE}</head>{BODY}{body}</div></body></html>"


def strip_prefix(piece: str) -> str:
    """A piece without the title and start tags that :func:`html_pieces` puts before it."""
    prefix = TITLE + BODY
    return piece[len(prefix) :] if piece.startswith(prefix) else piece


def test_a_page_within_the_size_is_one_piece_and_the_same_string() -> None:
    html = page_html(sections(3))
    assert list(html_pieces(html, len(html))) == [html]


def test_pieces_are_cut_between_sections_and_reopen_the_elements_open_there() -> None:
    html = page_html(sections(80))
    pieces = list(html_pieces(html, 1_000))
    assert len(pieces) > 4
    assert "".join(strip_prefix(p) for p in pieces) == html  # nothing lost, nothing repeated
    for piece in pieces[1:]:
        assert piece.startswith(TITLE + BODY + "<section>")  # the cut is before a section
        assert len(strip_prefix(piece)) <= 1_000 or piece is pieces[-1]
    for piece in pieces[:-1]:
        assert piece.endswith("</section>")
        assert len(piece) - (0 if piece is pieces[0] else len(TITLE + BODY)) > 500  # second half


def test_unclosed_paragraphs_do_not_deepen_the_page() -> None:
    """Every section's ``<p>`` is left open: the sections are still the shallowest cut."""
    html = page_html(sections(80))
    assert "</p>" not in html
    assert all(p.startswith(TITLE + BODY + "<section>") for p in list(html_pieces(html, 1_000))[1:])


def test_a_script_and_a_comment_are_never_cut_and_their_tags_are_not_tags() -> None:
    fake = "<section><p>not a tag</p></section>" * 40
    html = page_html(sections(4) + f"<script>var s = '{fake}';</script><!-- {fake} -->" + sections(20))
    pieces = list(html_pieces(html, 1_000))
    assert "".join(strip_prefix(p) for p in pieces) == html
    holding = [p for p in pieces if "</script>" in p]
    assert len(holding) == 1 and "<script>" in holding[0]  # not cut
    assert len(holding[0]) > 1_000  # kept whole, in a piece longer than the size
    commented = [p for p in pieces if "-->" in p]
    assert len(commented) == 1 and "<!--" in commented[0]


def test_text_without_tags_is_cut_at_whitespace() -> None:
    words = " ".join(f"word{k}" for k in range(1_000))
    pieces = list(html_pieces(page_html(f"<p>{words}</p>"), 1_000))
    assert len(pieces) > 5
    texts = [re.sub(r"<[^>]*>", " ", strip_prefix(p)) for p in pieces]
    assert " ".join(texts).split() == ["Ferries", *words.split()]  # no word split in two, lost or repeated


def test_piece_pages_carry_the_page() -> None:
    page = Page("p", page_html(sections(80)), "gold", url="https://x.org/a", meta={"language": "el"}, source="wcxb")
    assert list(piece_pages(page, above=len(page.html))) == [page]
    pieces = list(piece_pages(page, above=1_000, piece_chars=1_000))
    assert len(pieces) > 4
    for k, piece in enumerate(pieces):
        assert piece.id == f"p#piece{k}" and piece.url == page.url and piece.source == "wcxb"
        assert piece.gold_text == "gold" and piece.meta == {"language": "el"} and len(piece.html) < len(page.html)


class Recording:
    """Extracts each page's ``S<k>`` headings; remembers the pages it saw."""

    def __init__(self) -> None:
        self.seen: list[Page] = []

    def extract(self, page: Page) -> Extraction:
        self.seen.append(page)
        return Extraction(" ".join(re.findall(r"<h2>(S\d+)</h2>", page.html)))


def test_a_piece_that_raises_fails_the_page(monkeypatch: pytest.MonkeyPatch) -> None:
    import boilerbench.api as api

    class FailsOnSecond(Recording):
        def extract(self, page: Page) -> Extraction:
            if page.id.endswith("#piece1"):
                raise ValueError("bad piece")
            return super().extract(page)

    monkeypatch.setattr(api, "PIECE_ABOVE", 1_000)
    monkeypatch.setattr(api, "PIECE_CHARS", 1_000)
    with pytest.raises(ValueError, match="bad piece"):
        extract_document(FailsOnSecond(), Page("p", page_html(sections(80)), ""))


def test_a_reference_extracts_the_pieces_of_a_page_over_its_limit(monkeypatch: pytest.MonkeyPatch) -> None:
    import boilerbench.api as api

    page = Page("p", page_html(sections(80)), "")
    reference = Trafilatura(max_html_chars=1_200)  # a piece: at most 1,000 and its re-opened tags
    with pytest.raises(PageTooLargeError):
        extract_document(reference, page)
    monkeypatch.setattr(api, "PIECE_ABOVE", 1_000)
    monkeypatch.setattr(api, "PIECE_CHARS", 1_000)
    text = extract_document(reference, page).text
    assert "w0x0" in text and "w79x7" in text


def test_the_api_extracts_a_huge_page_in_pieces_with_a_warning(monkeypatch: pytest.MonkeyPatch) -> None:
    import boilerbench.api as api

    monkeypatch.setattr(api, "PIECE_ABOVE", 1_000)
    monkeypatch.setattr(api, "PIECE_CHARS", 1_000)
    page = Page("p", page_html(sections(80)), "")
    recording = Recording()
    document = extract_document(recording, page, markdown=True, metadata=True)
    assert len(recording.seen) > 2 and all(p.id.startswith("p#piece") for p in recording.seen)
    assert document.text.split() == [f"S{k}" for k in range(80)]
    assert document.markdown is not None and "S0" in document.markdown and "S79" in document.markdown
    assert document.metadata is not None and document.metadata["title"] == "Ferries"
    assert document.warnings == [
        f"{len(page.html):,} characters of HTML: extracted in {len(recording.seen)} pieces of at most about 1,000, "
        "each without the rest of the page"
    ]
    monkeypatch.setattr(api, "PIECE_ABOVE", len(page.html))  # at the threshold: whole
    whole = Recording()
    document = extract_document(whole, page, markdown=True)
    assert whole.seen == [page] and document.text == " ".join(f"S{k}" for k in range(80)) and not document.warnings
