"""The cascade study's routers: the pages of highest score, and the perfect router's bound."""

import numpy as np

from studies.cascade import none_sure, route, within_budget


def test_a_perfect_router_sends_the_largest_gains_and_never_a_page_without_one():
    gain = np.array([0.1, -0.2, 0.3, 0.0, 0.05])
    assert route(gain, 2, gain).tolist() == [True, False, True, False, False]
    assert route(gain, 4, gain).tolist() == [True, False, True, False, True]
    assert not route(gain, 0, gain).any()


def test_a_scored_router_sends_the_pages_of_highest_score_whatever_they_gain():
    scores = np.array([0.3, 0.9, 0.1, 0.5])
    assert route(scores, 2).tolist() == [False, True, False, True]


def test_a_budget_sends_the_longest_run_of_highest_scores_that_fits_it():
    scores = np.array([0.9, 0.1, 0.5, 0.7])
    cost = np.array([10.0, 1.0, 5.0, 30.0])
    # in score order: 10, then 30 overruns 25 and stops the run (a threshold sends all above it)
    assert within_budget(scores, cost, 25.0).tolist() == [True, False, False, False]
    assert within_budget(scores, cost, 45.0).tolist() == [True, False, True, True]
    assert not within_budget(scores, cost, 5.0).any()
    assert within_budget(scores, cost, -1.0).sum() == 0


def test_a_budgeted_perfect_router_skips_pages_without_a_gain():
    gain = np.array([0.2, -0.1, 0.05])
    cost = np.array([1.0, 1.0, 1.0])
    assert within_budget(gain, cost, 10.0, gain).tolist() == [True, False, True]


def test_the_pages_sure_of_no_block_go_first_whatever_their_doubt():
    # signals' third column: the share of words in blocks of p >= 0.5
    x = np.array([[0.30, 0.4, 0.5], [0.06, 0.06, 0.0], [0.20, 0.3, 0.2], [0.01, 0.01, 0.0]])
    assert none_sure(x).tolist() == [False, True, False, True]
    scores = np.where(none_sure(x), np.inf, x[:, 0])
    assert route(scores, 2).tolist() == [False, True, False, True]
    assert route(scores, 3).tolist() == [True, True, False, True]
    assert within_budget(scores, np.ones(4), 1.0).tolist() == [False, True, False, False]
