"""trafilatura's ``extract`` (Barbaresi 2021)."""

from __future__ import annotations

from boilerbench.datasets.page import Page
from boilerbench.errors import check_choice
from boilerbench.extractors.references.base import ReferenceExtractor
from boilerbench.extractors.references.lxml_tree import html_tree


class Trafilatura(ReferenceExtractor):
    """trafilatura's ``extract``. Comments are excluded by default (they are not main content in
    CleanEval or L3S-GN1; the library includes them unless told not to). It is given the page's
    shared lxml.html tree (:mod:`.lxml_tree`: its own ``load_html``'s, which it copies before
    cleaning), so that the other members of a stack need not parse the page again."""

    MODULE = DISTRIBUTION = "trafilatura"

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
        self._lib = self._require()

    def _text(self, page: Page) -> str | None:
        tree = html_tree(page)
        return self._lib.extract(
            tree if tree is not None else page.html,
            url=page.url,
            include_comments=self.include_comments,
            include_tables=self.include_tables,
            favor_precision=self.favor == "precision",
            favor_recall=self.favor == "recall",
        )
