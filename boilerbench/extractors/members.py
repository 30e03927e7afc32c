"""The member extractors of an ensemble or a stack: built from their config names, used only
through their outputs aligned onto the page's blocks, cached per page on disk.

A member's vote on a page is the block labels it gives, or, for a text-only member, the labels
the project's aligner (:func:`boilerbench.datasets.align.align_labels`) derives from its text,
exactly as the runner scores it. Votes are cached with :mod:`boilerbench.cache`, keyed by the
page's HTML, the member's resolved config, the code version of the member's module and of this
one (the aligner and the segmentation included), and the installed version of a reference
member's library; so training, hyperparameter searches and evaluation run each reference once
per page. A member that fails on a page casts no vote there (labels -1, not cached): the
ensemble goes on with the others.

Members must learn nothing (heuristics and references): a learned member would vote on its own
training pages when the stack is fitted, so its votes would look better there than on new pages.
"""

from __future__ import annotations

import json
import time
from collections.abc import Sequence
from dataclasses import dataclass, field

import numpy as np

from boilerbench.cache import cached_array, code_version, content_key
from boilerbench.datasets.align import align_labels
from boilerbench.datasets.page import Page
from boilerbench.errors import ConfigError
from boilerbench.extractors.compose import build, extractor_config
from boilerbench.extractors.sharing import sharing

#: The label a member gets on blocks of a page it failed on.
FAILED = -1


@dataclass(eq=False)
class Member:
    """One member: its config name, resolved config, extractor and cache version."""

    name: str
    config: dict
    extractor: object
    version: str
    seconds: float = field(default=0.0)

    def labels(self, page: Page) -> np.ndarray:
        """The member's vote on every block of ``page`` (int8: 1 keep, 0 drop, -1 the member failed)."""
        start = time.perf_counter()
        try:
            return cached_array(
                "member_labels",
                self.version,
                (page.html, json.dumps(self.config, sort_keys=True, default=str)),
                lambda: self._compute(page),
            )
        except Exception:  # one member failing on a page never stops the ensemble
            return np.full(len(page.blocks), FAILED, dtype=np.int8)
        finally:
            self.seconds += time.perf_counter() - start

    def _compute(self, page: Page) -> np.ndarray:
        extraction = self.extractor.extract(page)  # type: ignore[attr-defined]
        if extraction.labels is not None and len(extraction.labels) == len(page.blocks):
            return np.asarray(extraction.labels, dtype=np.int8)
        return align_labels(page.blocks, extraction.text)


def member_version(extractor: object) -> str:
    """The cache version of a member's votes: its module's code, this module's (aligner and
    segmentation included), and its library's installed version when it is a reference."""
    distributions = (extractor.DISTRIBUTION,) if hasattr(extractor, "DISTRIBUTION") else ()
    return content_key(code_version(type(extractor).__module__, *distributions), code_version(__name__))[:16]


def build_members(names: Sequence[str]) -> list[Member]:
    """The members named ``names`` (config names of ``conf/extractor``), instantiated."""
    if not names:
        raise ConfigError("an ensemble needs at least one member")
    if len(set(names)) != len(names):
        raise ConfigError(f"members are listed twice: {list(names)}")
    members = []
    for name in names:
        config = extractor_config(name)
        extractor = build(config)
        if getattr(extractor, "learns", True):
            raise ConfigError(
                f"member {name!r} is a learned extractor; members must be heuristics or references "
                "(a learned member would vote on its own training pages)"
            )
        members.append(Member(name, config, extractor, member_version(extractor)))
    return members


class WithMembers:
    """Lazy member building shared by the ensembles and the stack (built on first use, never in
    ``__init__``); ``uses_votes`` false means no member is built."""

    members: tuple[str, ...]
    uses_votes: bool = True
    _built: list[Member] | None = None

    def built_members(self) -> list[Member]:
        """The member extractors, built once."""
        if self._built is None:
            self._built = build_members(self.members) if self.uses_votes else []
        return self._built

    def dependency_versions(self) -> list[str]:
        """The members' vote versions (their code and libraries): a model fitted on their votes is
        stale when one changes, so the model cache keys it by them
        (:func:`boilerbench.experiments.model_cache.extractor_version`)."""
        return [m.version for m in self.built_members()]


def vote_matrix(members: Sequence[Member], page: Page) -> np.ndarray:
    """The members' votes on ``page``: int8 (n_blocks, n_members), -1 where a member failed.
    The members share what :mod:`boilerbench.extractors.sharing` shares of the page while they
    vote (one lxml.html parse for the references that take a tree), and nothing after."""
    n = len(page.blocks)
    if not members:
        return np.zeros((n, 0), dtype=np.int8)
    with sharing(page):
        votes = [m.labels(page) for m in members]
    return np.column_stack(votes).astype(np.int8).reshape(n, len(members))
