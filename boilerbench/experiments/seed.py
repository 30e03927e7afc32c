"""Seeding of every random number generator a run may use."""

from __future__ import annotations

import random
import sys

import numpy as np


def seed_everything(seed: int) -> None:
    """Seed Python, NumPy and (if it is imported or installed) torch, with deterministic CPU kernels."""
    random.seed(seed)
    np.random.seed(seed)
    torch = sys.modules.get("torch")
    if torch is None:
        try:
            import torch  # noqa: F401  (lazy: heuristic runs should not pay torch's import time)
        except ImportError:
            return
    torch.manual_seed(seed)
    torch.use_deterministic_algorithms(True, warn_only=True)
