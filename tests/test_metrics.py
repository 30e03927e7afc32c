"""Metrics against hand-computed values."""

import numpy as np
import pytest

from boilerbench.evaluation import (
    CleanEvalCounts,
    block_counts,
    block_metrics,
    cleaneval_counts,
    cleaneval_micro,
    cleaneval_score,
    token_prf,
)


def test_identical_texts_score_100():
    assert cleaneval_score("The cat sat on the mat.", "The cat sat on the mat.") == 100.0


def test_empty_against_non_empty_scores_0():
    assert cleaneval_score("", "some gold text") == 0.0
    assert cleaneval_score("some output", "") == 0.0


def test_both_empty_scores_100():
    assert cleaneval_score("", "   ") == 100.0


def test_punctuation_and_case_are_ignored():
    assert cleaneval_score("Hello, World! Is it; fine: yes.", "hello world is it fine yes") == 100.0
    # Only , ; : . ? ! are deleted: other punctuation still counts.
    assert cleaneval_score("rock-n-roll", "rock n roll") == 0.0


def test_markers_and_url_line_are_ignored():
    gold = "URL: http://example.com/page\n\n<h>Title here\n<p>First paragraph.\n<l>item"
    assert cleaneval_score("Title here First paragraph item", gold) == 100.0


def test_partial_overlap_hand_computed():
    # tokens a b c d vs a x c: LCS = 2 (a, c); 100 * 2 / (4 + 3 - 2) = 40
    counts = cleaneval_counts("a b c d", "a x c")
    assert counts == CleanEvalCounts(lcs=2, n_pred=4, n_gold=3)
    assert counts.score == pytest.approx(40.0)
    # order matters: reversed tokens share an LCS of 1
    assert cleaneval_score("c b a", "a b c") == pytest.approx(100 * 1 / (3 + 3 - 1))


def test_micro_aggregate_pools_counts():
    counts = [CleanEvalCounts(2, 4, 3), CleanEvalCounts(1, 1, 1)]
    # (2 + 1) / ((4 + 3 - 2) + (1 + 1 - 1)) = 3 / 6
    assert cleaneval_micro(counts) == pytest.approx(50.0)
    assert cleaneval_micro([]) == 100.0


def test_token_bag_of_words_hand_computed():
    prf = token_prf("a a b", "a b b c")
    # overlap = min(2,1) + min(1,2) = 2; P = 2/3, R = 2/4, F1 = 4/7
    assert prf.precision == pytest.approx(2 / 3)
    assert prf.recall == pytest.approx(0.5)
    assert prf.f1 == pytest.approx(4 / 7)


def test_token_empty_conventions():
    assert token_prf("", "").f1 == 1.0
    empty_pred = token_prf("", "gold words")
    assert (empty_pred.precision, empty_pred.recall, empty_pred.f1) == (0.0, 0.0, 0.0)


def test_block_metrics_micro_and_macro():
    page1 = block_counts(np.array([1, 1, 0, 0]), np.array([1, 0, 1, 0]))
    page2 = block_counts(np.array([1]), np.array([1]))
    m = block_metrics([page1, page2])
    # pooled: tp 2, predicted 3, gold 3, correct 2 + 1 of 5 blocks
    assert m["precision"] == pytest.approx(2 / 3)
    assert m["recall"] == pytest.approx(2 / 3)
    assert m["f1"] == pytest.approx(2 / 3)
    assert m["accuracy"] == pytest.approx(3 / 5)
    # per-page F1: 0.5 and 1.0
    assert m["macro_f1"] == pytest.approx(0.75)


def test_block_counts_reject_mismatched_lengths():
    with pytest.raises(ValueError):
        block_counts(np.array([1, 0]), np.array([1]))
