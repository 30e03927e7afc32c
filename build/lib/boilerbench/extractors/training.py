"""Helpers shared by the neural extractors' training loops."""

from __future__ import annotations

import random
from collections.abc import Sequence
from typing import TypeVar

from torch import nn

from boilerbench.datasets.page import Page
from boilerbench.extractors.derived import with_text

ModuleT = TypeVar("ModuleT", bound=nn.Module)


def hold_out(
    train: Sequence[Page], validation: Sequence[Page] | None, share: float, rng: random.Random
) -> tuple[list[Page], list[Page]]:
    """Training and validation pages with text; when there are no validation pages (a
    cross-validation fold, L3S-GN1) a ``share`` of the training pages, drawn with ``rng``, is held
    out for early stopping instead."""
    train = with_text(train)
    validation = with_text(validation or [])
    if not validation and len(train) > 1:
        held = set(rng.sample(range(len(train)), max(1, round(share * len(train)))))
        validation = [p for i, p in enumerate(train) if i in held]
        train = [p for i, p in enumerate(train) if i not in held]
    return train, validation


def balanced_class_weights(positives: float, total: float) -> tuple[float, float]:
    """Loss weights (content, boilerplate) of ``n / (2 n_c)`` (scikit-learn's "balanced"), so
    both classes weigh the same in total; a class with no examples counts as one."""
    return total / (2 * max(positives, 1.0)), total / (2 * max(total - positives, 1.0))


class EarlyStopping:
    """Keeps a copy of the weights with the best validation score so far and says when
    ``patience`` evaluations in a row have not improved on it."""

    def __init__(self, patience: int) -> None:
        self.patience = patience
        self.best = float("-inf")
        self.state: dict | None = None
        self.stale = 0

    def update(self, score: float, net: nn.Module) -> bool:
        """Record an evaluation of ``net``; True when training should stop."""
        if score > self.best:
            self.best, self.stale = score, 0
            self.state = {k: v.detach().clone() for k, v in net.state_dict().items()}
            return False
        self.stale += 1
        return self.stale >= self.patience

    def restore(self, net: ModuleT) -> ModuleT:
        """Load the best weights into ``net`` and put it in evaluation mode."""
        if self.state is None:
            raise RuntimeError("no evaluation was recorded: nothing to restore")
        net.load_state_dict(self.state)
        return net.eval()
