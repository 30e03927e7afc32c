"""readability-lxml, the Python port of Arc90's Readability."""

from __future__ import annotations

import copy
import functools
import html as html_lib
import re
from typing import Any

from boilerbench.datasets.blocks import segment
from boilerbench.datasets.page import Page
from boilerbench.extractors.references.base import ReferenceExtractor
from boilerbench.extractors.references.lxml_tree import html_tree, is_document_root

#: An iframe start tag anywhere in a page's HTML.
_IFRAME = re.compile(r"<iframe", re.IGNORECASE)


class Readability(ReferenceExtractor):
    """readability-lxml: ``Document.summary`` as HTML, shown as text with the project's block
    rules (one line per block-level element).

    Two shortcuts leave its text unchanged. Given the page's URL, readability makes every link of
    the page absolute (a tenth of its time); the only link its text depends on is an iframe's
    ``src`` (a YouTube or Vimeo iframe is kept, with a placeholder text that counts in its
    length rules, where others are dropped), so the URL is passed only for pages with an
    ``<iframe``. Inside a stack's vote it reads the page's shared lxml.html tree
    (:mod:`.lxml_tree`), copied afresh for each of its passes (it drops nodes as it goes, and
    parses again when its first pass finds too little), when that tree is a whole document as
    its own parse gives.
    """

    MODULE = "readability"
    LOGGER = "readability.readability"
    DISTRIBUTION = "readability-lxml"

    def __init__(self, max_html_chars: int = ReferenceExtractor.MAX_HTML_CHARS) -> None:
        self.max_html_chars = max_html_chars
        self._lib = self._require()

    def _text(self, page: Page) -> str:
        url = page.url if _IFRAME.search(page.html) else None
        tree = html_tree(page)
        if is_document_root(tree):
            document = tree_document(self._lib.Document)(tree, url=url)
        else:
            document = self._lib.Document(page.html, url=url)
        return segment(restore_raw_text(document.summary(html_partial=True))).join()


#: Elements whose content libxml2 parses as raw text but serialises escaped, so that its text
#: parsed again from readability's summary gains a level of escaping (``&lt;`` on the page became
#: ``&amp;lt;``: text that is not on the page; found by ``benchmarks/fuzz.py``).
_RAW_TEXT = re.compile(r"(<(xmp|iframe|noembed|noframes|plaintext)\b[^>]*>)(.*?)(</\2\s*>)", re.IGNORECASE | re.DOTALL)


def restore_raw_text(html: str) -> str:
    """``html`` with the content of each raw-text element as it was on the page: unescaped once
    (lxml escapes every ``&``, ``<`` and ``>`` of it, and it cannot hold its end tag), except a
    ``plaintext`` element's, which runs to the end of the document once parsed (the end tags lxml
    wrote after it would become its text): that one becomes a ``pre`` with its content as written."""

    def restored(match: re.Match) -> str:
        if match.group(2).lower() == "plaintext":
            return f"<pre>{match.group(3)}</pre>"
        return match.group(1) + html_lib.unescape(match.group(3)) + match.group(4)

    return _RAW_TEXT.sub(restored, html)


@functools.cache
def tree_document(document: type) -> type:
    """readability's ``document`` class over a tree it must not modify: each of its parses copies it."""

    class TreeDocument(document):
        def _parse(self, input: Any) -> Any:
            return super()._parse(copy.deepcopy(input))

    return TreeDocument
