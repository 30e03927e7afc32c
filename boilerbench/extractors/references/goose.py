"""goose3: the article body of Goose's extractor."""

from __future__ import annotations

import codecs
import re
from typing import Any

from boilerbench.datasets.page import Page
from boilerbench.extractors.references.base import ReferenceExtractor

#: The declarations goose3 reads its charset from (``goose3.text.get_encodings_from_content``: the
#: first ``<meta ... charset=>``, else the XML declaration); group 1 is the charset's name.
DECLARATIONS = (
    re.compile(r'<meta.*?charset=["\']*[^a-zA-z0-9]*([a-zA-Z0-9\-_]+?)[^a-zA-z0-9]* *?["\'>]', flags=re.I),
    re.compile(r'^<\?xml.*?encoding=["\']*([a-zA-Z0-9\-_]+?) *?["\'>]'),
)


def declared_as_utf8(html: str) -> str:
    """``html`` with the charset goose3 would read rewritten to ``utf-8`` where it names another
    (or none Python knows); a page that declares UTF-8 or nothing is returned as it is."""
    for pattern in DECLARATIONS:
        found = pattern.search(html)
        if found is None:
            continue
        try:
            if codecs.lookup(found.group(1)).name == "utf-8":
                return html
        except LookupError:
            pass
        return html[: found.start(1)] + "utf-8" + html[found.end(1) :]
    return html


class Goose(ReferenceExtractor):
    """goose3's ``Goose.extract(raw_html=...)``, its ``cleaned_text`` (the article body; the title
    is not part of it, as trafilatura's text has none). Image fetching stays off (the library's
    default): nothing is downloaded.

    Departure: the charset the page declares is rewritten to UTF-8 before goose3 reads it
    (:func:`declared_as_utf8`). goose3 encodes the text it is given to that charset and parses
    the bytes as that charset, falling back to UTF-8 bytes when a character does not fit: a page
    that declares ISO-8859-1 and holds a curly quote came out as mojibake across the page (text
    not on the page), and one that declares a charset Python does not know (``bogus-8``) was a
    LookupError. The page is already decoded (the loaders' encoding rules), so the declaration has
    no work left to do. Only its value changes: a declaration added before the page would move
    where libxml2 puts the document's head, and with it what goose3 picks (measured on Dragnet)."""

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
        return self._goose.extract(raw_html=declared_as_utf8(page.html)).cleaned_text
