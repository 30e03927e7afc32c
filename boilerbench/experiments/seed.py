"""Seeding of every random number generator a run may use."""

from __future__ import annotations

import random
import sys

import numpy as np


def seed_everything(seed: int) -> None:
    """Seed Python, NumPy and torch, with deterministic CPU kernels on one thread.

    torch's CPU kernels split their sums by thread, so a model fitted with 2 threads differs from
    one fitted with 1 (Web2Text's labels on CleanEval did), and a launcher's workers
    inherit whatever count their parent had: one thread, always, makes a learned run give the
    same numbers under ``python run.py``, a parallel multirun and a test. torch is seeded when
    something (a learned extractor's module) has imported it: heuristic runs do not pay its
    import time. Call this after instantiating the extractor.
    """
    random.seed(seed)
    np.random.seed(seed)
    torch = sys.modules.get("torch")
    if torch is None:
        return
    torch.manual_seed(seed)
    torch.set_num_threads(1)
    torch.use_deterministic_algorithms(True, warn_only=True)
