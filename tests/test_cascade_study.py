"""The cascade study's routers: the pages of highest score, and the perfect router's bound."""

import numpy as np

from studies.cascade import route


def test_a_perfect_router_sends_the_largest_gains_and_never_a_page_without_one():
    gain = np.array([0.1, -0.2, 0.3, 0.0, 0.05])
    assert route(gain, 2, gain).tolist() == [True, False, True, False, False]
    assert route(gain, 4, gain).tolist() == [True, False, True, False, True]
    assert not route(gain, 0, gain).any()


def test_a_scored_router_sends_the_pages_of_highest_score_whatever_they_gain():
    scores = np.array([0.3, 0.9, 0.1, 0.5])
    assert route(scores, 2).tolist() == [False, True, False, True]
