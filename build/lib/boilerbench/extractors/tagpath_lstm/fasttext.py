"""fastText-style tag embeddings (Bojanowski et al. 2017), a small torch implementation.

The corpus is the training pages' tag paths, each a "sentence" of tags from the root to a text
leaf (``html body div div p``). A tag is represented by its own vector plus vectors of its
character n-grams (of ``<tag>``, hashed into ``buckets`` rows), averaged; skip-gram with
negative sampling trains them to predict the tags within ``window`` places. Thanks to the
n-grams a tag never seen in training (``h5``, ``section2``) still gets a vector.

Paths repeat heavily (a page has a few dozen distinct paths), so training runs over the
distinct (centre, context) pairs, each weighted by how often it occurs.
"""

from __future__ import annotations

import zlib
from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from functools import cached_property

import numpy as np
import torch
from torch import nn


def char_ngrams(tag: str, min_n: int, max_n: int) -> list[str]:
    """The character n-grams of ``<tag>`` (fastText's word boundaries), ``min_n`` to ``max_n`` long."""
    word = f"<{tag}>"
    return [word[i : i + n] for n in range(min_n, max_n + 1) for i in range(len(word) - n + 1)]


def ngram_bucket(ngram: str, buckets: int) -> int:
    """A stable hash of an n-gram into ``buckets`` rows."""
    return zlib.crc32(ngram.encode("utf-8")) % buckets


@dataclass
class TagEmbeddings:
    """Trained tag vectors (``vectors[i]`` for ``tags[i]``) and the n-gram table for unseen tags."""

    tags: tuple[str, ...]
    vectors: np.ndarray
    ngram_vectors: np.ndarray
    min_n: int
    max_n: int

    def vector(self, tag: str) -> np.ndarray:
        """A known tag's trained vector; an unseen one's mean n-gram vector (zeros without n-grams)."""
        index = self._index.get(tag)
        if index is not None:
            return self.vectors[index]
        rows = [ngram_bucket(g, len(self.ngram_vectors)) for g in char_ngrams(tag, self.min_n, self.max_n)]
        return self.ngram_vectors[rows].mean(axis=0) if rows else np.zeros(self.vectors.shape[1], np.float32)

    @cached_property
    def _index(self) -> dict[str, int]:
        return {t: i for i, t in enumerate(self.tags)}


def skipgram_pairs(paths: Iterable[Sequence[int]], window: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Distinct (centre, context) index pairs within ``window`` places, and their counts."""
    pairs: Counter = Counter()
    for path in paths:
        for i, centre in enumerate(path):
            for j in range(max(0, i - window), min(len(path), i + window + 1)):
                if j != i:
                    pairs[(centre, path[j])] += 1
    if not pairs:
        return np.zeros(0, np.int64), np.zeros(0, np.int64), np.zeros(0, np.float32)
    (centres, contexts), counts = zip(*pairs.keys(), strict=True), list(pairs.values())
    return np.asarray(centres), np.asarray(contexts), np.asarray(counts, dtype=np.float32)


def train_tag_embeddings(
    paths: Sequence[Sequence[str]],
    dim: int = 32,
    window: int = 2,
    min_n: int = 2,
    max_n: int = 4,
    buckets: int = 2048,
    negatives: int = 5,
    epochs: int = 50,
    lr: float = 0.05,
    batch_size: int = 1024,
    seed: int = 0,
) -> TagEmbeddings:
    """Train fastText skip-gram vectors of the tags in ``paths`` (root-to-leaf tag lists)."""
    generator = torch.Generator().manual_seed(seed)
    frequency = Counter(t for p in paths for t in p)
    tags = tuple(sorted(frequency, key=lambda t: (-frequency[t], t)))
    index = {t: i for i, t in enumerate(tags)}
    # each tag's bag: its own row, then its n-gram rows after the tag rows
    bag_rows: list[int] = []
    offsets = [0]
    for t in tags:
        bag_rows.append(index[t])
        bag_rows.extend(len(tags) + ngram_bucket(g, buckets) for g in char_ngrams(t, min_n, max_n))
        offsets.append(len(bag_rows))
    rows, starts = torch.tensor(bag_rows), torch.tensor(offsets[:-1])

    inputs = nn.EmbeddingBag(len(tags) + buckets, dim, mode="mean")
    nn.init.uniform_(inputs.weight, -1.0 / dim, 1.0 / dim, generator=generator)
    outputs = nn.Embedding(max(len(tags), 1), dim)
    nn.init.zeros_(outputs.weight)
    centres, contexts, counts = map(torch.from_numpy, skipgram_pairs(([index[t] for t in p] for p in paths), window))
    # negatives from the unigram distribution raised to 3/4, as word2vec and fastText draw them
    noise = torch.tensor([frequency[t] ** 0.75 for t in tags], dtype=torch.float32)
    optimiser = torch.optim.Adam([*inputs.parameters(), *outputs.parameters()], lr=lr)
    for _ in range(epochs if len(centres) else 0):
        order = torch.randperm(len(centres), generator=generator)
        for s in range(0, len(order), batch_size):
            batch = order[s : s + batch_size]
            vectors = inputs(rows, starts)[centres[batch]]
            positive = (vectors * outputs(contexts[batch])).sum(-1)
            sampled = torch.multinomial(noise, len(batch) * negatives, replacement=True, generator=generator)
            negative = torch.einsum("bd,bkd->bk", vectors, outputs(sampled.view(len(batch), negatives)))
            loss = -(nn.functional.logsigmoid(positive) + nn.functional.logsigmoid(-negative).sum(-1))
            loss = (loss * counts[batch]).sum() / counts[batch].sum()
            optimiser.zero_grad()
            loss.backward()
            optimiser.step()
    with torch.no_grad():
        vectors = inputs(rows, starts).numpy() if tags else np.zeros((0, dim), np.float32)
    return TagEmbeddings(
        tags, vectors.astype(np.float32), inputs.weight[len(tags) :].detach().numpy().copy(), min_n, max_n
    )
