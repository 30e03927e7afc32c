"""The stack's LightGBM prediction runs on the stack's ``n_jobs`` threads (issue 37): OpenMP's
default thread pool made each page's prediction several times slower on a busy machine, and a
worker process forked after its parent had predicted hung in its first prediction."""

import os
import time

import numpy as np
import pytest

from boilerbench.extractors.all_text import AllText
from boilerbench.extractors.stack import Stack

lightgbm = pytest.importorskip("lightgbm")


class Recording:
    """A LightGBM booster stand-in that records the keyword arguments of ``predict``."""

    best_iteration = 0

    def predict(self, rows, **kwargs):
        self.kwargs = kwargs
        return np.full(len(rows), 0.25)


def test_lightgbm_predicts_on_the_stacks_threads():
    model = Recording()
    p = Stack(members={"all_text": AllText()}, n_jobs=1)._predict(model, np.zeros((3, 4)))
    assert model.kwargs == {"num_iteration": None, "num_threads": 1}
    assert p.tolist() == [0.25, 0.25, 0.25]


def test_a_worker_forked_after_the_parent_predicted_can_predict():
    rng = np.random.default_rng(0)
    X = rng.random((500, 5))
    booster = lightgbm.train(
        {"objective": "binary", "verbose": -1, "num_threads": 1}, lightgbm.Dataset(X, (X[:, 0] > 0.5).astype(int)), 5
    )
    stack = Stack(members={"all_text": AllText()}, n_jobs=1)
    expected = stack._predict(booster, X)
    pid = os.fork()
    if pid == 0:  # the child: exit 0 only when it predicts what the parent did
        os._exit(0 if np.array_equal(stack._predict(booster, X), expected) else 1)
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        done, status = os.waitpid(pid, os.WNOHANG)
        if done:
            assert os.waitstatus_to_exitcode(status) == 0
            return
        time.sleep(0.05)
    os.kill(pid, 9)
    os.waitpid(pid, 0)
    pytest.fail("the forked child hung in LightGBM's predict")
