"""BoilerNet's network and training (Leonhardt et al. 2020; ALGORITHMS.md).

Dense(256, ReLU) on each leaf's sparse count vector, a bidirectional LSTM over the page's
leaves, dropout, Dense(1) with a sigmoid; binary cross-entropy with balanced class weights,
Adam, batches of pages of similar length padded and packed (padding never reaches the LSTM, so a page's output
does not depend on its batch), the checkpoint with the best validation F1 kept, early stopping
after ``patience`` epochs without improvement. The Dense layer on a sparse count vector is an
``nn.EmbeddingBag`` in sum mode with the counts as weights, plus a bias: the same function,
without building 1,052-wide dense inputs.

Validation pages: the split's, or when it has none (cross-validation folds) a fixed-seed
``validation_share`` of the training pages.
"""

from __future__ import annotations

import io
import json
import logging
import os
import random
from collections.abc import Sequence
from dataclasses import asdict
from pathlib import Path

import numpy as np
import torch
from torch import nn
from torch.nn.utils.rnn import pack_padded_sequence, pad_packed_sequence

from boilerbench.atomic import atomic_write_bytes, atomic_write_text
from boilerbench.datasets.page import Page
from boilerbench.errors import ConfigError
from boilerbench.evaluation import block_counts, block_metrics
from boilerbench.extractors.base import Extraction
from boilerbench.extractors.boilernet.features import Vocabulary

log = logging.getLogger(__name__)

WEIGHTS_FILE = "boilernet.pt"
CONFIG_FILE = "boilernet.json"


class LeafTagger(nn.Module):
    """Sparse leaf vectors -> Dense(ReLU) -> BiLSTM -> dropout -> Dense(1) logits."""

    def __init__(self, n_features: int, dense: int, hidden: int, layers: int, dropout: float) -> None:
        super().__init__()
        self.dense = nn.EmbeddingBag(n_features, dense, mode="sum")
        self.dense_bias = nn.Parameter(torch.zeros(dense))
        self.lstm = nn.LSTM(dense, hidden, num_layers=layers, batch_first=True, bidirectional=True)
        self.dropout = nn.Dropout(dropout)
        self.out = nn.Linear(2 * hidden, 1)

    def forward(self, pages: list[tuple[torch.Tensor, torch.Tensor, torch.Tensor]]) -> torch.Tensor:
        """Logits (batch, max leaves); positions past a page's length are padding."""
        lengths = [len(offsets) - 1 for _, _, offsets in pages]
        leaves = [
            torch.relu(self.dense(idx, offsets[:-1], per_sample_weights=counts) + self.dense_bias)
            for idx, counts, offsets in pages
        ]
        padded = nn.utils.rnn.pad_sequence(leaves, batch_first=True)
        packed = pack_padded_sequence(padded, torch.tensor(lengths), batch_first=True, enforce_sorted=False)
        output, _ = self.lstm(packed)
        output, _ = pad_packed_sequence(output, batch_first=True, total_length=padded.shape[1])
        return self.out(self.dropout(output)).squeeze(-1)


class BoilerNet:
    """BoilerNet leaf labeller; hyperparameters as in the paper by default."""

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
    ) -> None:
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

    def get_params(self) -> dict:
        return {k: v for k, v in vars(self).items() if not k.startswith("_") and not k.endswith("_")}

    def __repr__(self) -> str:
        return f"BoilerNet({', '.join(f'{k}={v!r}' for k, v in self.get_params().items())})"

    # -- data ---------------------------------------------------------------------------------
    def _encode(self, page: Page) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
        idx, counts, offsets = self.vocabulary_.encode(page.blocks)
        return torch.from_numpy(idx), torch.from_numpy(counts), torch.from_numpy(offsets)

    def _network(self) -> LeafTagger:
        return LeafTagger(self.vocabulary_.size, self.dense, self.hidden, self.layers, self.dropout)

    # -- learning -----------------------------------------------------------------------------
    def fit(self, train: Sequence[Page], validation: Sequence[Page] | None = None) -> "BoilerNet":
        torch.manual_seed(self.seed)
        rng = random.Random(self.seed)
        train = [p for p in train if len(p.blocks)]
        validation = [p for p in (validation or []) if len(p.blocks)]
        if not validation and len(train) > 1:
            held = set(rng.sample(range(len(train)), max(1, round(self.validation_share * len(train)))))
            validation = [p for i, p in enumerate(train) if i in held]
            train = [p for i, p in enumerate(train) if i not in held]
        if not train:
            raise ValueError("BoilerNet needs at least one training page with text")
        self.vocabulary_ = Vocabulary.build([p.blocks for p in train], self.top_words, self.top_tags)
        data = [(self._encode(p), torch.from_numpy(p.gold_labels.astype(np.float32))) for p in train]
        positives = float(sum(y.sum() for _, y in data))
        total = float(sum(len(y) for _, y in data))
        # balanced class weights: n / (2 n_c)
        weight = {1: total / (2 * max(positives, 1.0)), 0: total / (2 * max(total - positives, 1.0))}

        net = self._network()
        optimiser = torch.optim.Adam(net.parameters(), lr=self.lr)
        best_f1, best_state, stale = -1.0, None, 0
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
                weights = mask * torch.where(targets > 0.5, weight[1], weight[0])
                loss = (nn.functional.binary_cross_entropy_with_logits(logits, targets, reduction="none") * weights).sum()
                loss = loss / mask.sum()
                optimiser.zero_grad()
                loss.backward()
                optimiser.step()
                total_loss += loss.item()
            self._net = net
            f1 = self._f1(validation) if validation else -total_loss
            self.history_.append({"epoch": epoch, "loss": total_loss, "validation_f1": f1})
            log.info("BoilerNet epoch %d: training loss %.4f, validation F1 %.4f", epoch, total_loss, f1)
            if f1 > best_f1:
                best_f1, stale = f1, 0
                best_state = {k: v.detach().clone() for k, v in net.state_dict().items()}
            else:
                stale += 1
                if stale >= self.patience:
                    break
        net.load_state_dict(best_state)
        net.eval()
        self._net = net
        self.epochs_run_ = len(self.history_)
        return self

    def _f1(self, pages: Sequence[Page]) -> float:
        counts = [block_counts(self._labels(p), p.gold_labels) for p in pages]
        return block_metrics(counts)["f1"]

    # -- inference ----------------------------------------------------------------------------
    def predict_proba(self, pages: Sequence[Page]) -> list[np.ndarray]:
        """Content probability of every leaf of each page (pages scored together in one batch).

        A page longer than ``max_leaves`` is cut into pieces of that many leaves, scored side by
        side in the batch: the LSTM runs one step per leaf of the longest sequence, and a
        400,000-leaf page would otherwise take minutes. The longest CleanEval page has 1,365 leaves
        and the longest L3S-GN1 page 1,250, so real pages are scored whole.
        """
        if not hasattr(self, "_net"):
            raise RuntimeError("BoilerNet.extract called before fit or load")
        self._net.eval()
        pieces, owners = [], []
        for k, page in enumerate(pages):
            idx, counts, offsets = self._encode(page)
            for start in range(0, len(offsets) - 1, self.max_leaves):
                cut = offsets[start : start + self.max_leaves + 1]
                pieces.append((idx[cut[0] : cut[-1]], counts[cut[0] : cut[-1]], cut - cut[0]))
                owners.append(k)
        with torch.no_grad():
            probs = torch.sigmoid(self._net(pieces)).numpy() if pieces else np.zeros((0, 0))
        parts: list[list[np.ndarray]] = [[] for _ in pages]
        for row, (k, piece) in enumerate(zip(owners, pieces)):
            parts[k].append(probs[row, : len(piece[2]) - 1])
        return [np.concatenate(p) if p else np.zeros(0, dtype=np.float32) for p in parts]

    def _labels(self, page: Page) -> np.ndarray:
        if len(page.blocks) == 0:
            return np.zeros(0, dtype=np.int8)
        return (self.predict_proba([page])[0] >= self.threshold).astype(np.int8)

    def extract(self, page: Page) -> Extraction:
        return Extraction.from_labels(page, self._labels(page))

    # -- persistence --------------------------------------------------------------------------
    def save(self, directory: "str | os.PathLike[str]") -> None:
        directory = Path(directory)
        buf = io.BytesIO()
        torch.save(self._net.state_dict(), buf)
        atomic_write_bytes(directory / WEIGHTS_FILE, buf.getvalue())
        state = {"params": self.get_params(), "vocabulary": asdict(self.vocabulary_), "history": self.history_}
        atomic_write_text(directory / CONFIG_FILE, json.dumps(state, indent=1))

    def load(self, directory: "str | os.PathLike[str]") -> "BoilerNet":
        directory = Path(directory)
        state = json.loads((directory / CONFIG_FILE).read_text())
        if state["params"] != self.get_params():
            raise ValueError(f"model in {directory} was trained with other hyperparameters: {state['params']}")
        self.vocabulary_ = Vocabulary(tuple(state["vocabulary"]["words"]), tuple(state["vocabulary"]["tags"]))
        self.history_ = state["history"]
        self.epochs_run_ = len(self.history_)
        net = self._network()
        net.load_state_dict(torch.load(directory / WEIGHTS_FILE, weights_only=True))
        net.eval()
        self._net = net
        return self
