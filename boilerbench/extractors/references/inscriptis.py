"""inscriptis: the whole page as text (the ecosystem's HTML-to-text converter baseline)."""

from __future__ import annotations

from boilerbench.datasets.page import Page
from boilerbench.extractors.references.base import ReferenceExtractor


class Inscriptis(ReferenceExtractor):
    """inscriptis renders the whole page as text (layout-aware, no content selection), the upper
    bound on recall of any text-only method; config ``inscriptis`` (formerly ``html_to_text``:
    :data:`boilerbench.conf.RENAMED`). It is given the tree our parser builds (the page's,
    shared with scoring, so the page is parsed once): its own entry point hands the string to
    lxml, which refuses strings with an ``<?xml encoding?>`` declaration (one L3S-GN1 page)."""

    MODULE = DISTRIBUTION = "inscriptis"

    def __init__(self, max_html_chars: int = ReferenceExtractor.MAX_HTML_CHARS) -> None:
        self.max_html_chars = max_html_chars
        self._lib = self._require()

    def _text(self, page: Page) -> str:
        root = page.blocks.root  # the tree the runner parses anyway; inscriptis only reads it
        return self._lib.Inscriptis(root).get_text() if root is not None else ""
