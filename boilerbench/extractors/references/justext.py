"""jusText (Pomikálek 2011), with its stoplist chosen by the page's language.

jusText classifies paragraphs by their share of stopwords (Pomikálek 2011, ch. 4): with the
English stoplist a Russian or Chinese paragraph has none, so every paragraph of such a page is
boilerplate. ``stoplist: auto`` (the default) identifies the page's language from its visible
text (:func:`boilerbench.language.detect`, nothing from the dataset) and uses jusText's stoplist
for it; a page whose language jusText has no stoplist for is a per-page
:class:`NoStoplistError`: the runner records it, and in an ensemble or a stack the member's vote
on that page is missing, not "everything is boilerplate". A page with too little text to
identify its language is read in the language-independent mode. ``stoplist: none`` is
jusText's own language-independent mode (an empty stoplist with both stopword thresholds at 0,
as its documentation describes); any stoplist name fixes that one for every page.

jusText's parse and cleaning are the library's (``html_to_dom``, ``preprocessor``); its
paragraphs and their classification are :mod:`.justext_paragraphs`, the same algorithm and the
same text, each paragraph's text computed once instead of on every read.
"""

from __future__ import annotations

import functools
from types import ModuleType

from boilerbench.datasets.page import Page
from boilerbench.errors import check_choice
from boilerbench.extractors.references import justext_paragraphs as paragraphs
from boilerbench.extractors.references.base import ReferenceExtractor
from boilerbench.extractors.references.lxml_tree import html_tree
from boilerbench.language import justext_stoplist

#: The two stoplist modes beside jusText's own stoplist names.
AUTO = "auto"
INDEPENDENT = "none"


class NoStoplistError(ValueError):
    """jusText has no stoplist for the page's identified language."""


class JusText(ReferenceExtractor):
    """jusText: the paragraphs it does not classify as boilerplate. Inside a stack's vote it reads
    the page's shared lxml.html tree (:mod:`.lxml_tree`) instead of parsing the page again; its
    text is the same (``studies/speed_shared_parse.py``)."""

    MODULE = "justext"
    DISTRIBUTION = "jusText"

    def __init__(self, stoplist: str = AUTO, max_html_chars: int = ReferenceExtractor.MAX_HTML_CHARS) -> None:
        self.max_html_chars = max_html_chars
        self._lib = self._require()
        check_choice("extractor.stoplist", stoplist, [AUTO, INDEPENDENT, *sorted(self._lib.get_stoplists())])
        self.stoplist = stoplist

    def stoplist_for(self, page: Page) -> str:
        """The stoplist used on ``page``: the configured one, or the one of its identified language."""
        if self.stoplist != AUTO:
            return self.stoplist
        language = page.blocks.detected_language
        if not language:
            return INDEPENDENT
        name = justext_stoplist(language)
        if name is None:
            raise NoStoplistError(f"jusText has no stoplist for the page's language ({language})")
        return name

    def _text(self, page: Page) -> str:
        name = self.stoplist_for(page)
        stoplist: frozenset[str] = frozenset()
        low, high = 0.0, 0.0
        if name != INDEPENDENT:
            stoplist, low, high = _stoplist(self._lib, name), paragraphs.STOPWORDS_LOW, paragraphs.STOPWORDS_HIGH
        core = self._lib.core
        tree = html_tree(page)
        found = paragraphs.make_paragraphs(core.preprocessor(core.html_to_dom(page.html) if tree is None else tree))
        paragraphs.classify_paragraphs(found, stoplist, low, high)
        paragraphs.revise_paragraph_classification(found)
        return "\n".join(p.text for p in found if not p.is_boilerplate)


@functools.cache
def _stoplist(lib: ModuleType, name: str) -> frozenset[str]:
    """jusText's stoplist ``name`` (its ``get_stoplist`` reads the stoplist's file on every call)."""
    return lib.get_stoplist(name)
