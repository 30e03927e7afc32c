"""goose3: the article body of Goose's extractor."""

from __future__ import annotations

from typing import Any

from boilerbench.datasets.page import Page
from boilerbench.extractors.references.base import ReferenceExtractor


class Goose(ReferenceExtractor):
    """goose3's ``Goose.extract(raw_html=...)``, its ``cleaned_text`` (the article body; the title
    is not part of it, as trafilatura's text has none). Image fetching stays off (the library's
    default): nothing is downloaded."""

    MODULE = "goose3"
    LOGGER = "goose3"
    DISTRIBUTION = "goose3"

    def __init__(self, max_html_chars: int = ReferenceExtractor.MAX_HTML_CHARS) -> None:
        self.max_html_chars = max_html_chars
        self._lib = self._require()
        self._goose: Any = None

    def _text(self, page: Page) -> str:
        if self._goose is None:  # one instance per extractor, made on first use
            config = self._lib.Configuration()
            config.enable_image_fetching = False
            self._goose = self._lib.Goose(config)
        return self._goose.extract(raw_html=page.html).cleaned_text
