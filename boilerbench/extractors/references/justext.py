"""jusText (Pomikálek 2011)."""

from __future__ import annotations

from boilerbench.datasets.page import Page
from boilerbench.errors import check_choice
from boilerbench.extractors.references.base import ReferenceExtractor


class JusText(ReferenceExtractor):
    """jusText: the paragraphs it does not classify as boilerplate."""

    MODULE = "justext"
    DISTRIBUTION = "jusText"

    def __init__(self, stoplist: str = "English", max_html_chars: int = ReferenceExtractor.MAX_HTML_CHARS) -> None:
        self.max_html_chars = max_html_chars
        self._lib = self._require()
        check_choice("extractor.stoplist", stoplist, sorted(self._lib.get_stoplists()))
        self.stoplist = stoplist

    def _text(self, page: Page) -> str:
        paragraphs = self._lib.justext(page.html, self._lib.get_stoplist(self.stoplist))
        return "\n".join(p.text for p in paragraphs if not p.is_boilerplate)
