"""goose3: the article body of Goose's extractor."""

from __future__ import annotations

from typing import Any

from boilerbench.datasets.page import Page
from boilerbench.extractors.references.base import ReferenceExtractor

#: Put before the page: goose3's charset is the first ``<meta charset>`` it finds.
UTF8 = '<meta charset="utf-8">'


class Goose(ReferenceExtractor):
    """goose3's ``Goose.extract(raw_html=...)``, its ``cleaned_text`` (the article body; the title
    is not part of it, as trafilatura's text has none). Image fetching stays off (the library's
    default): nothing is downloaded.

    Departure: the text is handed over behind a UTF-8 declaration (:data:`UTF8`). goose3 encodes
    the text it is given to the first charset the page declares and parses the bytes as that
    charset, falling back to UTF-8 bytes when a character does not fit: a page that declares
    ISO-8859-1 and holds a curly quote came out as mojibake across the page (text not on the
    page), and one that declares a charset Python does not know (``bogus-8``) was a LookupError.
    The page is already decoded (the loaders' encoding rules), so the declared charset has no work
    left to do; the first declaration is the one goose3 reads."""

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
        return self._goose.extract(raw_html=UTF8 + page.html).cleaned_text
