"""Third-party extractors as comparison rows: thin adapters that return text only.

Each is scored at block level by aligning its text to the page's blocks, like any text-only
method. The packages are in the ``refs`` extra (``pip install -e ".[refs]"``) and imported
when the extractor is instantiated, so selecting one without the extra fails at once with the
install command. Settings are the libraries' defaults except where noted; Bevendorff et al.
(SIGIR 2023) also ran them with defaults.
"""

from __future__ import annotations

import logging
from types import ModuleType

from lxml import etree

from boilerbench.datasets.blocks import segment
from boilerbench.datasets.page import Page
from boilerbench.errors import check_choice, import_optional
from boilerbench.extractors.base import Extraction, HeuristicExtractor

#: Distribution names whose versions every run records (those installed).
REFERENCE_PACKAGES = ("trafilatura", "readability-lxml", "jusText", "boilerpy3", "inscriptis")

INSTALL_HINT = 'pip install -e ".[refs]"  (or: make install)'


def require(module: str, distribution: str) -> ModuleType:
    """Import a reference library or raise one clear message naming it and the install command."""
    return import_optional(module, distribution, f"install the reference extractors with: {INSTALL_HINT}")


class PageTooLargeError(ValueError):
    """A page over an adapter's size limit (the libraries are not built for them)."""


class ReferenceExtractor(HeuristicExtractor):
    """Base of the adapters: an all-whitespace page gives an empty extraction without calling
    the library (several raise on empty documents); anything else the library raises is a
    per-page error, recorded by the runner.

    Pages over ``max_html_chars`` (default 2 million, five times the largest page of CleanEval
    and L3S-GN1) are refused with a per-page error: boilerpy3 takes over four minutes on a
    20 MB page, and the others are not built for such input either.
    """

    #: Default of every adapter's ``max_html_chars``.
    MAX_HTML_CHARS = 2_000_000
    max_html_chars: int

    def extract(self, page: Page) -> Extraction:
        if not page.html.strip():
            return Extraction("")
        if len(page.html) > self.max_html_chars:
            raise PageTooLargeError(f"{len(page.html):,} characters > this extractor's limit {self.max_html_chars:,}")
        return Extraction(self._text(page) or "")

    def _text(self, page: Page) -> str | None:
        raise NotImplementedError


class Trafilatura(ReferenceExtractor):
    """trafilatura's ``extract`` (Barbaresi 2021). Comments are excluded by default (they are
    not main content in CleanEval or L3S-GN1; the library includes them unless told not to)."""

    def __init__(
        self,
        include_comments: bool = False,
        include_tables: bool = True,
        favor: str = "balanced",
        max_html_chars: int = ReferenceExtractor.MAX_HTML_CHARS,
    ) -> None:
        check_choice("extractor.favor", favor, ("balanced", "precision", "recall"))
        self.max_html_chars = max_html_chars
        self.include_comments = include_comments
        self.include_tables = include_tables
        self.favor = favor
        self._lib = require("trafilatura", "trafilatura")

    def _text(self, page: Page) -> str | None:
        return self._lib.extract(
            page.html,
            url=page.url,
            include_comments=self.include_comments,
            include_tables=self.include_tables,
            favor_precision=self.favor == "precision",
            favor_recall=self.favor == "recall",
        )


class Readability(ReferenceExtractor):
    """readability-lxml (the port of Arc90's Readability): ``Document.summary`` as HTML, shown as
    text with the project's block rules (one line per block-level element)."""

    def __init__(self, max_html_chars: int = ReferenceExtractor.MAX_HTML_CHARS) -> None:
        self.max_html_chars = max_html_chars
        self._lib = require("readability", "readability-lxml")

    def _text(self, page: Page) -> str:
        summary = self._lib.Document(page.html, url=page.url).summary(html_partial=True)
        return segment(summary).join()


class JusText(ReferenceExtractor):
    """jusText (Pomikálek 2011): the paragraphs it does not classify as boilerplate."""

    def __init__(self, stoplist: str = "English", max_html_chars: int = ReferenceExtractor.MAX_HTML_CHARS) -> None:
        self.max_html_chars = max_html_chars
        self._lib = require("justext", "jusText")
        check_choice("extractor.stoplist", stoplist, sorted(self._lib.get_stoplists()))
        self.stoplist = stoplist

    def _text(self, page: Page) -> str:
        paragraphs = self._lib.justext(page.html, self._lib.get_stoplist(self.stoplist))
        return "\n".join(p.text for p in paragraphs if not p.is_boilerplate)


class Boilerpipe(ReferenceExtractor):
    """boilerpy3, the Python port of boilerpipe (Kohlschütter et al. 2010); ``ArticleExtractor``
    by default, the variant benchmarks use for news-like pages.

    boilerpy3's parser (the standard library's ``HTMLParser``) fails on 13 of the 676 CleanEval
    test pages (unbalanced end tags); with ``reserialise`` (default) it is given the page as lxml
    re-serialises it, which fails on none and costs about 1.6 ms per page. Its own error log is
    silenced: failures are raised and recorded per page by the runner.
    """

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
        self._lib = require("boilerpy3.extractors", "boilerpy3")
        logging.getLogger("boilerpy3").setLevel(logging.CRITICAL)

    def _text(self, page: Page) -> str:
        html = page.html
        if self.reserialise:
            root = page.blocks.root  # the tree the runner parses anyway; only read here
            html = etree.tostring(root, method="html", encoding="unicode") if root is not None else ""
        return getattr(self._lib, self.variant)(raise_on_failure=True).get_content(html)


class HtmlToText(ReferenceExtractor):
    """A plain HTML-to-text baseline: inscriptis renders the whole page as text (layout-aware,
    no content selection), the upper bound on recall of any text-only method. It is given the
    tree our parser builds (the page's, shared with scoring, so the page is parsed once): its own
    entry point hands the string to lxml, which refuses strings with an ``<?xml encoding?>``
    declaration (one L3S-GN1 page)."""

    def __init__(self, max_html_chars: int = ReferenceExtractor.MAX_HTML_CHARS) -> None:
        self.max_html_chars = max_html_chars
        self._lib = require("inscriptis", "inscriptis")

    def _text(self, page: Page) -> str:
        root = page.blocks.root  # the tree the runner parses anyway; inscriptis only reads it
        return self._lib.Inscriptis(root).get_text() if root is not None else ""
