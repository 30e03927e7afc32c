"""BTE: the linear-time span equals the brute-force maximum of T(i, j)."""

import itertools

import numpy as np

from boilerbench.datasets.page import Page
from boilerbench.extractors.bte import BTE, bte_span


def brute_force(words, tags):
    """Best (score, i, j) over all spans of whole blocks: words inside minus tags inside."""
    best = None
    for i, j in itertools.combinations_with_replacement(range(len(words)), 2):
        score = sum(words[i : j + 1]) - sum(tags[i + 1 : j + 1])
        if best is None or score > best[0]:
            best = (score, i, j)
    return best


def span_score(words, tags, i, j):
    return sum(words[i : j + 1]) - sum(tags[i + 1 : j + 1])


def test_hand_computed_span():
    words = np.array([1, 10, 1, 8, 1])
    tags = np.array([5, 2, 6, 1, 9])
    # blocks 1..3: 10 + 1 + 8 words - (6 + 1) tags = 12, the best
    assert bte_span(words, tags) == (1, 3)


def test_matches_brute_force_on_random_pages():
    rng = np.random.default_rng(0)
    for _ in range(300):
        n = int(rng.integers(1, 12))
        words = rng.integers(1, 15, n)
        tags = rng.integers(0, 20, n)
        i, j = bte_span(words, tags)
        assert span_score(words, tags, i, j) == brute_force(list(words), list(tags))[0]


def test_empty_page():
    assert bte_span(np.zeros(0, int), np.zeros(0, int)) == (0, -1)
    assert BTE().extract(Page("e", "", "")).text == ""


def test_extracts_the_article_not_the_menu():
    menu = "".join(f'<li><a href="/{k}">Menu {k}</a></li>' for k in range(10))
    article = "<p>" + " ".join(["word"] * 60) + "</p><p>" + " ".join(["more"] * 40) + "</p>"
    page = Page("p", f"<body><ul>{menu}</ul><div>{article}</div><div><a>Footer</a></div></body>", "")
    result = BTE().extract(page)
    assert result.labels.tolist() == [0] * 10 + [1, 1, 0]
    assert result.text.split() == ["word"] * 60 + ["more"] * 40
