"""The cascade study's bound: a perfect router sends the pages the accurate stack gains most on."""

import numpy as np

from studies.cascade import perfect_router


def test_a_perfect_router_sends_the_largest_gains_and_never_a_page_without_one():
    gain = np.array([0.1, -0.2, 0.3, 0.0, 0.05])
    assert perfect_router(gain, 2).tolist() == [True, False, True, False, False]
    assert perfect_router(gain, 4).tolist() == [True, False, True, False, True]
    assert not perfect_router(gain, 0).any()
