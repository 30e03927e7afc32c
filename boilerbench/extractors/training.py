"""Helpers shared by the neural extractors' training loops."""

from __future__ import annotations

import random
from collections.abc import Sequence

from boilerbench.datasets.page import Page


def hold_out(train: Sequence[Page], validation: Sequence[Page] | None, share: float,
             rng: random.Random) -> tuple[list[Page], list[Page]]:
    """Training and validation pages with text; when there are no validation pages (a
    cross-validation fold, L3S-GN1) a ``share`` of the training pages, drawn with ``rng``, is held
    out for early stopping instead."""
    train = [p for p in train if len(p.blocks)]
    validation = [p for p in (validation or []) if len(p.blocks)]
    if not validation and len(train) > 1:
        held = set(rng.sample(range(len(train)), max(1, round(share * len(train)))))
        validation = [p for i, p in enumerate(train) if i in held]
        train = [p for i, p in enumerate(train) if i not in held]
    return train, validation
