"""The page type every loader yields and every extractor reads."""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import cached_property

import numpy as np

from boilerbench.cache import cached_array, code_version
from boilerbench.datasets.align import align_labels
from boilerbench.datasets.blocks import Blocks, segment
from boilerbench.language import page_language
from boilerbench.tokenizer import tokenizer_for


@dataclass(frozen=True)
class Snippets:
    """Short texts a correct extraction must contain (``with_``) and boilerplate it must not
    contain (``without``): WCXB's ``with`` / ``without`` lists, trafilatura's evaluation format."""

    with_: tuple[str, ...] = ()
    without: tuple[str, ...] = ()


@dataclass(eq=False)
class Page:
    """One web page with its reference main content.

    ``html`` is decoded text; ``gold_text`` the cleaned reference text without markup
    (CleanEval's ``<p>/<h>/<l>`` markers live in ``meta["gold_markup"]``; a dataset's language
    hint, an ISO 639 code, in ``meta["language"]``). ``blocks`` and ``gold_labels`` are computed
    on first use and kept until :meth:`release`.

    ``source`` names the dataset the page comes from (a mixture of datasets keeps it per page);
    ``page_type`` is the dataset's page type where it has one (WCXB: article, forum, ...);
    ``snippets`` the dataset's must / must-not contain checks where it has them.
    ``load_error`` is set instead of raising when one page of a dataset cannot be read (a
    missing gold file, a corrupt archive): the runner records it as that page's error and
    scores nothing for it, and training skips the page.
    """

    id: str
    html: str
    gold_text: str
    url: str | None = None
    meta: dict = field(default_factory=dict)
    source: str = ""
    page_type: str | None = None
    snippets: Snippets | None = None
    load_error: str = ""

    @cached_property
    def tokenizer(self) -> str:
        """The page's metric tokenizer (:mod:`boilerbench.tokenizer`): the dataset's language
        hint, else detected from the gold text's script. The blocks, the aligner and every metric
        of this page use it."""
        return tokenizer_for(self.meta.get("language"), self.gold_text)

    @cached_property
    def language(self) -> str:
        """The page's language for reporting (ISO 639-1, "" when unknown): the dataset's label,
        else identified from the gold text, else from the page's visible text
        (:func:`boilerbench.language.page_language`). Extractors never read it: at extraction
        time a page's language is identified from its HTML alone."""
        return page_language(self)

    @cached_property
    def blocks(self) -> Blocks:
        """The canonical segmentation (parsed once, shared by the runner and the extractor)."""
        return segment(self.html, language=self.tokenizer)

    @cached_property
    def gold_labels(self) -> np.ndarray:
        """Gold content labels over :attr:`blocks`, from aligning ``gold_text`` (disk-cached)."""
        return cached_array(
            "gold_labels",
            code_version(__name__),
            (self.html, self.gold_text),
            lambda: align_labels(self.blocks, self.gold_text),
        )

    def release(self) -> None:
        """Drop the parsed tree and derived artefacts to free memory."""
        self.__dict__.pop("blocks", None)
        self.__dict__.pop("gold_labels", None)
