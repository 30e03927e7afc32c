"""Seeding of every random number generator a run may use."""

from __future__ import annotations

import random
import sys

import numpy as np


def seed_everything(seed: int) -> None:
    """Seed Python, NumPy and torch, with deterministic CPU kernels.

    torch is seeded when something (a learned extractor's module) has imported it: heuristic
    runs do not pay its import time. Call this after instantiating the extractor.
    """
    random.seed(seed)
    np.random.seed(seed)
    torch = sys.modules.get("torch")
    if torch is None:
        return
    torch.manual_seed(seed)
    torch.use_deterministic_algorithms(True, warn_only=True)
