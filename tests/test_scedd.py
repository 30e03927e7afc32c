"""SCEDD: the short-page classifier, the title rule and the position rules on hand-made pages."""

import pytest

from boilerbench.datasets.blocks import segment
from boilerbench.datasets.page import Page
from boilerbench.errors import ConfigError
from boilerbench.extractors.cetd import text_density
from boilerbench.extractors.dom_stats import dom_stats
from boilerbench.extractors.scedd import SCEDD, coarse_bytes, find_title, weighted_text_density

HEADER = "H" * 200  # dense, at line 0
CONTENT = "C" * 100  # the short main text, in the middle
FOOTER = "F" * 300  # the densest, at the last line
FILLER = "".join(f"<div><a>{i}</a></div>" for i in range(20))  # 20 lines of thin menu links


def position_page() -> Page:
    html = f"<body><div>{HEADER}</div>{FILLER}<p>{CONTENT}</p>{FILLER}<div>{FOOTER}</div></body>"
    return Page("p", html, CONTENT)


def test_line_estimate_counts_block_tags_before():
    stats = dom_stats(segment(position_page().html))
    # body 0, header div at line 1 (after body), 20 x (div, a), p, 20 x (div, a), footer div
    assert stats.n_lines == 1 + 1 + 20 + 1 + 20 + 1
    assert stats.line[1] == 1  # the header div
    p = stats.tags.index("p")
    assert stats.line[p] == 22
    assert stats.line[len(stats) - 1] == 43  # the footer div


def test_dense_footer_below_bottom_coef_and_header_above_top_coef_are_rejected():
    page = position_page()
    # default coefficients: footer (line 43 > 0.95 * 44) rejected, then header (1 < 0.05 * 44) rejected
    assert SCEDD(mode="short").extract(page).text == CONTENT
    # bottom_coef = 1 accepts the footer: it is the densest node
    assert SCEDD(mode="short", bottom_coef=1.0).extract(page).text == FOOTER
    # the footer is still rejected, but top_coef = 0 accepts the header
    assert SCEDD(mode="short", top_coef=0.0).extract(page).text == HEADER
    # one try only: the first candidate (the footer) is kept although it is out of place
    assert SCEDD(mode="short", max_tries=1).extract(page).text == FOOTER


def test_threshold_keeps_dense_descendants_and_drops_thin_ones():
    html = (
        "<body><div><a>nav</a></div><div><a>nav</a></div><div><a>nav</a></div><div><a>nav</a></div>"
        "<div id=post><p>" + "w" * 120 + "</p><p><a>share</a> <a>tweet</a></p></div>"
        "<div><a>nav</a></div><div><a>nav</a></div><div><a>nav</a></div><div><a>nav</a></div></body>"
    )
    stats = dom_stats(segment(html))
    density = weighted_text_density(stats, 0.5)
    p_links = [i for i, t in enumerate(stats.tags) if t == "p"][1]
    assert density[p_links] == pytest.approx((10 * 0.5) / 2)  # "share" + "tweet", halved, over 2 tags
    result = SCEDD(mode="short").extract(Page("p", html, ""))
    assert result.text == "w" * 120  # A is the first <p>; its path's minimum is above the link row


def test_title_matches_the_page_title_and_what_precedes_it_is_dropped():
    html = (
        "<html><head><title>Big News Today | Example Site</title></head><body>"
        "<div>" + "menu text that is long and dense " * 8 + "</div>"
        "<h1>Big News Today</h1><h2>A subtitle</h2>"
        "<p>"
        + "The short story. " * 5
        + "</p>"
        + "".join(f"<div><a>{i}</a></div>" for i in range(30))
        + "</body></html>"
    )
    page = Page("p", html, "")
    stats = dom_stats(page.blocks)
    title = find_title(stats, page.blocks.texts, "Big News Today | Example Site")
    assert stats.tags[title] == "h1"
    result = SCEDD(mode="short", top_coef=0.0).extract(page)
    # the denser menu before the title is never a candidate; the subtitle is skipped
    assert result.text == "Big News Today\n" + ("The short story. " * 5).strip()
    assert SCEDD(mode="short", top_coef=0.0, keep_title=False).extract(page).text == ("The short story. " * 5).strip()


def test_title_falls_back_to_h1_and_ignores_short_fragments():
    page = Page("p", "<body><a>Home</a><h1>Headline</h1><p>text</p></body>", "")
    stats = dom_stats(page.blocks)
    # "Home" is part of the title but much shorter than its core: no match; the first h1 wins
    assert stats.tags[find_title(stats, page.blocks.texts, "Home - A Long Headline Here")] == "h1"
    assert stats.tags[find_title(stats, page.blocks.texts, "")] == "h1"
    assert find_title(dom_stats(segment("<body><p>x</p></body>")), ["x"], "") is None


def test_classifier_routes_by_the_coarse_extraction_size():
    long_html = "<body><div><a>menu</a></div><p>" + "word " * 100 + "</p><p>Copyright</p></body>"
    short_html = "<body><div><a>menu</a></div><p>" + "word " * 20 + "</p><p>Copyright</p></body>"
    for html, size, expected in ((long_html, 499, "long"), (short_html, 99, "short")):
        page = Page("p", html, "")
        stats = dom_stats(page.blocks)
        assert coarse_bytes(stats, page.blocks.texts, text_density(stats)) == size
        info = SCEDD().extract(page).info
        assert info == {"page_class": expected, "branch": expected, "coarse_bytes": size}
    forced = SCEDD(mode="short").extract(Page("p", long_html, "")).info
    assert forced["page_class"] == "long" and forced["branch"] == "short"
    # the threshold counts UTF-8 bytes: 100 two-byte characters are 200 bytes
    assert SCEDD(short_threshold_bytes=150).extract(Page("p", "<p>" + "é" * 100 + "</p>", "")).info["branch"] == "long"


def test_long_pages_go_to_cetd():
    from boilerbench.extractors.cetd import CETD

    html = (
        "<body><div><a>menu</a> <a>links</a></div><div><p>"
        + "word " * 100
        + "</p><p>"
        + "more " * 100
        + "</p></div></body>"
    )
    page = Page("p", html, "")
    assert (
        SCEDD().extract(page).text
        == CETD().extract(page).text
        == ("word " * 100).strip() + "\n" + ("more " * 100).strip()
    )


def test_form_controls_are_removed():
    html = (
        "<body><form><label>"
        + "Search the site for anything " * 5
        + "</label><input></form><p>The real text.</p></body>"
    )
    page = Page("p", html, "")
    assert SCEDD(mode="short").extract(page).text == "The real text."


def test_bad_options_are_config_errors():
    with pytest.raises(ConfigError, match="mode"):
        SCEDD(mode="medium")
    with pytest.raises(ConfigError, match="top_coef"):
        SCEDD(top_coef=0.5, bottom_coef=0.4)
    with pytest.raises(ConfigError, match="max_tries"):
        SCEDD(max_tries=0)
