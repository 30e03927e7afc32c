"""Readability's main-content candidate as the stack's block features, on a hand-made page."""

from __future__ import annotations

import math

import numpy as np
import pytest

from boilerbench.datasets.blocks import segment
from boilerbench.extractors.stack.candidates import CANDIDATE_FEATURES, candidate_features

P1 = "One, two, " + "x" * 120  # 130 characters, 2 commas: 1 + 2 + 1 = 4 points
P2 = "y" * 40  # 1 point
TEASER = "Teaser, " + "z" * 22  # 30 characters, 1 comma: 2 points
PAGE = (
    "<html><body><div id='nav'><a>Home</a><a>News</a></div>"
    f"<div class='article'><p>{P1}</p><p>{P2}</p></div>"
    f"<div class='sidebar'><p>{TEASER}</p></div></body></html>"
)


def test_the_article_div_is_the_top_candidate_and_the_sidebar_is_not_in_the_article():
    """By hand: the article div gains 4 + 1 points over its start of 5 (div) + 25 (class
    "article"), 35; the sidebar div 2 over 5 - 25, -18; body half of every point, 3.5, times one
    minus its link density (8 characters of links in 208), 3.3654. What would fail: points not
    reaching the grandparent, a class weight of the wrong sign, link density ignored, or a
    teaser that Readability leaves out marked as in the article."""
    blocks = segment(PAGE)
    assert blocks.texts == ["Home", "News", P1, P2, TEASER]
    f = candidate_features(blocks)
    assert f.shape == (5, len(CANDIDATE_FEATURES))
    assert f[:, 0].tolist() == [0, 0, 1, 1, 0]  # in the top candidate
    assert f[:, 1].tolist() == [0, 0, 1, 1, 0]  # in the article (the sidebar scores below 10)
    body = 3.5 * (1 - 8 / 208)
    assert f[:, 2] == pytest.approx([body / 35, body / 35, 1.0, 1.0, body / 35])
    assert f[:, 3] == pytest.approx([math.log1p(35)] * 5)


def test_a_sibling_paragraph_and_a_strong_sibling_join_the_article():
    """readability-lxml's sibling rule: a ``p`` beside the top candidate with more than 80
    characters and few links joins it; so does a sibling candidate scoring at least a fifth of
    the top (and 10). What would fail: siblings never considered, or the threshold ignored."""
    lead = "w" * 90
    page = (
        f"<html><body><div class='content'><p>{P1}</p><p>{P2}</p></div><p>{lead}</p>"
        f"<div class='post'><p>{P2}</p></div><div><p>{P2}</p></div></body></html>"
    )
    blocks = segment(page)
    f = candidate_features(blocks)
    # content: 5 + 25 + 5 = 35 (top); post: 5 + 25 + 1 = 31 >= 10; the plain div: 5 + 1 = 6 < 10
    assert f[:, 0].tolist() == [1, 1, 0, 0, 0]
    assert f[:, 1].tolist() == [1, 1, 1, 1, 0]


def test_a_page_without_paragraphs_has_zero_columns():
    blocks = segment("<html><body><a>Home</a><a>News</a></body></html>")
    assert np.array_equal(candidate_features(blocks), np.zeros((2, len(CANDIDATE_FEATURES))))
