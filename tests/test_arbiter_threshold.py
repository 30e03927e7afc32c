"""The arbiter's threshold over redrawn inner folds (studies/arbiter_threshold.py): the gain curve
and the pick from a curve, by hand."""

import numpy as np
import pytest

from studies.arbiter_sources import curve_threshold, gain_curve, one_se_threshold


def test_the_gain_curve_takes_the_alternative_above_each_candidate_only():
    probability = np.array([0.9, 0.7, 0.52, 0.3])
    gain = np.array([0.4, -0.2, 0.1, 0.8])  # the last row's gain is never taken: 0.3 is below every cut
    curve = gain_curve(probability, gain)
    # 0.5: rows 1-3 (0.3 / 4); 0.55 to 0.65: rows 1-2 (0.2 / 4); 0.7 to 0.8: row 1 (0.4 / 4), as 0.7 is
    # not above 0.7
    assert curve.tolist() == pytest.approx([0.075, 0.05, 0.05, 0.05, 0.1, 0.1, 0.1])


def test_the_pick_is_the_largest_gain_and_the_highest_candidate_on_a_tie():
    assert curve_threshold(np.array([0.075, 0.05, 0.05, 0.05, 0.1, 0.1, 0.1])) == 0.8
    assert curve_threshold(np.array([0.3, 0.2, 0.2, 0.1, 0.0, 0.0, 0.0])) == 0.5
    # averaged curves of two seeds: the one each picks differs (0.5 and 0.6), their mean ties 0.5 and 0.6
    mean = np.mean([[0.2, 0.1, 0.1, 0, 0, 0, 0], [0.1, 0.1, 0.2, 0, 0, 0, 0]], axis=0)
    assert curve_threshold(mean) == 0.6


def test_the_one_standard_error_pick_widens_with_the_spread_between_sites():
    probability = np.array([0.9, 0.9, 0.6, 0.6])
    gain = np.array([0.1, 0.0, 0.1, 0.0])  # curve: 0.05 at 0.5 and 0.55, 0.025 above
    # each site gains 0.1 above 0.5: no spread between sites, so the best (the higher of the tie)
    assert one_se_threshold(probability, gain, ["a", "a", "b", "b"]) == 0.55
    # site a gains 0.2 and site b nothing: the error, sqrt(2 * 0.02) / 4 = 0.05, reaches down to
    # 0.0, so the highest candidate is within it
    assert one_se_threshold(probability, gain, ["a", "b", "a", "b"]) == 0.8
