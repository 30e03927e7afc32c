"""BoilerNet's leaf representation: word counts and ancestor-tag counts over training vocabularies.

BoilerNet's leaves are the page's text nodes outside ``head``, ``script``, ``style``,
``iframe``, ``meta``, ``link``, ``input``, ``button`` and ``noscript`` subtrees: the canonical
blocks (which also skip ``select``/``textarea`` contents and a few non-rendered tags), so a
leaf is a block and predictions need no mapping. Each leaf is a sparse vector: counts of its
words over the ``top_words`` most frequent training words and counts of its ancestor tags over
the ``top_tags`` most frequent training tags, index 0 of each part counting everything unknown.
Words are the blocks' normalised tokens (lowercased, CleanEval punctuation removed). The
vocabularies come from the training pages only.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from functools import cached_property
from typing import NamedTuple, Protocol

import numpy as np


def ancestor_tags(path: str) -> list[str]:
    """The tags on a block's path from the root (``"html/body/div/p"`` -> html, body, div, p)."""
    return path.split("/") if path else []


class Leaves(Protocol):
    """What the leaf vectors read of a page: its blocks' normalised tokens and tag paths
    (:class:`~boilerbench.datasets.blocks.Blocks`, or :class:`LeafLists` kept after the page's
    tree was released)."""

    @property
    def tokens(self) -> list[list[str]]: ...

    @property
    def paths(self) -> list[str]: ...


class LeafLists(NamedTuple):
    """A page's block tokens and tag paths, without its tree."""

    tokens: list[list[str]]
    paths: list[str]


@dataclass(frozen=True)
class Vocabulary:
    """Word and tag indices (1-based; 0 is unknown). Feature index of tag t = 1 + len(words) + t."""

    words: tuple[str, ...]
    tags: tuple[str, ...]

    @classmethod
    def build(cls, pages_blocks: Sequence[Leaves], top_words: int, top_tags: int) -> Vocabulary:
        """The ``top_words`` most frequent words and ``top_tags`` most frequent ancestor tags
        (ties broken alphabetically, so the vocabulary is deterministic)."""
        words: Counter = Counter()
        tags: Counter = Counter()
        for blocks in pages_blocks:
            if top_words:  # a tag-only vocabulary (the LM classifier's) need not tokenise the text
                for tokens in blocks.tokens:
                    words.update(tokens)
            for path in blocks.paths:
                tags.update(ancestor_tags(path))

        def top(counts: Counter, k: int) -> tuple[str, ...]:
            return tuple(w for w, _ in sorted(counts.items(), key=lambda kv: (-kv[1], kv[0]))[:k])

        return cls(top(words, top_words), top(tags, top_tags))

    @property
    def size(self) -> int:
        """Width of a leaf vector: unknown word + words + unknown tag + tags."""
        return 2 + len(self.words) + len(self.tags)

    def encode(self, blocks: Leaves) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """The page's leaves in sparse form: (indices, counts, offsets), as ``nn.EmbeddingBag``
        takes them; leaf i's entries are ``indices[offsets[i]:offsets[i+1]]``."""
        word_index = self._word_index
        tag_index = self._tag_index
        unknown_tag = 1 + len(self.words)
        indices: list[int] = []
        counts: list[float] = []
        offsets = [0]
        for tokens, path in zip(blocks.tokens, blocks.paths, strict=True):
            leaf = Counter(word_index.get(t, 0) for t in tokens)
            leaf.update(tag_index.get(t, unknown_tag) for t in ancestor_tags(path))
            indices.extend(leaf.keys())
            counts.extend(leaf.values())
            offsets.append(len(indices))
        return (
            np.asarray(indices, dtype=np.int64),
            np.asarray(counts, dtype=np.float32),
            np.asarray(offsets, dtype=np.int64),
        )

    @cached_property
    def _word_index(self) -> dict[str, int]:
        return {w: i + 1 for i, w in enumerate(self.words)}

    @cached_property
    def _tag_index(self) -> dict[str, int]:
        return {t: i + 2 + len(self.words) for i, t in enumerate(self.tags)}
