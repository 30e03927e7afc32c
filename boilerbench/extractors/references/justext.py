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
"""

from __future__ import annotations

from typing import Any

from boilerbench.datasets.page import Page
from boilerbench.errors import check_choice
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
        stoplist: frozenset[str]
        thresholds: dict[str, float]
        if name == INDEPENDENT:
            stoplist, thresholds = frozenset(), {"stopwords_low": 0.0, "stopwords_high": 0.0}
        else:
            stoplist, thresholds = self._lib.get_stoplist(name), {}
        tree = html_tree(page)
        if tree is None:
            paragraphs = self._lib.justext(page.html, stoplist, **thresholds)
        else:
            paragraphs = self._from_tree(tree, stoplist, **thresholds)
        return "\n".join(p.text for p in paragraphs if not p.is_boilerplate)

    def _from_tree(
        self, tree: Any, stoplist: frozenset, stopwords_low: float | None = None, stopwords_high: float | None = None
    ) -> list:
        """``justext.justext`` from a parsed tree: its body after ``html_to_dom``, with its
        defaults; the tree is the page's shared one (:mod:`.lxml_tree`), which jusText's cleaner
        copies before removing anything."""
        core = self._lib.core
        paragraphs = core.ParagraphMaker.make_paragraphs(core.preprocessor(tree))
        core.classify_paragraphs(
            paragraphs,
            stoplist,
            core.LENGTH_LOW_DEFAULT,
            core.LENGTH_HIGH_DEFAULT,
            core.STOPWORDS_LOW_DEFAULT if stopwords_low is None else stopwords_low,
            core.STOPWORDS_HIGH_DEFAULT if stopwords_high is None else stopwords_high,
            core.MAX_LINK_DENSITY_DEFAULT,
            core.NO_HEADINGS_DEFAULT,
        )
        core.revise_paragraph_classification(paragraphs, core.MAX_HEADING_DISTANCE_DEFAULT)
        return paragraphs
