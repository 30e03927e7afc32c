"""Web2Text's networks, training and decoding (Vogels et al. 2018, sec. 3.4-3.5 and 4.2).

Two 1-D CNNs over the block sequence, five convolutions each (widths 1, 1, 3, 3, 3; channels
50, 50, 50, 10 and the output), ReLU and dropout between them: the unary net gives two logits
per block (p_i(l_i)), the pairwise net four per pair of neighbours (p_{i,i+1}(l_i, l_{i+1}),
class ``2 l_i + l_{i+1}``) from the edge features. Each is trained alone with cross-entropy on
random windows of ``window`` consecutive blocks (edges), Adam with L2 ``l2`` (as weight decay),
and early stopping: every ``eval_every`` steps the unary net is scored by block F1 and the
pairwise net by pair accuracy on the validation pages, the best checkpoint kept, training
stopped after ``patience`` evaluations without improvement or at ``max_steps``.

Two departures from the authors' TensorFlow code, which follow the paper instead: dropout
(0.2) on activations where the code drops weights (DropConnect, keep 0.75 / 0.8), and windows
drawn uniformly over all of them where the code draws a document, then a window in it.

Decoding maximises ``sum_i log p_i(l_i) + lambda_pairwise * sum_i log p_{i,i+1}(l_i, l_{i+1})``
by Viterbi (:func:`viterbi`); ``lambda_pairwise = 0`` is the unary-only variant and skips the
pairwise net altogether.
"""

from __future__ import annotations

import logging
import os
import random
from collections.abc import Callable, Sequence
from dataclasses import replace

import numpy as np
import torch
from torch import nn

from boilerbench.datasets.page import Page
from boilerbench.errors import ConfigError, TrainingDataError
from boilerbench.evaluation import block_counts, block_metrics
from boilerbench.extractors.base import BaseExtractor, Extraction, Tags, require_fitted
from boilerbench.extractors.derived import derive
from boilerbench.extractors.persistence import load_torch_model, save_torch_model
from boilerbench.extractors.sequence import viterbi
from boilerbench.extractors.training import EarlyStopping, hold_out
from boilerbench.extractors.web2text.features import (
    BLOCK_FEATURES,
    EDGE_FEATURES,
    Standardiser,
    page_features,
)

log = logging.getLogger(__name__)

#: Saved as ``web2text.pt`` (both networks) and ``web2text.json`` (scalers, history).
MODEL_NAME = "web2text"
#: Target value of padded window positions (ignored by the loss).
IGNORE = -100


class PotentialCNN(nn.Module):
    """Convolutions over a sequence (batch, features, length) -> (batch, outputs, length); odd
    widths with 'same' padding, so every position gets an output."""

    def __init__(self, n_in: int, channels: Sequence[int], widths: Sequence[int], n_out: int, dropout: float) -> None:
        super().__init__()
        sizes = [n_in, *channels, n_out]
        layers: list[nn.Module] = []
        for k, width in enumerate(widths):
            layers.append(nn.Conv1d(sizes[k], sizes[k + 1], width, padding=width // 2))
            if k < len(widths) - 1:
                layers += [nn.ReLU(), nn.Dropout(dropout)]
        self.layers = nn.Sequential(*layers)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.layers(x)


def _windows(lengths: Sequence[int], window: int) -> np.ndarray:
    """Row indices of every window of ``window`` consecutive rows of each sequence, sequences
    stacked one after the other; positions past a short sequence's end point at the padding row
    (index ``sum(lengths)``)."""
    pad = int(sum(lengths))
    rows = []
    offset = 0
    for length in lengths:
        for start in range(max(length - window, 0) + 1):
            index = offset + start + np.arange(window)
            rows.append(np.where(start + np.arange(window) < length, index, pad))
        offset += length
    return np.asarray(rows, dtype=np.int64).reshape(-1, window)


class Web2Text(BaseExtractor):
    """Web2Text block labeller; hyperparameters default to the paper's."""

    def __boilerbench_tags__(self) -> Tags:
        return replace(super().__boilerbench_tags__(), learns=True, persistent=True)

    def __init__(
        self,
        channels: Sequence[int] = (50, 50, 50, 10),
        widths: Sequence[int] = (1, 1, 3, 3, 3),
        dropout: float = 0.2,
        l2: float = 1e-4,
        lr: float = 1e-3,
        batch_size: int = 128,
        window: int = 9,
        max_steps: int = 20_000,
        eval_every: int = 250,
        patience: int = 10,
        lambda_pairwise: float = 0.1,
        validation_share: float = 0.1,
        seed: int = 0,
    ) -> None:
        if len(widths) != len(channels) + 1 or any(w < 1 or w % 2 == 0 for w in widths):
            raise ConfigError(f"extractor.widths must be {len(channels) + 1} odd widths (one per layer), got {widths}")
        if min(batch_size, window, max_steps, eval_every, patience) < 1 or lambda_pairwise < 0:
            raise ConfigError(
                "extractor.batch_size, window, max_steps, eval_every and patience must be at least 1, "
                "lambda_pairwise at least 0"
            )
        self.channels = channels
        self.widths = widths
        self.dropout = dropout
        self.l2 = l2
        self.lr = lr
        self.batch_size = batch_size
        self.window = window
        self.max_steps = max_steps
        self.eval_every = eval_every
        self.patience = patience
        self.lambda_pairwise = lambda_pairwise
        self.validation_share = validation_share
        self.seed = seed

    def _net(self, n_in: int, n_out: int) -> PotentialCNN:
        return PotentialCNN(n_in, self.channels, self.widths, n_out, self.dropout)

    # -- data ---------------------------------------------------------------------------------
    @staticmethod
    def _raw(page: Page) -> tuple[np.ndarray, np.ndarray]:
        return page_features(page.blocks, page.html)

    @classmethod
    def _example(cls, page: Page) -> tuple[tuple[np.ndarray, np.ndarray], np.ndarray]:
        """A training page's (block, edge) features and gold labels."""
        return cls._raw(page), page.gold_labels.astype(np.int64)

    @staticmethod
    def _pair_targets(labels: np.ndarray) -> np.ndarray:
        return 2 * labels[:-1].astype(np.int64) + labels[1:]

    # -- learning -----------------------------------------------------------------------------
    def fit(self, train: Sequence[Page], validation: Sequence[Page] | None = None) -> Web2Text:
        torch.manual_seed(self.seed)
        train, validation = hold_out(train, validation, self.validation_share, random.Random(self.seed))
        if not train:
            raise TrainingDataError("Web2Text needs at least one training page with text")
        derived = derive(train, self._example)
        raw, labels = [x for x, _ in derived], [y for _, y in derived]
        self.block_scaler_ = Standardiser.fit(np.concatenate([b for b, _ in raw]))
        self.edge_scaler_ = Standardiser.fit(np.concatenate([e for _, e in raw]))
        held = derive(validation, self._example)
        self.history_: dict[str, list] = {}

        unary = self._net(len(BLOCK_FEATURES), 2)
        self.unary_ = self._train(
            "unary",
            unary,
            [self.block_scaler_.transform(b) for b, _ in raw],
            labels,
            (lambda: block_metrics([block_counts(self._unary_labels(unary, b), y) for (b, _), y in held])["f1"])
            if held
            else None,
        )
        self.pairwise_ = None
        if self.lambda_pairwise > 0:
            pairwise = self._net(len(EDGE_FEATURES), 4)
            self.pairwise_ = self._train(
                "pairwise",
                pairwise,
                [self.edge_scaler_.transform(e) for _, e in raw],
                [self._pair_targets(y) for y in labels],
                (lambda: self._pair_accuracy(pairwise, held)) if held else None,
            )
        return self

    def _train(
        self,
        name: str,
        net: PotentialCNN,
        inputs: list[np.ndarray],
        targets: list[np.ndarray],
        score: Callable[[], float] | None,
    ) -> PotentialCNN:
        """Train ``net`` on random windows; keep the checkpoint with the best validation ``score``
        (the lowest training loss when there are no validation pages)."""
        rng = np.random.default_rng(self.seed)
        x = torch.from_numpy(np.concatenate([*inputs, np.zeros((1, inputs[0].shape[1]), np.float32)]))
        y = torch.from_numpy(np.concatenate([*targets, [IGNORE]]).astype(np.int64))
        windows = torch.from_numpy(_windows([len(t) for t in targets], self.window))
        optimiser = torch.optim.Adam(net.parameters(), lr=self.lr, weight_decay=self.l2)
        history = self.history_.setdefault(name, [])
        stopping, loss_sum = EarlyStopping(self.patience), 0.0
        for step in range(1, self.max_steps + 1):
            net.train()
            rows = windows[torch.from_numpy(rng.integers(len(windows), size=self.batch_size))]
            logits = net(x[rows].transpose(1, 2))
            loss = nn.functional.cross_entropy(logits, y[rows], ignore_index=IGNORE)
            optimiser.zero_grad()
            loss.backward()
            optimiser.step()
            loss_sum += loss.item()
            if step % self.eval_every and step != self.max_steps:
                continue
            net.eval()
            value = score() if score is not None else -loss_sum
            history.append({"step": step, "loss": loss_sum / self.eval_every, "validation": value})
            log.info(
                "Web2Text %s step %d: training loss %.4f, validation %.4f",
                name,
                step,
                loss_sum / self.eval_every,
                value,
            )
            loss_sum = 0.0
            if stopping.update(value, net):
                break
        return stopping.restore(net)

    def fit_summary(self) -> str:
        """How long each network trained (for logs and benchmarks)."""
        return ", ".join(f"{name} net {runs[-1]['step']} steps" for name, runs in self.history_.items())

    # -- inference ----------------------------------------------------------------------------
    @staticmethod
    def _log_probs(net: PotentialCNN, rows: np.ndarray) -> np.ndarray:
        with torch.no_grad():
            logits = net(torch.from_numpy(rows).T.unsqueeze(0))[0].T
            return torch.log_softmax(logits, dim=-1).numpy().astype(np.float64)

    def _unary_labels(self, net: PotentialCNN, block_rows: np.ndarray) -> np.ndarray:
        if len(block_rows) == 0:
            return np.zeros(0, dtype=np.int8)
        return self._log_probs(net, self.block_scaler_.transform(block_rows)).argmax(axis=1).astype(np.int8)

    def _pair_accuracy(self, net: PotentialCNN, held) -> float:
        right = total = 0
        for (_, edges), labels in held:
            if len(edges):
                guess = self._log_probs(net, self.edge_scaler_.transform(edges)).argmax(axis=1)
                right += int((guess == self._pair_targets(labels)).sum())
                total += len(edges)
        return right / max(total, 1)

    def labels(self, page: Page) -> np.ndarray:
        """The decoded label of every block of ``page``."""
        require_fitted(self, "unary_")
        blocks, edges = self._raw(page)
        if len(blocks) == 0:
            return np.zeros(0, dtype=np.int8)
        unary = self._log_probs(self.unary_, self.block_scaler_.transform(blocks))
        if self.pairwise_ is None or len(edges) == 0:
            return unary.argmax(axis=1).astype(np.int8)
        pairwise = self._log_probs(self.pairwise_, self.edge_scaler_.transform(edges)).reshape(-1, 2, 2)
        return viterbi(unary, pairwise, self.lambda_pairwise).astype(np.int8)

    def extract(self, page: Page) -> Extraction:
        return Extraction.from_labels(page, self.labels(page))

    # -- persistence --------------------------------------------------------------------------
    def save(self, directory: str | os.PathLike[str]) -> None:
        require_fitted(self, "unary_")
        weights = {"unary": self.unary_.state_dict()}
        if self.pairwise_ is not None:
            weights["pairwise"] = self.pairwise_.state_dict()
        state = {
            "block_scaler": {"mean": self.block_scaler_.mean.tolist(), "scale": self.block_scaler_.scale.tolist()},
            "edge_scaler": {"mean": self.edge_scaler_.mean.tolist(), "scale": self.edge_scaler_.scale.tolist()},
            "history": self.history_,
        }
        save_torch_model(self, directory, MODEL_NAME, weights, state)

    def load(self, directory: str | os.PathLike[str]) -> Web2Text:
        weights, state = load_torch_model(self, directory, MODEL_NAME)
        self.block_scaler_ = Standardiser(*(np.asarray(state["block_scaler"][k]) for k in ("mean", "scale")))
        self.edge_scaler_ = Standardiser(*(np.asarray(state["edge_scaler"][k]) for k in ("mean", "scale")))
        self.history_ = state["history"]
        self.unary_ = self._net(len(BLOCK_FEATURES), 2)
        self.unary_.load_state_dict(weights["unary"])
        self.unary_.eval()
        self.pairwise_ = None
        if "pairwise" in weights:
            self.pairwise_ = self._net(len(EDGE_FEATURES), 4)
            self.pairwise_.load_state_dict(weights["pairwise"])
            self.pairwise_.eval()
        return self
