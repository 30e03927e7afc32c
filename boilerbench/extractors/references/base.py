"""The shared wrapper of the reference adapters: lazy import, version, size limit, error isolation.

Each adapter names the module it imports (``MODULE``) and the distribution that provides it
(``DISTRIBUTION``, whose installed version :meth:`ReferenceExtractor.version` reports and which
keys cached member outputs). The library is imported when the adapter is instantiated, so
selecting one without the ``refs`` extra fails at once with the install command; anything the
library raises on a page is a per-page error, recorded by the runner (or by ``boilerbench
extract``) while the other pages go on.
"""

from __future__ import annotations

import logging
from dataclasses import replace
from importlib import metadata
from types import ModuleType

from boilerbench.datasets.page import Page
from boilerbench.errors import import_optional
from boilerbench.extractors.base import BaseExtractor, Extraction, Tags

INSTALL_HINT = 'pip install -e ".[refs]"  (or: make install)'


def require(module: str, distribution: str) -> ModuleType:
    """Import a reference library or raise one clear message naming it and the install command."""
    return import_optional(module, distribution, f"install the reference extractors with: {INSTALL_HINT}")


class PageTooLargeError(ValueError):
    """A page over an adapter's size limit (the libraries are not built for them)."""


class ReferenceExtractor(BaseExtractor):
    """Base of the adapters: an all-whitespace page gives an empty extraction without calling
    the library (several raise on empty documents); anything else the library raises is a
    per-page error, recorded by the runner.

    Pages over ``max_html_chars`` (default 2 million, five times the largest page of CleanEval
    and L3S-GN1) are refused with a per-page error: boilerpy3 takes over four minutes on a
    20 MB page, and the others are not built for such input either.
    """

    def __boilerbench_tags__(self) -> Tags:
        return replace(
            super().__boilerbench_tags__(), distributions=(self.DISTRIBUTION,), max_html_chars=self.max_html_chars
        )

    #: Default of every adapter's ``max_html_chars``.
    MAX_HTML_CHARS = 2_000_000
    #: The module imported (the library's entry point) and the distribution that installs it.
    MODULE: str
    DISTRIBUTION: str
    #: The library's logger, silenced: a page it fails on becomes the row's error, and its own
    #: log line (readability-lxml logs a traceback for each) would fill a crawl's standard error.
    LOGGER: str | None = None
    max_html_chars: int

    def _require(self) -> ModuleType:
        """Import the adapter's library (called by each adapter's constructor)."""
        if self.LOGGER:
            logging.getLogger(self.LOGGER).setLevel(logging.CRITICAL)
        return require(self.MODULE, self.DISTRIBUTION)

    @classmethod
    def version(cls) -> str | None:
        """The installed version of the library, or None."""
        try:
            return metadata.version(cls.DISTRIBUTION)
        except metadata.PackageNotFoundError:
            return None

    def extract(self, page: Page) -> Extraction:
        if not page.html.strip():
            return Extraction("")
        if len(page.html) > self.max_html_chars:
            raise PageTooLargeError(f"{len(page.html):,} characters > this extractor's limit {self.max_html_chars:,}")
        return Extraction(self._text(page) or "")

    def _text(self, page: Page) -> str | None:
        raise NotImplementedError
