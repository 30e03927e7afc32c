"""BoilerNet's network and training (Leonhardt et al. 2020; ALGORITHMS.md).

Dense(256, ReLU) on each leaf's sparse count vector, a bidirectional LSTM over the page's
leaves, dropout, Dense(1) with a sigmoid; binary cross-entropy with balanced class weights
(``class_weights: none`` for the unweighted loss, an ablation),
Adam, batches of pages of similar length padded on the right (padding never reaches a page's outputs,
so they do not depend on its batch), the checkpoint with the best validation F1 kept, early stopping
after ``patience`` epochs without improvement. The Dense layer on a sparse count vector is an
``nn.EmbeddingBag`` in sum mode with the counts as weights, plus a bias: the same function,
without building 1,052-wide dense inputs.

Validation pages: the split's, or when it has none (cross-validation folds) a fixed-seed
``validation_share`` of the training pages.
"""

from __future__ import annotations

import logging
import os
import random
from collections.abc import Sequence
from dataclasses import asdict, replace
from itertools import accumulate

import numpy as np
import torch
from torch import nn

from boilerbench.datasets.page import Page
from boilerbench.errors import ConfigError, TrainingDataError, check_choice
from boilerbench.evaluation import block_counts, block_metrics
from boilerbench.extractors.base import BaseExtractor, Extraction, Tags, require_fitted
from boilerbench.extractors.boilernet.features import LeafLists, Leaves, Vocabulary
from boilerbench.extractors.derived import derive
from boilerbench.extractors.persistence import load_torch_model, save_torch_model
from boilerbench.extractors.training import EarlyStopping, balanced_class_weights, hold_out

log = logging.getLogger(__name__)

#: Pieces of a page (and pages) scored in one forward pass: bounds inference memory to about
#: that many times ``max_leaves`` leaves (about 0.5 GB at the defaults).
PIECES_PER_BATCH = 32
#: Saved as ``boilernet.pt`` (weights) and ``boilernet.json`` (vocabulary, history).
MODEL_NAME = "boilernet"


def reverse_within(x: torch.Tensor, lengths: torch.Tensor) -> torch.Tensor:
    """Reverse each row's first ``lengths[b]`` steps of ``x`` (batch, time, ...) in place of
    them, leaving the padding after them where it is; applying it twice restores ``x``."""
    steps = torch.arange(x.shape[1]).unsqueeze(0)
    index = torch.where(steps < lengths.unsqueeze(1), lengths.unsqueeze(1) - 1 - steps, steps)
    return x.gather(1, index.unsqueeze(-1).expand_as(x))


class BiLSTM(nn.Module):
    """A bidirectional LSTM over right-padded sequences, one unidirectional LSTM per direction.

    The backward direction reads each sequence reversed within its own length, so padding only
    ever follows a sequence's real steps and never reaches their outputs: the same result as a
    packed sequence. We do not pack because the CPU backward pass of a packed LSTM with unequal
    lengths zero-fills a gradient the size of the whole batch at every time step (quadratic in
    the page length; 2 s for one batch of 16 CleanEval pages of about 160 leaves).
    """

    def __init__(self, size: int, hidden: int, layers: int) -> None:
        super().__init__()
        self.forward_layers = nn.ModuleList(
            nn.LSTM(size if i == 0 else 2 * hidden, hidden, batch_first=True) for i in range(layers)
        )
        self.backward_layers = nn.ModuleList(
            nn.LSTM(size if i == 0 else 2 * hidden, hidden, batch_first=True) for i in range(layers)
        )

    def forward(self, x: torch.Tensor, lengths: torch.Tensor) -> torch.Tensor:
        for ahead, behind in zip(self.forward_layers, self.backward_layers, strict=True):
            back = reverse_within(behind(reverse_within(x, lengths))[0], lengths)
            x = torch.cat([ahead(x)[0], back], dim=-1)
        return x


class LeafTagger(nn.Module):
    """Sparse leaf vectors -> Dense(ReLU) -> BiLSTM -> dropout -> Dense(1) logits."""

    def __init__(self, n_features: int, dense: int, hidden: int, layers: int, dropout: float) -> None:
        super().__init__()
        self.dense = nn.EmbeddingBag(n_features, dense, mode="sum")
        self.dense_bias = nn.Parameter(torch.zeros(dense))
        self.lstm = BiLSTM(dense, hidden, layers)
        self.dropout = nn.Dropout(dropout)
        self.out = nn.Linear(2 * hidden, 1)

    def forward(self, pages: list[tuple[torch.Tensor, torch.Tensor, torch.Tensor]]) -> torch.Tensor:
        """Logits (batch, max leaves); positions past a page's length are padding."""
        lengths = torch.tensor([len(offsets) - 1 for _, _, offsets in pages])
        idx = torch.cat([i for i, _, _ in pages])
        counts = torch.cat([c for _, c, _ in pages])
        starts = torch.cat([o[:-1] + shift for (_, _, o), shift in zip(pages, _shifts(pages), strict=True)])
        leaves = torch.relu(self.dense(idx, starts, per_sample_weights=counts) + self.dense_bias)
        padded = nn.utils.rnn.pad_sequence(list(leaves.split(lengths.tolist())), batch_first=True)
        return self.out(self.dropout(self.lstm(padded, lengths))).squeeze(-1)


def _shifts(pages: list[tuple[torch.Tensor, torch.Tensor, torch.Tensor]]) -> list[int]:
    """Where each page's word/tag indices start in the batch's concatenated index vector."""
    return list(accumulate((int(offsets[-1]) for _, _, offsets in pages[:-1]), initial=0))


class BoilerNet(BaseExtractor):
    """BoilerNet leaf labeller; hyperparameters as in the paper by default."""

    def __boilerbench_tags__(self) -> Tags:
        return replace(super().__boilerbench_tags__(), learns=True, persistent=True)

    def __init__(
        self,
        top_words: int = 1000,
        top_tags: int = 50,
        dense: int = 256,
        hidden: int = 256,
        layers: int = 1,
        dropout: float = 0.5,
        lr: float = 1e-3,
        batch_size: int = 16,
        epochs: int = 50,
        patience: int = 10,
        validation_share: float = 0.1,
        threshold: float = 0.5,
        max_leaves: int = 2_000,
        seed: int = 0,
        class_weights: str = "balanced",
    ) -> None:
        check_choice("extractor.class_weights", class_weights, ("balanced", "none"))
        if layers not in (1, 2):
            raise ConfigError(f"extractor.layers must be 1 or 2, got {layers}")
        if min(epochs, batch_size, patience, max_leaves) < 1:
            raise ConfigError("extractor.epochs, batch_size, patience and max_leaves must be at least 1")
        self.top_words = top_words
        self.top_tags = top_tags
        self.dense = dense
        self.hidden = hidden
        self.layers = layers
        self.dropout = dropout
        self.lr = lr
        self.batch_size = batch_size
        self.epochs = epochs
        self.patience = patience
        self.validation_share = validation_share
        self.threshold = threshold
        self.max_leaves = max_leaves
        self.seed = seed
        self.class_weights = class_weights

    # -- data ---------------------------------------------------------------------------------
    def _encode(self, leaves: Leaves) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
        idx, counts, offsets = self.vocabulary_.encode(leaves)
        return torch.from_numpy(idx), torch.from_numpy(counts), torch.from_numpy(offsets)

    def _network(self) -> LeafTagger:
        return LeafTagger(self.vocabulary_.size, self.dense, self.hidden, self.layers, self.dropout)

    # -- learning -----------------------------------------------------------------------------
    def fit(self, train: Sequence[Page], validation: Sequence[Page] | None = None) -> BoilerNet:
        torch.manual_seed(self.seed)
        rng = random.Random(self.seed)
        train, validation = hold_out(train, validation, self.validation_share, rng)
        if not train:
            raise TrainingDataError("BoilerNet needs at least one training page with text")
        leaves = derive(train, lambda p: (LeafLists(p.blocks.tokens, p.blocks.paths), p.gold_labels.astype(np.float32)))
        self.vocabulary_ = Vocabulary.build([leaf for leaf, _ in leaves], self.top_words, self.top_tags)
        data = [(self._encode(leaf), torch.from_numpy(y)) for leaf, y in leaves]
        del leaves
        positives = float(sum(y.sum() for _, y in data))
        total = float(sum(len(y) for _, y in data))
        content_weight, boilerplate_weight = (
            balanced_class_weights(positives, total) if self.class_weights == "balanced" else (1.0, 1.0)
        )

        net = self._network()
        optimiser = torch.optim.Adam(net.parameters(), lr=self.lr)
        stopping = EarlyStopping(self.patience)
        self.history_: list[dict] = []
        # Batches of pages of similar length (shuffled within equal lengths, batch order shuffled
        # every epoch): the LSTM runs as many steps as the longest page of a batch, so mixing a
        # 3,000-leaf page with short ones would cost the whole batch 3,000 steps.
        for epoch in range(1, self.epochs + 1):
            net.train()
            order = sorted(range(len(data)), key=lambda i: (len(data[i][1]), rng.random()))
            batches = [order[s : s + self.batch_size] for s in range(0, len(order), self.batch_size)]
            rng.shuffle(batches)
            total_loss = 0.0
            for members in batches:
                batch = [data[i] for i in members]
                logits = net([x for x, _ in batch])
                targets = nn.utils.rnn.pad_sequence([y for _, y in batch], batch_first=True)
                mask = nn.utils.rnn.pad_sequence([torch.ones(len(y)) for _, y in batch], batch_first=True)
                weights = mask * torch.where(targets > 0.5, content_weight, boilerplate_weight)
                loss = (
                    nn.functional.binary_cross_entropy_with_logits(logits, targets, reduction="none") * weights
                ).sum()
                loss = loss / mask.sum()
                optimiser.zero_grad()
                loss.backward()
                optimiser.step()
                total_loss += loss.item()
            self.net_ = net
            f1 = self._f1(validation) if validation else -total_loss
            self.history_.append({"epoch": epoch, "loss": total_loss, "validation_f1": f1})
            log.info("BoilerNet epoch %d: training loss %.4f, validation F1 %.4f", epoch, total_loss, f1)
            if stopping.update(f1, net):
                break
        self.net_ = stopping.restore(net)
        self.epochs_run_ = len(self.history_)
        return self

    def fit_summary(self) -> str:
        """How long training ran (for logs and benchmarks)."""
        return f"{self.epochs_run_} epochs"

    def _f1(self, pages: Sequence[Page]) -> float:
        counts = [block_counts(self._labels(p), p.gold_labels) for p in pages]
        return block_metrics(counts)["f1"]

    # -- inference ----------------------------------------------------------------------------
    def predict_proba(self, pages: Sequence[Page]) -> list[np.ndarray]:
        """Content probability of every leaf of each page (pages scored together in one batch).

        A page longer than ``max_leaves`` is cut into pieces of that many leaves, scored side by
        side in the batch: the LSTM runs one step per leaf of the longest sequence, and a
        400,000-leaf page would otherwise take minutes. The longest CleanEval page has 1,365 leaves
        and the longest L3S-GN1 page 1,250, so real pages are scored whole. The pieces go through
        the network :data:`PIECES_PER_BATCH` at a time: all at once, the 400 pieces of a 50 MB page
        took 6.4 GB (``benchmarks/memory.py``).
        """
        require_fitted(self, "net_")
        self.net_.eval()
        pieces, owners = [], []
        for k, page in enumerate(pages):
            idx, counts, offsets = self._encode(page.blocks)
            for start in range(0, len(offsets) - 1, self.max_leaves):
                cut = offsets[start : start + self.max_leaves + 1]
                pieces.append((idx[cut[0] : cut[-1]], counts[cut[0] : cut[-1]], cut - cut[0]))
                owners.append(k)
        parts: list[list[np.ndarray]] = [[] for _ in pages]
        with torch.no_grad():
            for first in range(0, len(pieces), PIECES_PER_BATCH):
                batch = pieces[first : first + PIECES_PER_BATCH]
                probs = torch.sigmoid(self.net_(batch)).numpy()
                for row, piece in enumerate(batch):
                    parts[owners[first + row]].append(probs[row, : len(piece[2]) - 1])
        return [np.concatenate(p) if p else np.zeros(0, dtype=np.float32) for p in parts]

    def _labels(self, page: Page) -> np.ndarray:
        if len(page.blocks) == 0:
            return np.zeros(0, dtype=np.int8)
        return (self.predict_proba([page])[0] >= self.threshold).astype(np.int8)

    def extract(self, page: Page) -> Extraction:
        return Extraction.from_labels(page, self._labels(page))

    # -- persistence --------------------------------------------------------------------------
    def save(self, directory: str | os.PathLike[str]) -> None:
        require_fitted(self, "net_")
        state = {"vocabulary": asdict(self.vocabulary_), "history": self.history_}
        save_torch_model(self, directory, MODEL_NAME, {"net": self.net_.state_dict()}, state)

    def load(self, directory: str | os.PathLike[str]) -> BoilerNet:
        weights, state = load_torch_model(self, directory, MODEL_NAME)
        self.vocabulary_ = Vocabulary(tuple(state["vocabulary"]["words"]), tuple(state["vocabulary"]["tags"]))
        self.history_ = state["history"]
        self.epochs_run_ = len(self.history_)
        net = self._network()
        net.load_state_dict(weights["net"])
        self.net_ = net.eval()
        return self
