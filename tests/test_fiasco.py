"""FIASCO: target nodes, the SVM without and with rendered features, and the Chromium renderer
(the browser tests run where Debian's chromium and chromium-driver and selenium are installed)."""

from __future__ import annotations

import os

import numpy as np
import pytest

from boilerbench.datasets.blocks import segment
from boilerbench.datasets.page import Page
from boilerbench.experiments.scoring import evaluate_page
from boilerbench.extractors.fiasco import FIASCO, target_units

ARTICLE = "The council has decided that the old bridge over the river will close for repairs this summer."


def _pages(n: int = 6) -> list[Page]:
    pages = []
    for k in range(n):
        paragraphs = [f"{ARTICLE} Work starts in week {k + j} and ends in the autumn." for j in range(3)]
        html = (
            "<html><body><div class='nav'><a href='/'>Home</a> <a href='/n'>News</a> <a href='/c'>Contact</a></div>"
            f"<h1>Bridge closes {k}</h1>"
            + "".join(f"<p>{p}</p>" for p in paragraphs)
            + "<ul><li><a href='/x'>Login</a></li>"
            "<li><a href='/y'>Register</a></li></ul><div class='foot'>Copyright 2007 | Privacy</div></body></html>"
        )
        pages.append(Page(f"f{k}", html, f"Bridge closes {k}\n" + "\n".join(paragraphs)))
    return pages


def test_target_nodes_fold_inline_elements_into_their_block():
    blocks = segment(
        "<body><div>loose <b>bold</b><p>Hello <a>link</a> end</p></div><span>under body</span>"
        "<table><tr><td>one<br>two <i>more</i></td></tr></table></body>"
    )
    unit, targets = target_units(blocks)
    # blocks: loose, bold (the div's own text), Hello, link, end (the p), under body (its span),
    # then the cell cut at its <br>: one | two, more
    assert [t.tag for t in targets] == ["div", "p", "span", "td", "td"]
    assert unit.tolist() == [0, 0, 1, 1, 1, 2, 3, 4, 4]


def test_fiasco_without_rendering_keeps_the_article_with_its_structure():
    train = _pages()
    fiasco = FIASCO(visual=False).fit(train)
    page = _pages(7)[6]
    result = fiasco.extract(page)
    assert result.text.startswith("Bridge closes 6\n")
    assert "Login" not in result.text and "Copyright" not in result.text and "Home" not in result.text
    assert result.markup.splitlines()[0] == "<h>Bridge closes 6" and result.markup.count("<p>") == 3
    assert result.info == {"visual": 0}
    assert "the" in fiasco.clean_keywords_ or "council" in fiasco.clean_keywords_


def _browser_available() -> bool:
    try:
        import selenium  # noqa: F401
    except ImportError:
        return False
    return os.path.exists("/usr/bin/chromium") and os.path.exists("/usr/bin/chromedriver")


browser = pytest.mark.skipif(not _browser_available(), reason="needs chromium, chromium-driver and selenium")


@pytest.mark.browser
@browser
def test_render_layout_boxes_fonts_and_hidden_elements():
    from boilerbench.render import COLUMNS, page_layout

    blocks = segment(
        "<html><body><h1 style='font-size:30px'>Title</h1><p>Hello <b>world</b></p>"
        "<div style='display:none'>hidden</div><img src='http://example.invalid/x.png'></body></html>"
    )
    layout = page_layout(blocks.root)
    rows = {el.tag: layout[k] for k, el in enumerate(blocks.root.iter())}
    col = {c: k for k, c in enumerate(COLUMNS)}
    assert rows["h1"][col["font_size"]] == 30 and rows["h1"][col["font_weight"]] >= 700
    assert rows["p"][col["font_size"]] == 16 and rows["b"][col["font_weight"]] >= 700
    assert rows["h1"][col["y"]] < rows["p"][col["y"]]
    assert rows["div"][col["visible"]] == 0 and rows["p"][col["visible"]] == 1
    assert rows["body"][col["width"]] > rows["b"][col["width"]] > 0


@pytest.mark.browser
@browser
def test_fiasco_with_rendering_and_a_page_chromium_cannot_render():
    train = _pages()
    fiasco = FIASCO(visual=True).fit(train)
    page = _pages(7)[6]
    result = fiasco.extract(page)
    assert result.info == {"visual": 1}
    assert "Login" not in result.text and ARTICLE in result.text
    # no browser where it is looked for: the page falls back to the non-visual evidence, with a warning
    broken = FIASCO(visual=True, chromium="/nonexistent/chromium")
    broken.__dict__.update({k: v for k, v in fiasco.__dict__.items() if k.endswith("_")})
    row = evaluate_page(broken, _pages(7)[6], 10**6).row
    assert row["error"] == "" and row["visual"] == 0 and "/nonexistent/chromium" in row["render_warning"]
    assert row["cleaneval"] > 50
    # a page that does not finish loading within the time limit
    slow = FIASCO(visual=True, render_timeout_s=0.001)
    slow.__dict__.update({k: v for k, v in fiasco.__dict__.items() if k.endswith("_")})
    huge = Page("huge", "<html><body>" + "<table><tr><td>cell text</td></tr></table>" * 20000 + "</body></html>", "")
    result = slow.extract(huge)
    assert result.info["visual"] == 0 and result.info["render_warning"]
    assert len(result.labels) == len(huge.blocks) and np.isin(result.labels, (0, 1)).all()
