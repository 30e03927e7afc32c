"""studies.seed_vote: the majority of a learned extractor's seed fits, on hand-made labels and pages."""

import numpy as np
import pandas as pd

from boilerbench.datasets.page import Page
from studies.seed_vote import MIN_GROUP, differences, majority, vote_text

PARAGRAPHS = ["first paragraph words here.", "second paragraph other words.", "third paragraph more words."]


def three_paragraphs() -> Page:
    html = "<html><body>" + "".join(f"<p>{p}</p>" for p in PARAGRAPHS) + "</body></html>"
    return Page("p", html, "\n".join(PARAGRAPHS[:2]))


def test_a_block_is_kept_where_more_than_half_of_the_fits_keep_it():
    # what would fail: a tie kept (two fits of four), or a failed fit's -1 counted as a keep
    fits = [np.array([1, 1, 0, 0, -1]), np.array([1, 0, 1, 0, -1]), np.array([1, 1, 0, 1, 1])]
    assert majority(fits).tolist() == [1, 1, 0, 0, 0]
    assert majority([np.array([1, 0]), np.array([0, 1]), np.array([1, 0]), np.array([0, 1])]).tolist() == [0, 0]


def test_the_vote_takes_a_fits_own_text_where_that_fit_voted_as_the_majority():
    # what would fail: the text rebuilt from the blocks, losing what the fit added beyond them
    page = three_paragraphs()
    assert len(page.blocks) == 3
    a, b = np.array([1, 1, 0]), np.array([1, 0, 1])
    texts = ["first fit's text and a product description", "second fit's text", "third fit's text"]
    assert vote_text(texts, [a, b, a], page) == texts[0]
    assert vote_text(texts, [b, a, a], page) == texts[1]  # the first fit that voted as the majority


def test_the_vote_joins_the_voted_blocks_where_no_fit_voted_as_the_majority():
    page = three_paragraphs()
    fits = [np.array([1, 1, 0]), np.array([0, 1, 1]), np.array([1, 0, 1])]  # the vote keeps all three
    text = vote_text(["A", "B", "C"], fits, page)
    assert [line.strip() for line in text.splitlines() if line.strip()] == PARAGRAPHS


def test_differences_are_given_per_page_type_only_where_it_has_enough_pages():
    # what would fail: a difference over a handful of pages shown as a figure, or the wrong sign
    n = MIN_GROUP
    types = ["forum"] * n + ["listing"] * n + ["product"] * (n - 1)
    ours = pd.DataFrame({"page_id": [str(k) for k in range(len(types))], "page_type": types})
    theirs = ours.copy()
    ours["token_f1"] = [0.9] * n + [0.5] * n + [0.7] * (n - 1)
    theirs["token_f1"] = [0.8] * n + [0.5] * n + [0.7] * (n - 1)
    cells = differences(ours, theirs, None)
    assert set(cells) == {"all", "forum", "listing"}
    assert cells["forum"].startswith("+0.100 [+0.100, +0.100]")
    assert cells["listing"].startswith("+0.000")
    assert cells["all"].startswith(f"{0.1 * n / len(types):+.3f}")
