"""newspaper4k: the article text of newspaper's parser."""

from __future__ import annotations

import warnings

from boilerbench.datasets.page import Page
from boilerbench.extractors.references.base import ReferenceExtractor

#: newspaper needs a URL; pages without one get this placeholder (never fetched).
PLACEHOLDER_URL = "http://localhost/page.html"


class Newspaper(ReferenceExtractor):
    """newspaper4k's ``Article.download(input_html=...)`` then ``parse()``, its ``text`` (the title
    is not part of it). Image fetching is off, so nothing is downloaded."""

    MODULE = "newspaper"
    LOGGER = "newspaper"
    DISTRIBUTION = "newspaper4k"

    def __init__(self, max_html_chars: int = ReferenceExtractor.MAX_HTML_CHARS) -> None:
        self.max_html_chars = max_html_chars
        with warnings.catch_warnings():  # "nltk is not installed": only its NLP features need it
            warnings.simplefilter("ignore", UserWarning)
            self._lib = self._require()

    def _text(self, page: Page) -> str:
        config = self._lib.Config()
        config.fetch_images = False
        article = self._lib.Article(page.url or PLACEHOLDER_URL, config=config)
        article.download(input_html=page.html)
        article.parse()
        return article.text
