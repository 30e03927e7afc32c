"""Voting ensembles of extractors (Bevendorff et al., SIGIR 2023, sec. 4: majority and weighted votes).

Each member's output is turned into labels over the page's canonical blocks (its own labels, or
its text aligned onto the blocks: :mod:`boilerbench.extractors.members`), and the ensemble keeps
the blocks that enough members keep:

- ``majority_vote``: a block is content when at least ``k`` members keep it (``k`` defaults to a
  strict majority of the members);
- ``weighted_vote``: a block is content when the members that keep it hold at least
  ``threshold`` of the total weight; each member's weight is its block F1 on the validation
  pages (the training pages when there are none), learned in ``fit``.

A member that fails on a page counts as dropping every block of it.
"""

from __future__ import annotations

import json
import os
from collections.abc import Mapping, Sequence
from dataclasses import replace
from pathlib import Path

import numpy as np

from boilerbench.atomic import atomic_write_text
from boilerbench.datasets.page import Page
from boilerbench.errors import ConfigError
from boilerbench.extractors.base import BaseExtractor, Extraction, Tags, require_fitted
from boilerbench.extractors.members import WithMembers, check_members, vote_matrix


class _Votes(WithMembers, BaseExtractor):
    """The ensembles' view of the members' votes."""

    #: At least one, checked by the constructor.
    members: Mapping[str, BaseExtractor]

    def __boilerbench_tags__(self) -> Tags:
        tags = super().__boilerbench_tags__()
        return replace(tags, has_members=True, distributions=tags.distributions + self.member_distributions())

    def votes(self, page: Page) -> np.ndarray:
        """Member votes on ``page`` as 0/1 (a failed member's -1 counts as 0)."""
        return (vote_matrix(self.built_members(), page) == 1).astype(np.int8)


class MajorityVote(_Votes):
    """Keep a block when at least ``k`` members keep it (``k=None``: more than half of them)."""

    def __init__(self, members: Mapping[str, BaseExtractor] | None = None, k: int | None = None) -> None:
        self.members = check_members(members)  # the same mapping, checked
        if k is not None and not 1 <= k <= len(self.members):
            raise ConfigError(f"extractor.k={k} must be between 1 and the number of members ({len(self.members)})")
        self.k = k

    def extract(self, page: Page) -> Extraction:
        k = self.k if self.k is not None else len(self.members) // 2 + 1
        kept = self.votes(page).sum(axis=1) >= k
        return Extraction.from_labels(page, kept.astype(np.int8))


class WeightedVote(_Votes):
    """Keep a block when the members keeping it hold at least ``threshold`` of the weight; weights
    are each member's block F1 on the validation pages, learned in ``fit``."""

    WEIGHTS_FILE = "weighted_vote.json"

    def __init__(self, members: Mapping[str, BaseExtractor] | None = None, threshold: float = 0.5) -> None:
        if not 0.0 < threshold <= 1.0:
            raise ConfigError(f"extractor.threshold={threshold} must be in (0, 1]")
        self.members = check_members(members)  # the same mapping, checked
        self.threshold = threshold

    def __boilerbench_tags__(self) -> Tags:
        return replace(super().__boilerbench_tags__(), learns=True, persistent=True)

    def fit(self, train: Sequence[Page], validation: Sequence[Page] | None = None) -> WeightedVote:
        pages = list(validation) if validation else list(train)
        if not pages:
            raise ConfigError("weighted_vote needs validation (or training) pages to weigh its members")
        tp = np.zeros(len(self.members))
        predicted = np.zeros(len(self.members))
        gold = 0
        for page in pages:
            votes = self.votes(page)
            labels = page.gold_labels.astype(bool)
            tp += votes[labels].sum(axis=0)
            predicted += votes.sum(axis=0)
            gold += int(labels.sum())
        f1 = np.divide(2 * tp, predicted + gold, out=np.zeros_like(tp), where=(predicted + gold) > 0)
        self.weights_ = f1 if f1.sum() > 0 else np.ones(len(self.members))
        return self

    def extract(self, page: Page) -> Extraction:
        require_fitted(self, "weights_")
        share = self.votes(page) @ self.weights_ / self.weights_.sum()
        return Extraction.from_labels(page, (share >= self.threshold - 1e-12).astype(np.int8))

    def save(self, directory: str | os.PathLike[str]) -> None:
        state = {"params": self.saved_params(), "weights": self.weights_.tolist()}
        atomic_write_text(Path(directory) / self.WEIGHTS_FILE, json.dumps(state, indent=1))

    def load(self, directory: str | os.PathLike[str]) -> WeightedVote:
        state = json.loads((Path(directory) / self.WEIGHTS_FILE).read_text(encoding="utf-8"))
        self.check_saved_params(state["params"], directory)
        self.weights_ = np.asarray(state["weights"], dtype=np.float64)
        return self
