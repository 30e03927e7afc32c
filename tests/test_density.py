"""CETD's counts and densities on a hand-made page, worked out by hand; its selection rules."""

import math

import numpy as np
import pytest

from boilerbench.datasets.blocks import segment
from boilerbench.datasets.page import Page
from boilerbench.errors import ConfigError
from boilerbench.extractors.cetd import CETD, composite_text_density, density_sum, text_density
from boilerbench.extractors.dom_stats import dom_stats

# Elements in pre-order: 0 body, 1 div#nav, 2 a, 3 a, 4 div#main, 5 p, 6 p, 7 a.
# Blocks: "Home" (a2), "News" (a3), "Twenty chars of text" (p5), "More" (p6), "link" (a7),
# "text" (the tail of a7, held by p6).
PAGE = (
    "<html><head><title>T</title></head><body>"
    '<div id="nav"><a href="/">Home</a><a href="/x">News</a></div>'
    '<div id="main"><p>Twenty chars of text</p><p>More <a href="/y">link</a> text</p></div>'
    "</body></html>"
)


@pytest.fixture()
def stats():
    return dom_stats(segment(PAGE))


def test_counts_by_hand(stats):
    assert stats.tags == ["body", "div", "a", "a", "div", "p", "p", "a"]
    assert list(stats.own) == [0, 0, 4, 4, 0, 20, 8, 4]
    assert list(stats.C) == [40, 8, 4, 4, 32, 20, 12, 4]
    assert list(stats.T) == [7, 2, 0, 0, 3, 0, 1, 0]
    assert list(stats.LC) == [12, 8, 4, 4, 4, 0, 4, 4]
    # LT, the authors' way: nav = its two <a>; p6 = its <a>; main = p6's 1 (p5 has no link);
    # body = nav's 2 + 1 (nav is made only of links) + main's 1.
    assert list(stats.LT) == [4, 2, 0, 0, 1, 0, 1, 0]
    assert list(stats.block_owner) == [2, 3, 5, 6, 7, 6]
    assert list(stats.block_start) == [0, 0, 0, 1, 2, 2, 3, 4]
    assert list(stats.block_end) == [6, 2, 1, 2, 6, 3, 6, 5]


def test_text_density_by_hand(stats):
    np.testing.assert_allclose(text_density(stats), [40 / 7, 4, 4, 4, 32 / 3, 20, 12, 4])


def test_composite_text_density_by_hand(stats):
    ratio = 12 / 40  # LC_b / C_b
    ctd = composite_text_density(stats)
    # p6: C 12, T 1, LC 4, LT 1, nLC 8
    assert ctd[6] == pytest.approx(
        12 * math.log(12 * 1 / (4 * 1)) / math.log(math.log(12 * 4 / 8 + ratio * 12 + math.e))
    )
    # p5: no links, so LC, LT and T read as 1 and nLC = C
    assert ctd[5] == pytest.approx(20 * math.log(20) / math.log(math.log(20 * 1 / 20 + ratio * 20 + math.e)))
    # nav: C 8 = LC 8, so nLC = 0 reads as 1: ln(8*2 / (8*2)) = 0
    assert ctd[1] == pytest.approx(0.0)
    body = 40 / 7 * math.log(40 * 7 / (12 * 4)) / math.log(math.log(40 * 12 / 28 + ratio * 40 + math.e))
    assert ctd[0] == pytest.approx(body)


def test_density_sum_by_hand(stats):
    td = text_density(stats)
    ds = density_sum(stats, td, "td")
    # leaves: their own density; main: its children 20 + 12; p6: its <a> 4 + loose "More" 4 + "text" 4
    assert ds[5] == pytest.approx(20) and ds[2] == pytest.approx(4)
    assert ds[4] == pytest.approx(32) and ds[6] == pytest.approx(12)
    assert ds[0] == pytest.approx(4 + 32 / 3)
    ratio = 12 / 40
    ctd = composite_text_density(stats)
    loose = 2 * (4 * math.log(4) / math.log(math.log(1 + ratio * 4 + math.e)))
    assert density_sum(stats, ctd, "ctd")[6] == pytest.approx(ctd[7] + loose)


@pytest.mark.parametrize("density", ["td", "ctd"])
@pytest.mark.parametrize("selection", ["densitysum", "threshold"])
def test_cetd_keeps_the_article_and_drops_the_menu(density, selection):
    page = Page("p", PAGE, "")
    result = CETD(density=density, selection=selection).extract(page)
    if selection == "densitysum":  # main's whole subtree is marked
        assert list(result.labels) == [0, 0, 1, 1, 1, 1]
        assert result.text == "Twenty chars of text\nMore link text"
    else:  # each element on its own: the inline link is below the threshold (TD 4 < 40/7; CTD 0)
        assert list(result.labels) == [0, 0, 1, 1, 0, 1]
        assert result.text == "Twenty chars of text\nMore text"


def test_densitysum_marks_a_second_region_above_the_threshold():
    # Two articles under body; the larger one sets the threshold, the second is dense enough
    # to be marked as well, the menu is not.
    html = (
        "<body><div><p>" + "a" * 300 + "</p><p>" + "b" * 200 + "</p></div>"
        "<ul><li><a>x</a></li><li><a>y</a></li><li><a>z</a></li></ul>"
        "<div><p>" + "c" * 150 + "</p></div></body>"
    )
    result = CETD(density="td", selection="densitysum").extract(Page("p", html, ""))
    assert list(result.labels) == [1, 1, 0, 0, 0, 1]


def test_hidden_elements_are_removed():
    html = (
        '<body><div><p>visible words here</p><p style="display: none">hidden words</p><p hidden>gone</p></div></body>'
    )
    stats = dom_stats(segment(html))
    assert list(stats.removed) == [False, False, False, True, True]
    assert stats.C[0] == len("visible words here") and stats.T[0] == 2
    result = CETD().extract(Page("p", html, ""))
    assert result.text == "visible words here"


def test_empty_page_gives_empty_extraction():
    for html in ("", "<html><body></body></html>", "<body><img src=x></body>"):
        result = CETD().extract(Page("p", html, ""))
        assert result.text == "" and result.labels.sum() == 0


def test_bad_options_are_config_errors():
    with pytest.raises(ConfigError, match="density"):
        CETD(density="nope")
    with pytest.raises(ConfigError, match="selection"):
        CETD(selection="nope")


def test_calls_with_other_options_share_one_walk_and_each_gets_its_own_counts():
    """What would fail: a walk cached with the first call's removed or link tags (the stack's
    density features and Web2Text's features read the same page with other link tags), or a
    page walked again for each call."""
    from boilerbench.extractors.dom_stats import dom_walk

    blocks = segment(PAGE)
    assert list(dom_stats(blocks).LC) == [12, 8, 4, 4, 4, 0, 4, 4]
    walk = dom_walk(blocks)
    links_only = dom_stats(blocks, link_tags=("p",))  # p5 and p6 hold 20 + 12 characters
    assert list(links_only.LC) == [32, 0, 0, 0, 32, 20, 12, 4]
    without_nav = dom_stats(blocks, removed_tags=("div",))  # both divs and all they hold
    assert list(without_nav.removed) == [False, True, True, True, True, True, True, True]
    assert list(without_nav.C) == [0] * 8
    assert dom_walk(blocks) is walk and dom_walk(segment(PAGE)) is not walk
    assert list(dom_stats(blocks).LC) == [12, 8, 4, 4, 4, 0, 4, 4]
    # the same options give the same stats, computed once; shared, their arrays are read-only
    assert dom_stats(blocks, link_tags=["p"]) is links_only
    with pytest.raises(ValueError, match="read-only"):
        links_only.LC[0] = 0


def test_subtree_mask_covers_nested_and_adjacent_subtrees_once():
    """A pre-order of 8 elements: 0 holds 1..7; 1 holds 2..3 (3 is its last child, so the two
    end together at 4); 4 holds 5; 6 and 7 are leaves. What would fail: a root counted open past
    its end (a shared end subtracted once), a root given twice closing early, or a leaf root
    painting its following sibling."""
    from boilerbench.extractors.dom_stats import subtree_mask

    end = np.array([8, 4, 3, 4, 6, 6, 7, 8])
    assert subtree_mask(np.array([1, 3, 3]), end).tolist() == [0, 1, 1, 1, 0, 0, 0, 0]
    assert subtree_mask(np.array([2, 6]), end).tolist() == [0, 0, 1, 0, 0, 0, 1, 0]
    assert subtree_mask(np.array([4, 5, 0]), end).tolist() == [1] * 8
    assert subtree_mask(np.array([], dtype=np.int64), end).tolist() == [0] * 8
