"""boilerpy3, the Python port of boilerpipe (Kohlschütter et al. 2010)."""

from __future__ import annotations

import re
from typing import Any

from lxml import etree

from boilerbench.datasets.page import Page
from boilerbench.errors import check_choice
from boilerbench.extractors.references.base import ReferenceExtractor

#: A tag name that Python's ``html.parser`` reads as a tag (``tagfind_tolerant``).
_TAG_NAME = re.compile(r"[a-zA-Z][^\t\n\r\f />\x00]*\Z")
#: Tag names, HTML 4 and 5, that may be void (written without an end tag).
_MAYBE_VOID = (
    "area base basefont bgsound br col command embed frame hr image img input isindex keygen link "
    "menuitem meta nextid param source track wbr"
).split()
#: The elements lxml's HTML serialiser (libxml2's) writes without an end tag.
VOID = frozenset(
    tag
    for tag in _MAYBE_VOID
    if f"</{tag}>" not in etree.tostring(etree.Element(tag), method="html", encoding="unicode")
)


#: The elements whose text ``html.parser`` reads raw, up to its end tag (Python 3.11's
#: ``HTMLParser.CDATA_CONTENT_ELEMENTS``; lxml writes exactly these raw too).
RAW_TEXT = ("script", "style")


class TreeNotReplayable(ValueError):
    """A tree whose serialisation ``html.parser`` might read otherwise than its walk."""


def replay_tree(handler: Any, root: Any) -> None:
    """Feed ``handler`` (an ``html.parser.HTMLParser`` subclass's handlers) the events that
    ``html.parser`` reads from ``etree.tostring(root, method="html")``, without writing and
    tokenising that string: each element's start tag (name, attribute list), its text, its
    children, its end tag (none for :data:`VOID` elements), then its tail; non-empty text only,
    one call per text node, as ``html.parser`` with ``convert_charrefs`` reads lxml's escaped
    text. Raises :class:`TreeNotReplayable` on what the walk cannot mirror exactly: a tag name
    ``html.parser`` would read as text, a void element holding something, a script whose text
    holds ``</script`` (libxml2 reads on through ``<!--`` escapes as HTML5 does, ``html.parser``
    ends the script there), or an ``html.parser`` that reads other elements' text raw."""
    if tuple(getattr(handler, "CDATA_CONTENT_ELEMENTS", ())) != RAW_TEXT:
        raise TreeNotReplayable(f"html.parser reads the text of {handler.CDATA_CONTENT_ELEMENTS} raw")
    for event, element in etree.iterwalk(root, events=("start", "end")):
        tag = element.tag
        if not isinstance(tag, str) or not _TAG_NAME.match(tag):
            raise TreeNotReplayable(f"tag {tag!r}")
        if event == "start":
            if tag in VOID and (len(element) or element.text):
                raise TreeNotReplayable(f"void element {tag!r} with content")
            if tag in RAW_TEXT and element.text and re.search(f"</\\s*{tag}", element.text, re.IGNORECASE):
                raise TreeNotReplayable(f"an end tag inside the text of {tag!r}")
            handler.handle_starttag(tag, list(element.items()))
            if element.text:
                handler.handle_data(element.text)
        else:
            if tag not in VOID:
                handler.handle_endtag(tag)
            if element.tail:
                handler.handle_data(element.tail)


class Boilerpipe(ReferenceExtractor):
    """boilerpy3; ``ArticleExtractor`` by default, the variant benchmarks use for news-like pages.

    boilerpy3's parser (the standard library's ``HTMLParser``) fails on 13 of the 676 CleanEval
    test pages (unbalanced end tags); with ``reserialise`` (default) it is given the page as lxml
    re-serialises it, which fails on none. Rather than write that string and tokenise it again in
    pure Python (about half of boilerpy3's time), its parser's handlers are fed the tree's events
    directly (:func:`replay_tree`, the events ``html.parser`` reads from the serialisation); where
    that walk fails, the string goes through the library as before, with its own retry. Its own
    error log is silenced: failures are raised and recorded per page by the runner.
    """

    MODULE = "boilerpy3.extractors"
    LOGGER = "boilerpy3"
    DISTRIBUTION = "boilerpy3"
    VARIANTS = ("ArticleExtractor", "DefaultExtractor", "LargestContentExtractor", "CanolaExtractor")

    def __init__(
        self,
        variant: str = "ArticleExtractor",
        reserialise: bool = True,
        max_html_chars: int = ReferenceExtractor.MAX_HTML_CHARS,
    ) -> None:
        check_choice("extractor.variant", variant, self.VARIANTS)
        self.max_html_chars = max_html_chars
        self.variant = variant
        self.reserialise = reserialise
        self._lib = self._require()

    def _text(self, page: Page) -> str:
        extractor = getattr(self._lib, self.variant)(raise_on_failure=True)
        if not self.reserialise:
            return extractor.get_content(page.html)
        root = page.blocks.root  # the tree the runner parses anyway; only read here
        if root is not None:
            parser = self._lib.parser.BoilerpipeHTMLParser(raise_on_failure=True)
            try:
                parser.start_document()
                replay_tree(parser, root)
                parser.end_document()
                document = parser.to_text_document()
            except Exception:  # noqa: BLE001 - the library's own path decides (its retry, its error)
                pass
            else:
                extractor.filter.process(document)
                return document.content
        html = etree.tostring(root, method="html", encoding="unicode") if root is not None else ""
        return extractor.get_content(html)
