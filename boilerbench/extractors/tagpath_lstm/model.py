"""The tag-path LSTM (papers/001, steps 1-7; ALGORITHMS.md).

Every text leaf (canonical block) is represented by its tag path from the root; tag vectors are
pre-trained fastText-style on the training pages' paths (:mod:`.fasttext`); an LSTM reads the
path from the root down and its last state, with the leaf's text length and relative position
on the page when ``text_features`` is on (the issue's option; the patent uses the path alone),
goes through a linear layer to a keep / drop probability. Kept leaves, joined, are the content.

The patent builds its paths with a stack-based tag matcher; lxml's parse gives the same paths.
The tag vectors stay fixed while the LSTM trains (the patent pre-trains and then encodes).
Paths are cut to their last ``max_depth`` tags. Distinct paths are run through the LSTM once
per batch. Training: binary cross-entropy with balanced class weights, Adam, early stopping on
the validation pages' block F1 (``hold_out`` provides them when the split has none).
"""

from __future__ import annotations

import logging
import os
import random
from collections.abc import Sequence
from dataclasses import replace

import numpy as np
import torch
from torch import nn

from boilerbench.datasets.page import Page
from boilerbench.errors import ConfigError, TrainingDataError
from boilerbench.evaluation import block_counts, block_metrics
from boilerbench.extractors.base import BaseExtractor, Extraction, Tags, require_fitted
from boilerbench.extractors.boilernet.features import ancestor_tags
from boilerbench.extractors.persistence import load_torch_model, save_torch_model
from boilerbench.extractors.tagpath_lstm.fasttext import TagEmbeddings, train_tag_embeddings
from boilerbench.extractors.training import EarlyStopping, balanced_class_weights, hold_out

log = logging.getLogger(__name__)

#: Saved as ``tagpath_lstm.pt`` (network and tag vectors) and ``tagpath_lstm.json``.
MODEL_NAME = "tagpath_lstm"
N_TEXT_FEATURES = 2


def text_features(page: Page) -> np.ndarray:
    """Per block: log(1 + characters) and relative position (0 at the first block, 1 at the last)."""
    n = len(page.blocks)
    chars = np.fromiter(map(len, page.blocks.texts), dtype=np.float32, count=n)
    position = np.arange(n, dtype=np.float32) / max(n - 1, 1)
    return np.stack([np.log1p(chars), position], axis=1) if n else np.zeros((0, N_TEXT_FEATURES), np.float32)


class PathClassifier(nn.Module):
    """Tag vectors of a path -> LSTM -> last state (+ text features) -> dropout -> one logit."""

    def __init__(self, dim: int, hidden: int, n_extra: int, dropout: float) -> None:
        super().__init__()
        self.lstm = nn.LSTM(dim, hidden, batch_first=True)
        self.dropout = nn.Dropout(dropout)
        self.out = nn.Linear(hidden + n_extra, 1)

    def forward(
        self, paths: torch.Tensor, lengths: torch.Tensor, which: torch.Tensor, extra: torch.Tensor
    ) -> torch.Tensor:
        """``paths`` (distinct paths, steps, dim), right-padded; ``which[b]`` is block b's path."""
        states = self.lstm(paths)[0]
        last = states[torch.arange(len(lengths)), lengths - 1]
        return self.out(self.dropout(torch.cat([last[which], extra], dim=1))).squeeze(-1)


class TagPathLSTM(BaseExtractor):
    """Keep / drop each text leaf from its tag path (fastText tag vectors + LSTM)."""

    def __boilerbench_tags__(self) -> Tags:
        return replace(super().__boilerbench_tags__(), learns=True, persistent=True)

    def __init__(
        self,
        dim: int = 32,
        window: int = 2,
        min_n: int = 2,
        max_n: int = 4,
        buckets: int = 2048,
        embedding_epochs: int = 50,
        max_depth: int = 32,
        hidden: int = 64,
        text_features: bool = True,
        dropout: float = 0.2,
        lr: float = 1e-3,
        batch_size: int = 256,
        epochs: int = 30,
        patience: int = 5,
        validation_share: float = 0.1,
        threshold: float = 0.5,
        seed: int = 0,
    ) -> None:
        if min(dim, window, min_n, buckets, max_depth, hidden, batch_size, epochs, patience) < 1 or max_n < min_n:
            raise ConfigError(
                "extractor.dim, window, min_n, buckets, max_depth, hidden, batch_size, epochs and "
                "patience must be at least 1, and max_n at least min_n"
            )
        self.dim = dim
        self.window = window
        self.min_n = min_n
        self.max_n = max_n
        self.buckets = buckets
        self.embedding_epochs = embedding_epochs
        self.max_depth = max_depth
        self.hidden = hidden
        self.text_features = text_features
        self.dropout = dropout
        self.lr = lr
        self.batch_size = batch_size
        self.epochs = epochs
        self.patience = patience
        self.validation_share = validation_share
        self.threshold = threshold
        self.seed = seed

    # -- data ---------------------------------------------------------------------------------
    def _paths(self, page: Page) -> list[tuple[str, ...]]:
        return [tuple(ancestor_tags(p)[-self.max_depth :]) for p in page.blocks.paths]

    def _encode(self, pages: Sequence[Page]) -> tuple[list[tuple[str, ...]], np.ndarray, np.ndarray]:
        """The distinct paths of ``pages``, each block's path index, and the blocks' extra features."""
        index: dict[tuple[str, ...], int] = {}
        which = [index.setdefault(path, len(index)) for page in pages for path in self._paths(page)]
        n_extra = N_TEXT_FEATURES if self.text_features else 0
        extra = (
            np.vstack([text_features(p) for p in pages])
            if self.text_features and pages
            else np.zeros((len(which), n_extra), np.float32)
        )
        return list(index), np.asarray(which, dtype=np.int64), extra.astype(np.float32)

    def _path_tensor(self, paths: Sequence[tuple[str, ...]]) -> tuple[torch.Tensor, torch.Tensor]:
        """Right-padded tag vectors of ``paths`` and their lengths (an empty path is one zero step)."""
        lengths = torch.tensor([max(len(p), 1) for p in paths], dtype=torch.long)
        out = np.zeros((len(paths), int(lengths.max()) if len(paths) else 1, self.dim), dtype=np.float32)
        for row, path in enumerate(paths):
            for step, tag in enumerate(path):
                out[row, step] = self._vector(tag)
        return torch.from_numpy(out), lengths

    def _vector(self, tag: str) -> np.ndarray:
        cached = self._tag_cache.get(tag)
        if cached is None:
            cached = self._tag_cache[tag] = self.embeddings_.vector(tag)
        return cached

    def _network(self) -> PathClassifier:
        return PathClassifier(self.dim, self.hidden, N_TEXT_FEATURES if self.text_features else 0, self.dropout)

    # -- learning -----------------------------------------------------------------------------
    def fit(self, train: Sequence[Page], validation: Sequence[Page] | None = None) -> TagPathLSTM:
        torch.manual_seed(self.seed)
        rng = random.Random(self.seed)
        train, validation = hold_out(train, validation, self.validation_share, rng)
        if not train:
            raise TrainingDataError("TagPathLSTM needs at least one training page with text")
        self.embeddings_ = train_tag_embeddings(
            [path for page in train for path in self._paths(page)],
            self.dim,
            self.window,
            self.min_n,
            self.max_n,
            self.buckets,
            epochs=self.embedding_epochs,
            seed=self.seed,
        )
        self._tag_cache: dict[str, np.ndarray] = {}
        paths, which_rows, extra_rows = self._encode(train)
        path_vectors, lengths = self._path_tensor(paths)
        labels = torch.from_numpy(np.concatenate([p.gold_labels for p in train]).astype(np.float32))
        weights = torch.where(labels > 0.5, *balanced_class_weights(float(labels.sum()), float(len(labels))))
        which, extra = torch.from_numpy(which_rows), torch.from_numpy(extra_rows)

        net = self._network()
        optimiser = torch.optim.Adam(net.parameters(), lr=self.lr)
        stopping = EarlyStopping(self.patience)
        generator = torch.Generator().manual_seed(self.seed)
        self.history_: list[dict] = []
        for epoch in range(1, self.epochs + 1):
            net.train()
            total = 0.0
            order = torch.randperm(len(labels), generator=generator)
            for s in range(0, len(order), self.batch_size):
                batch = order[s : s + self.batch_size]
                distinct, local = torch.unique(which[batch], return_inverse=True)
                logits = net(path_vectors[distinct], lengths[distinct], local, extra[batch])
                loss = nn.functional.binary_cross_entropy_with_logits(logits, labels[batch], weight=weights[batch])
                optimiser.zero_grad()
                loss.backward()
                optimiser.step()
                total += loss.item() * len(batch)
            self.net_ = net
            f1 = self._f1(validation) if validation else -total
            self.history_.append({"epoch": epoch, "loss": total / len(labels), "validation_f1": f1})
            log.info("TagPathLSTM epoch %d: training loss %.4f, validation F1 %.4f", epoch, total / len(labels), f1)
            if stopping.update(f1, net):
                break
        self.net_ = stopping.restore(net)
        return self

    def fit_summary(self) -> str:
        """How training went (for logs and benchmarks)."""
        return f"{len(self.embeddings_.tags)} tags embedded, {len(self.history_)} epochs"

    def _f1(self, pages: Sequence[Page]) -> float:
        probabilities = self.predict_proba(pages)
        return block_metrics(
            [block_counts(pr >= self.threshold, p.gold_labels) for pr, p in zip(probabilities, pages, strict=True)]
        )["f1"]

    # -- inference ----------------------------------------------------------------------------
    def predict_proba(self, pages: Sequence[Page]) -> list[np.ndarray]:
        """Content probability of every block of each page."""
        require_fitted(self, "net_")
        paths, which, extra = self._encode(pages)
        if not len(which):
            return [np.zeros(0, dtype=np.float32) for _ in pages]
        self.net_.eval()
        vectors, lengths = self._path_tensor(paths)
        with torch.no_grad():
            probabilities = torch.sigmoid(
                self.net_(vectors, lengths, torch.from_numpy(which), torch.from_numpy(extra))
            ).numpy()
        return np.split(probabilities, np.cumsum([len(p.blocks) for p in pages])[:-1])

    def extract(self, page: Page) -> Extraction:
        return Extraction.from_labels(page, (self.predict_proba([page])[0] >= self.threshold).astype(np.int8))

    # -- persistence --------------------------------------------------------------------------
    def save(self, directory: str | os.PathLike[str]) -> None:
        require_fitted(self, "net_")
        weights = {
            "net": self.net_.state_dict(),
            "vectors": torch.from_numpy(self.embeddings_.vectors),
            "ngram_vectors": torch.from_numpy(self.embeddings_.ngram_vectors),
        }
        state = {"tags": list(self.embeddings_.tags), "history": self.history_}
        save_torch_model(self, directory, MODEL_NAME, weights, state)

    def load(self, directory: str | os.PathLike[str]) -> TagPathLSTM:
        weights, state = load_torch_model(self, directory, MODEL_NAME)
        self.embeddings_ = TagEmbeddings(
            tuple(state["tags"]), weights["vectors"].numpy(), weights["ngram_vectors"].numpy(), self.min_n, self.max_n
        )
        self._tag_cache = {}
        self.history_ = state["history"]
        net = self._network()
        net.load_state_dict(weights["net"])
        self.net_ = net.eval()
        return self
