"""The member extractors of an ensemble or a stack: given instantiated (the config lists them as
nested ``_target_`` configs, which Hydra instantiates recursively), used only through their
outputs aligned onto the page's blocks, cached per page on disk.

A member's vote on a page is the block labels it gives, or, for a text-only member, the labels
the project's aligner (:func:`boilerbench.datasets.align.align_labels`) derives from its text,
as the runner scores it, except that the alignment's memory is bounded
(:data:`VOTE_ALIGNMENT_CELLS`: a text-dense page of a megabyte took 1.6 GB to align a member's
text, where the whole extraction otherwise stays under 600 MB). Votes are cached with
:mod:`boilerbench.cache`, keyed by the page's HTML, the member's name and description (its class
and hyperparameters), the code version of the member's module and of this one (the aligner and
the segmentation included), and the installed version of the distributions its output depends on (a reference's library:
its ``distributions`` tag); so training, hyperparameter searches and evaluation run each
reference once per page. A member that fails on a page casts no vote there (labels -1, not
cached): the ensemble goes on with the others.

Members must learn nothing (heuristics and references): a learned member would vote on its own
training pages when the stack is fitted, so its votes would look better there than on new pages.
"""

from __future__ import annotations

import json
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

import numpy as np

from boilerbench.cache import cached_array, code_version, content_key
from boilerbench.datasets.align import align_labels
from boilerbench.datasets.page import Page
from boilerbench.errors import ConfigError
from boilerbench.extractors.base import BaseExtractor, tags
from boilerbench.extractors.sharing import sharing

#: The most bits a vote's alignment takes (about 250 MB): above, the token streams are split at
#: anchors (:func:`boilerbench.lcs.lcs_alignment`'s ``split_above``). Every vote on the datasets'
#: pages but a text-dense page's of a megabyte or more is aligned as the metrics align.
VOTE_ALIGNMENT_CELLS = 2_000_000_000
#: The label a member gets on blocks of a page it failed on.
FAILED = -1
#: How members are given since they are nested configs (the message for the older form, names).
MEMBERS_FORM = (
    "extractor.members takes the member extractors (name: nested extractor config), not names: select them "
    "on the command line with extractor/members=[trafilatura,resiliparse] (or in Python, members={'trafilatura': "
    "make_extractor('trafilatura')})"
)


@dataclass(eq=False)
class Member:
    """One member: its name, description (class and hyperparameters), extractor and cache version."""

    name: str
    config: dict
    extractor: BaseExtractor
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
        extraction = self.extractor.extract(page)
        if extraction.labels is not None and len(extraction.labels) == len(page.blocks):
            return np.asarray(extraction.labels, dtype=np.int8)
        return align_labels(page.blocks, extraction.text, split_above=VOTE_ALIGNMENT_CELLS)


def member_version(extractor: BaseExtractor) -> str:
    """The cache version of a member's votes: its module's code, this module's (aligner and
    segmentation included), and the installed versions of the distributions it depends on."""
    version = code_version(type(extractor).__module__, *tags(extractor).distributions)
    return content_key(version, code_version(__name__))[:16]


def describe(extractor: BaseExtractor) -> dict:
    """The member's class and saved hyperparameters (what keys its cached votes besides its name)."""
    cls = type(extractor)
    return {"_target_": f"{cls.__module__}.{cls.__qualname__}", **extractor.saved_params()}


def check_members(members: object) -> Mapping[str, BaseExtractor]:
    """``members``, after checking that it maps names to at least one extractor that learns nothing
    (ConfigError otherwise)."""
    if not members:
        raise ConfigError("an ensemble needs at least one member: select them with extractor/members=[...]")
    if not isinstance(members, Mapping) or any(isinstance(m, str) for m in members.values()):
        raise ConfigError(MEMBERS_FORM)
    for name, extractor in members.items():
        if not isinstance(extractor, BaseExtractor):
            raise ConfigError(f"member {name!r} is {extractor!r}, not an extractor; {MEMBERS_FORM}")
        if tags(extractor).learns:
            raise ConfigError(
                f"member {name!r} is a learned extractor; members must be heuristics or references "
                "(a learned member would vote on its own training pages)"
            )
    return members


def build_members(members: Mapping[str, BaseExtractor]) -> list[Member]:
    """The :class:`Member` of each extractor of ``members`` (checked: :func:`check_members`)."""
    check_members(members)
    return [Member(str(n), {"name": str(n), **describe(e)}, e, member_version(e)) for n, e in members.items()]


class WithMembers:
    """Members shared by the ensembles and the stack: ``members`` maps names to extractors, wrapped
    as :class:`Member` on first use (never in ``__init__``); ``uses_votes`` false means none is used."""

    members: Mapping[str, BaseExtractor] | None
    uses_votes: bool = True

    def built_members(self) -> list[Member]:
        """The members, wrapped once (again when ``members`` is replaced: ``set_params``)."""
        built = self.__dict__.get("_built")
        if built is None or built[0] is not self.members:
            built = (self.members, build_members(self.members or {}) if self.uses_votes else [])
            self.__dict__["_built"] = built
        return built[1]

    def member_distributions(self) -> tuple[str, ...]:
        """The distributions the members' votes depend on (their libraries), when votes are used."""
        if not self.uses_votes:
            return ()
        return tuple(dict.fromkeys(d for e in (self.members or {}).values() for d in tags(e).distributions))

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
