"""The LCS length and alignment, against a textbook dynamic programme on small random streams,
with and without the exact reductions (common prefix / suffix, tokens absent on the other side)."""

import numpy as np
import pytest

from boilerbench import lcs
from boilerbench.lcs import AlignmentTooLargeError, lcs_alignment, lcs_length


def dp_length(a: list[str], b: list[str]) -> int:
    table = np.zeros((len(a) + 1, len(b) + 1), dtype=int)
    for i, x in enumerate(a):
        for j, y in enumerate(b):
            table[i + 1, j + 1] = table[i, j] + 1 if x == y else max(table[i, j + 1], table[i + 1, j])
    return int(table[-1, -1])


def assert_optimal_alignment(a: list[str], b: list[str], match: np.ndarray) -> None:
    assert match.shape == (len(a),)
    hits = np.flatnonzero(match >= 0)
    targets = match[hits]
    assert np.all(np.diff(targets) > 0), "matches must be strictly increasing in b"
    assert all(a[i] == b[j] for i, j in zip(hits, targets, strict=True))
    assert len(hits) == dp_length(a, b)


def streams(seed: int) -> tuple[list[str], list[str]]:
    rng = np.random.default_rng(seed)
    shared = [str(t) for t in rng.integers(0, 5, int(rng.integers(0, 30)))]
    a = [str(t) for t in rng.integers(0, 8, int(rng.integers(0, 6)))] + shared
    b = shared + [str(t) for t in rng.integers(3, 12, int(rng.integers(0, 6)))]
    if seed % 2:
        a, b = list(reversed(a)), list(reversed(b))
    return a, b


@pytest.mark.parametrize("seed", range(40))
@pytest.mark.parametrize("reduce", [False, True])
def test_length_and_alignment_are_optimal(seed, reduce, monkeypatch):
    if reduce:
        monkeypatch.setattr(lcs, "REDUCE_ABOVE_CELLS", 0)
    a, b = streams(seed)
    assert lcs_length(a, b) == dp_length(a, b)
    assert_optimal_alignment(a, b, lcs_alignment(a, b))


def test_hand_computed_cases(monkeypatch):
    monkeypatch.setattr(lcs, "REDUCE_ABOVE_CELLS", 0)
    # prefix "x y" and suffix "z" matched one to one; "q" and "r" occur on one side only
    a, b = ["x", "y", "q", "a", "b", "z"], ["x", "y", "b", "r", "a", "z"]
    assert lcs_length(a, b) == 4
    assert lcs_alignment(a, b)[[0, 1, 2, 5]].tolist() == [0, 1, -1, 5]
    assert lcs_length([], ["a"]) == 0 and lcs_alignment([], ["a"]).shape == (0,)
    assert lcs_alignment(["a", "b"], []).tolist() == [-1, -1]
    assert lcs_length(["a"] * 3, ["a"] * 3) == 3


def test_a_huge_but_almost_equal_pair_is_fast_and_exact():
    """3 million tokens each, differing only in words the other side lacks: nothing is left to
    align after the reductions (without them: 9e12 cells, hours)."""
    unit = ["the", "bridge", "will", "close"]
    a = (["home", "news"] + unit) * 500_000
    b = unit * 500_000 + ["footer"]
    assert lcs_length(a, b) == 2_000_000
    match = lcs_alignment(a, b)
    assert int((match >= 0).sum()) == 2_000_000 and match[2] == 0 and match[-1] == 1_999_999


def test_what_remains_too_large_is_a_clear_error(monkeypatch):
    monkeypatch.setattr(lcs, "REDUCE_ABOVE_CELLS", 0)
    monkeypatch.setattr(lcs, "MAX_LENGTH_CELLS", 10)
    monkeypatch.setattr(lcs, "MAX_ALIGNMENT_CELLS", 10)
    a, b = ["a", "b", "c", "d"], ["d", "c", "b", "a"]
    with pytest.raises(AlignmentTooLargeError, match="4 x 4 tokens"):
        lcs_length(a, b)
    with pytest.raises(AlignmentTooLargeError, match="cannot align"):
        lcs_alignment(a, b)


def common_subsequence(a: list[str], b: list[str], match: np.ndarray) -> int:
    """The number of matched tokens, after checking that ``match`` is a common subsequence."""
    hits = np.flatnonzero(match >= 0)
    assert np.all(np.diff(match[hits]) > 0) and all(a[i] == b[j] for i, j in zip(hits, match[hits], strict=True))
    return len(hits)


def test_a_split_alignment_stays_within_its_cells_and_finds_the_lcs_through_unique_anchors(monkeypatch):
    """A text (words that repeat, and every tenth one a word of its own) against the same text
    with a quarter of its words dropped: the anchors are the unique words, every exact part fits
    the bound, and the common subsequence found is the longest."""
    rng = np.random.default_rng(3)
    a = [f"u{k}" if k % 10 == 0 else f"w{rng.integers(0, 20)}" for k in range(2_000)]
    b = [t for t in a if rng.random() > 0.25]
    sizes: list[int] = []
    matching = lcs._matching
    monkeypatch.setattr(lcs, "_matching", lambda x, y: sizes.append(len(x) * len(y)) or matching(x, y))
    match = lcs_alignment(a, b, split_above=5_000)
    assert sizes and max(sizes) <= 5_000
    assert common_subsequence(a, b, match) == len(b) == lcs_length(a, b)
    sizes.clear()
    assert common_subsequence(a, b, lcs_alignment(a, b)) == len(b) and max(sizes) > 5_000  # unbounded: whole


def test_a_split_alignment_without_anchors_over_its_bound_is_refused():
    a, b = ["x", "y"] * 100, ["y", "x"] * 100  # no token occurs once
    with pytest.raises(AlignmentTooLargeError, match="200 x 200 tokens"):
        lcs_alignment(a, b, split_above=1_000)
    assert common_subsequence(a, b, lcs_alignment(a, b, split_above=40_000)) == 199  # within the bound: exact


def test_patience_anchors_keep_the_longest_run_in_the_same_order():
    a = np.array([0, 1, 2, 3, 4, 5, 9, 9])
    b = np.array([9, 3, 0, 1, 5, 2, 9, 4])  # 0 1 2 4 in order on both sides (3 and 5 are out of it)
    pa, pb = lcs._anchors(a, b)
    assert pa.tolist() == [0, 1, 2, 4] and pb.tolist() == [2, 3, 5, 7]


def test_a_members_vote_is_aligned_within_the_vote_bound(monkeypatch):
    """A text-only member's vote is aligned with ``split_above``: over the bound and without an
    anchor, the member fails on the page (no vote) instead of taking the memory."""
    from boilerbench.datasets.page import Page
    from boilerbench.extractors.all_text import AllText
    from boilerbench.extractors.base import Extraction
    from boilerbench.extractors.members import FAILED, Member

    class TextOnly(AllText):
        def extract(self, page):
            return Extraction(" ".join(["y x"] * 100))  # no labels: the vote is aligned

    page = Page("p", "<p>" + " ".join(["x y"] * 50) + "</p><p>" + " ".join(["y x"] * 50) + "</p>", "")
    member = Member("text", {"_target_": "TextOnly"}, TextOnly(), "v")
    assert member.labels(page).tolist() == [1, 1]  # 199 of the 200 tokens match, within the bound
    monkeypatch.setattr("boilerbench.extractors.members.VOTE_ALIGNMENT_CELLS", 100)
    assert Member("text", {"_target_": "TextOnly"}, TextOnly(), "v2").labels(page).tolist() == [FAILED, FAILED]
