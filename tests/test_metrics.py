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
    word_prf,
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


def test_lcs_error_by_hand():
    from boilerbench.evaluation import is_wrong, lcs_error

    # result "a b c d e" against gold "a b x c": LCS "a b c" = 3 of 5 result tokens
    assert lcs_error("a b c d e", "a b x c") == pytest.approx(1 - 3 / 5)
    assert lcs_error("A, b. c", "a b c more gold") == 0.0  # normalised tokens; extra gold is not an error
    assert lcs_error("", "gold") == 1.0 and lcs_error("", "") == 0.0
    assert lcs_error("x y z", "") == 1.0
    assert not is_wrong(0.2) and is_wrong(0.2001)
    assert not is_wrong(lcs_error("a b c d e", "a b c d"))  # error 1/5 = 0.2: not wrong
    assert is_wrong(lcs_error("a b c x y", "a b c"))  # error 2/5


def test_rouge_lsum_by_hand():
    from boilerbench.evaluation import PRF, rouge_lsum

    # one reference sentence "a b c d" against candidates "a x b" and "c d y":
    # the union of the two LCS hits is {a, b, c, d}: 4 hits of 4 reference and 6 predicted tokens
    r = rouge_lsum("a x b\nc d y", "a b c d")
    assert (r.recall, r.precision) == (1.0, pytest.approx(4 / 6))
    assert r.f1 == pytest.approx(2 * (4 / 6) / (1 + 4 / 6))
    # sentences also end after . ! ? (here "b." is not "b": punctuation is kept, so only a, c, d hit)
    assert rouge_lsum("a x b. c d y", "a b c d") == PRF(0.5, 0.75, 0.6)
    # case is kept (whitespace tokens); a token is credited at most as often as it occurs
    assert rouge_lsum("The end.", "the end.").recall == 0.5
    assert rouge_lsum("a a a", "a").precision == pytest.approx(1 / 3)
    # Bevendorff et al.'s empty conventions
    assert rouge_lsum("", "") == PRF(1.0, 1.0, 1.0)
    assert rouge_lsum("x", "") == PRF(0.0, 1.0, 0.0)
    assert rouge_lsum("", "gold") == PRF(0.0, 0.0, 0.0)


def test_wcxb_word_f1_counts_word_characters_runs():
    # pred words: state of the art model (5); gold: the state of art (4); overlap 4
    prf = word_prf("State-of-the-art model.", "The state of art")
    assert prf.precision == pytest.approx(0.8) and prf.recall == 1.0
    assert prf.f1 == pytest.approx(2 * 0.8 / 1.8)
    # the token metric sees "state-of-the-art" as one token, not in the gold
    assert token_prf("State-of-the-art model.", "The state of art").f1 == 0.0
    assert word_prf("", "").f1 == 1.0 and word_prf("x", "").f1 == 0.0 and word_prf("", "x").f1 == 0.0
