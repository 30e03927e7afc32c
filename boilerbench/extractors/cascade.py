"""A page-level cascade of two extractors (issue 37): a fast one extracts every page, and the pages
it is least sure of for their cost go to an accurate one, whose extraction replaces the fast one's.

The fast stage must say how unsure it is of a page: ``info["doubt"]`` of its extraction (the
stack's :func:`~boilerbench.extractors.stack.model.page_doubt`, the share of the page's words it
would label wrongly if its probabilities were right). A page's score is that doubt over its size in
characters to the power ``size_power``: the accurate stage's time grows with the page, so for the
same time a budget buys more of the gain that small doubtful pages offer than of big ones' (a
power of 0 routes by the doubt alone). A page goes on when its score is above ``threshold_``,
learnt in ``fit`` as the score above which ``share`` of the validation pages lie (as given: a page
that a balanced training mixture repeats counts each time): the share is the cost budget, the
threshold what makes new pages spend it. Pages the fast stage finds harder than the validation pages go on more often.

With ``send_none_sure`` a page also goes on, whatever its score, when the fast stage is sure of
none of its blocks (``info["sure_share"]`` 0: no word in a block of p >= 0.5, reported by a
:class:`RoutingStack`): its extraction is then what a decoding picks below that, and a low doubt
there says that the page looks like boilerplate throughout, not that the extraction is right
(Scrapinghub's page with the largest gain is such a page, well below the threshold). The
threshold is learnt without the rule, which sends the few such pages on top of the share.
``studies/cascade.py`` measured the share and the power on the training mixture's validation pages,
against a learned router and the perfect one's bound, at equal shares and at equal time.

Both stages are fitted on the same pages. The accurate stage reads the page as the fast one left
it: its blocks are segmented once (a :class:`~boilerbench.datasets.page.Page` keeps them), so a
page sent on pays the accurate stage's members, features and trees, not a second parse.
"""

from __future__ import annotations

import json
import os
from collections.abc import Sequence
from contextvars import ContextVar
from dataclasses import replace
from pathlib import Path

import numpy as np

from boilerbench.atomic import atomic_write_text
from boilerbench.cache import code_version, content_key
from boilerbench.datasets.page import Page
from boilerbench.errors import ConfigError
from boilerbench.extractors.base import (
    BaseExtractor,
    Extraction,
    Tags,
    dependency_versions,
    feature_names,
    members,
    require_fitted,
    tags,
)
from boilerbench.extractors.members import Member
from boilerbench.extractors.sharing import sharing
from boilerbench.extractors.stack.model import Stack

#: The two stages, in the order they run.
STAGES = ("fast", "accurate")
STATE_FILE = "cascade.json"


def share_threshold(scores: np.ndarray, share: float) -> float:
    """The score above which ``share`` of ``scores`` lie (pages strictly above it are sent on):
    above the largest for a share of 0, below the smallest for 1. Ties at the threshold stay."""
    ranked = np.sort(np.asarray(scores, dtype=np.float64))[::-1]
    count = round(share * len(ranked))
    if count >= len(ranked):
        return -1.0
    return float(ranked[count])


def routing_score(doubt: float, html_chars: int, size_power: float) -> float:
    """A page's claim on the accurate stage: the fast stage's ``doubt`` over the page's size in
    characters (at least 1) to the power ``size_power``."""
    return doubt / max(html_chars, 1) ** size_power


def sure_share(p: np.ndarray, words: np.ndarray) -> float:
    """The share of the page's words in blocks of probability at least 0.5 (0 for a page without
    words): 0 on a page whose extraction is only what a decoding picks below that (the
    expected-F1 set), where a low doubt means that the page is surely boilerplate throughout, not
    that its extraction is right."""
    total = float(words.sum())
    return float(words @ (p >= 0.5)) / total if total > 0 else 0.0


#: The probabilities and word counts a :class:`RoutingStack` decoded last, in this context (each
#: thread its own).
_DECODED: ContextVar[tuple[np.ndarray, np.ndarray] | None] = ContextVar("decoded", default=None)


class RoutingStack(Stack):
    """The stack as a cascade's fast stage: its extraction also reports ``sure_share``
    (:func:`sure_share` of the probabilities it decoded), which ``send_none_sure`` routes by.
    The probabilities are read where :meth:`Stack.extract` hands them to :meth:`decode`, once a
    page, so that the stack's own extraction and the stored runs of it stay as they are."""

    def decode(self, p: np.ndarray, words: np.ndarray, decoding: str | None = None) -> np.ndarray:
        _DECODED.set((p, words))
        return super().decode(p, words, decoding)

    def extract(self, page: Page) -> Extraction:
        token = _DECODED.set(None)
        try:
            extraction = super().extract(page)
            decoded = _DECODED.get()
        finally:
            _DECODED.reset(token)
        if decoded is None:
            raise RuntimeError("Stack.extract decoded no probabilities: RoutingStack must catch them elsewhere")
        extraction.info["sure_share"] = sure_share(decoded[0], np.asarray(decoded[1], dtype=np.float64))
        return extraction


class Cascade(BaseExtractor):
    """``fast`` on every page; ``accurate`` on those whose doubt for their size is above the
    threshold that sends ``share`` of the validation pages on."""

    def __init__(
        self,
        fast: BaseExtractor | None = None,
        accurate: BaseExtractor | None = None,
        share: float = 0.25,
        size_power: float = 0.5,
        send_none_sure: bool = False,
    ) -> None:
        if fast is None or accurate is None:
            raise ConfigError("a cascade needs both stages: extractor.fast and extractor.accurate (extractor configs)")
        if not 0.0 <= share <= 1.0:
            raise ConfigError(f"extractor.share={share} must be between 0 and 1")
        if not size_power >= 0.0:
            raise ConfigError(f"extractor.size_power={size_power} must be 0 or more")
        self.fast = fast
        self.accurate = accurate
        self.share = share
        self.size_power = size_power
        self.send_none_sure = send_none_sure

    def _stages(self) -> tuple[BaseExtractor, BaseExtractor]:
        return self.fast, self.accurate

    def _named(self) -> list[tuple[str, BaseExtractor]]:
        return list(zip(STAGES, self._stages(), strict=True))

    def __boilerbench_tags__(self) -> Tags:
        stages = [tags(s) for s in self._stages()]
        limits = [t.max_html_chars for t in stages if t.max_html_chars is not None]
        return replace(
            super().__boilerbench_tags__(),
            learns=True,
            persistent=all(t.persistent for t in stages),
            loads_pickle=any(t.loads_pickle for t in stages),
            has_members=True,
            has_feature_names=all(t.has_feature_names for t in stages),
            distributions=tuple(dict.fromkeys(d for t in stages for d in t.distributions)),
            max_html_chars=min(limits) if limits else None,
        )

    def saved_params(self) -> dict:
        """Each stage's saved hyperparameters, the share and the size power (``send_none_sure``
        is applied to each page and changes no fitted state; off by default, so that a cascade
        saved before it existed routes as it did)."""
        return {
            "fast": self.fast.saved_params(),
            "accurate": self.accurate.saved_params(),
            "share": self.share,
            "size_power": self.size_power,
        }

    def built_members(self) -> list[Member]:
        """Both stages' members, once each by name (a member both stages read is one member)."""
        return list({m.name: m for s in self._stages() for m in members(s)}.values())

    def dependency_versions(self) -> list[str]:
        """The code version of each stage's module, with what its output depends on (its members):
        a fitted cascade is stale when either stage changes."""
        return [content_key(code_version(type(s).__module__), *dependency_versions(s))[:16] for s in self._stages()]

    def feature_names(self) -> list[str]:
        """Each stage's feature names, prefixed with the stage."""
        return [f"{name}.{n}" for name, s in self._named() for n in feature_names(s) or ()]

    def fit(self, train: Sequence[Page], validation: Sequence[Page] | None = None) -> Cascade:
        for stage in self._stages():
            stage.fit(train, validation)
        pages = list(validation) if validation else list(train)
        self.threshold_ = share_threshold(np.array([self._score(self.fast.extract(p), p) for p in pages]), self.share)
        return self

    @staticmethod
    def _doubt(extraction: Extraction) -> float:
        doubt = extraction.info.get("doubt")
        if doubt is None:
            raise ConfigError("the cascade's fast stage must report its doubt (info['doubt']): use a stack")
        return float(doubt)

    def _score(self, extraction: Extraction, page: Page) -> float:
        return routing_score(self._doubt(extraction), len(page.html), self.size_power)

    def _sends_on(self, extraction: Extraction, page: Page) -> bool:
        """Whether the page goes to the accurate stage: its score above the threshold, or, with
        ``send_none_sure``, no block the fast stage is sure of."""
        if self.send_none_sure:
            sure = extraction.info.get("sure_share")
            if sure is None:
                raise ConfigError(
                    "the cascade's fast stage must report info['sure_share'] with extractor.send_none_sure=true: "
                    "use a RoutingStack (boilerbench.extractors.cascade.RoutingStack)"
                )
            if float(sure) <= 0.0:
                return True
        return self._score(extraction, page) > self.threshold_

    def extract(self, page: Page) -> Extraction:
        """The fast stage's extraction, or the accurate one's where the fast one doubts the page
        enough for its size (or, with ``send_none_sure``, is sure of none of its blocks). Both
        stages run inside one :func:`sharing` scope: the accurate stage reuses the fast one's
        votes of the members they have in common and its block features.
        ``info``: the extraction's own, each stage's ms summed where both ran, ``doubt`` (the fast
        stage's) and ``cascade_stage``."""
        require_fitted(self, "threshold_")
        with sharing(page):
            first = self.fast.extract(page)
            if not self._sends_on(first, page):
                first.info["cascade_stage"] = "fast"
                return first
            second = self.accurate.extract(page)
        times = {k: v + second.info.get(k, 0.0) for k, v in first.info.items() if k.endswith("_ms")}
        second.info.update(times, doubt=first.info["doubt"], cascade_stage="accurate")
        return second

    def run_info(self) -> dict:
        require_fitted(self, "threshold_")
        return {"routing_threshold": self.threshold_, **{name: s.run_info() for name, s in self._named()}}

    def save(self, directory: str | os.PathLike[str]) -> None:
        require_fitted(self, "threshold_")
        directory = Path(directory)
        for name, stage in self._named():
            (directory / name).mkdir(parents=True, exist_ok=True)
            stage.save(directory / name)  # type: ignore[attr-defined]
        atomic_write_text(
            directory / STATE_FILE, json.dumps({"params": self.saved_params(), "threshold": self.threshold_})
        )

    def load(self, directory: str | os.PathLike[str]) -> Cascade:
        directory = Path(directory)
        state = json.loads((directory / STATE_FILE).read_text(encoding="utf-8"))
        self.check_saved_params(state["params"], directory)
        for name, stage in self._named():
            stage.load(directory / name)  # type: ignore[attr-defined]
        self.threshold_ = float(state["threshold"])
        return self
