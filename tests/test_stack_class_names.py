"""Container names (:mod:`boilerbench.extractors.stack.class_names`) on hand-made pages, with the
shares computed by hand."""

from __future__ import annotations

import numpy as np
import pytest

from boilerbench.datasets.blocks import segment
from boilerbench.extractors.stack.class_names import (
    FAMILY_NAMES,
    container_shares,
    gated_share_names,
    gated_shares,
    name_families,
)

BODY, COMMENT, CHROME, NAVIGATION = (FAMILY_NAMES.index(f) for f in ("body", "comment", "chrome", "navigation"))


def _bits(*families: str) -> int:
    return sum(1 << FAMILY_NAMES.index(f) for f in families)


@pytest.mark.parametrize(
    ("name", "families"),
    [
        ("top-ads", ("chrome",)),
        ("uploads", ()),  # a word, not a substring
        ("headline", ()),  # not "header"
        ("siteNavBar", ("navigation",)),  # camelCase splits
        ("comments_2", ("comment",)),  # digits split
        ("entry-content", ("body",)),
        ("social-share-footer", ("sharing", "chrome")),
    ],
)
def test_a_name_is_read_word_by_word(name, families):
    assert name_families(name) == _bits(*families)


def test_each_block_reads_the_share_of_its_nearest_named_container():
    """Characters: article paragraph 40, comment area 20 + nested comment 10, ads 10, uploads 10,
    nav 10: the page holds 100. The nearest container wins (the nested comment reads its own 10,
    not the area's 30); the body family reads the wrapper's 70 in every block inside it; html and
    body are never containers. What would fail: the farthest container taken, a substring match,
    the body element's class read, shares of words instead of characters."""
    a, c, d, x = "a" * 40, "c" * 20, "d" * 10, "x" * 10
    html = (
        "<html><body class='post-template comment-open'>"
        f"<div id='main-content'><p>{a}</p><div class='comments-area'><p>{c}</p>"
        f"<div class='comment reply'><p>{d}</p></div></div></div>"
        f"<div class='top-ads'><p>{x}</p></div><div class='uploads'><p>{x}</p></div>"
        f"<nav class='siteNavBar'><a>{x}</a></nav></body></html>"
    )
    blocks = segment(html)
    assert blocks.texts == [a, c, d, x, x, x]
    shares = container_shares(blocks)
    assert shares[:, BODY].tolist() == [0.7, 0.7, 0.7, 0.0, 0.0, 0.0]
    assert shares[:, COMMENT].tolist() == [0.0, 0.3, 0.1, 0.0, 0.0, 0.0]
    assert shares[:, CHROME].tolist() == [0.0, 0.0, 0.0, 0.1, 0.0, 0.0]
    assert shares[:, NAVIGATION].tolist() == [0.0, 0.0, 0.0, 0.0, 0.0, 0.1]
    others = [k for k in range(len(FAMILY_NAMES)) if k not in (BODY, COMMENT, CHROME, NAVIGATION)]
    assert not shares[:, others].any()


def test_a_page_without_names_reads_zero_and_the_gate_scales_both_sets():
    blocks = segment("<html><body><div><p>one paragraph</p></div><p>another</p></body></html>")
    assert container_shares(blocks).tolist() == [[0.0] * len(FAMILY_NAMES)] * 2
    shares = np.array([[0.5, 0, 0, 0, 0, 1.0]])
    gated = gated_shares(shares, p_article=0.25, p_forum=0.75)
    assert gated.tolist() == [[0.125, 0, 0, 0, 0, 0.25, 0.375, 0, 0, 0, 0, 0.75]]
    names = gated_share_names()
    assert len(names) == gated.shape[1] and names[0] == "names.comment.article" and names[-1] == "names.body.forum"
