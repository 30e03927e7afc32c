"""Resiliparse's main-content plain-text extraction (Bevendorff et al.; ChatNoir's extractor)."""

from __future__ import annotations

from boilerbench.datasets.page import Page
from boilerbench.extractors.references.base import ReferenceExtractor, require


class Resiliparse(ReferenceExtractor):
    """``resiliparse.extract.html2text.extract_plain_text`` with ``main_content=True`` (its
    rule-based main-content heuristics) on Resiliparse's own HTML5 parser. List bullets and
    image alt texts (on by default in the library) are off: no gold standard counts them as
    page text, so they would only cost precision."""

    MODULE = "resiliparse.extract.html2text"
    DISTRIBUTION = "resiliparse"

    def __init__(
        self,
        main_content: bool = True,
        list_bullets: bool = False,
        alt_texts: bool = False,
        comments: bool = True,
        max_html_chars: int = ReferenceExtractor.MAX_HTML_CHARS,
    ) -> None:
        self.main_content = main_content
        self.list_bullets = list_bullets
        self.alt_texts = alt_texts
        self.comments = comments
        self.max_html_chars = max_html_chars
        self._lib = self._require()
        self._parser = require("resiliparse.parse.html", self.DISTRIBUTION)

    def _text(self, page: Page) -> str:
        tree = self._parser.HTMLTree.parse(page.html)
        return self._lib.extract_plain_text(
            tree,
            main_content=self.main_content,
            list_bullets=self.list_bullets,
            alt_texts=self.alt_texts,
            comments=self.comments,
        )
