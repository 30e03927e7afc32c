"""The CleanEval 2007 heuristics on hand-made pages."""

from boilerbench.datasets.blocks import segment
from boilerbench.datasets.page import Page
from boilerbench.extractors.cleaneval2007 import WCC
from boilerbench.extractors.cleaneval2007.wcc import block_lines, wcc_lines

PARAGRAPH = "The council said that the old bridge will close for repairs during the whole summer"  # 16 words


def test_wcc_keeps_paragraphs_and_the_title_just_before():
    lines = ["Home | News", "Bridge closes", PARAGRAPH, "ok", "Copyright 2007 Example Ltd"]
    # the nav line becomes a possible title, then "Bridge closes" replaces it; the paragraph
    # follows it at once, so both are kept; "ok" is too short to count; the footer is no paragraph
    assert wcc_lines(lines).tolist() == [False, True, True, False, False]


def test_wcc_title_must_be_close_and_words_long_enough():
    far = ["Old title", "a b", "c d", PARAGRAPH]  # the title lies 3 lines before the paragraph
    assert wcc_lines(far).tolist() == [False, False, False, True]
    short_words = ["a an the of to in it is at by on"]  # 11 words, average length under 3
    assert wcc_lines(short_words).tolist() == [False]
    assert wcc_lines(far, title_lines=4).tolist() == [True, False, False, True]


def test_wcc_on_a_page_maps_lines_back_to_blocks():
    html = (f"<body><div><a>Home</a> | <a>News</a></div><h1>Bridge closes</h1>"
            f"<p>{PARAGRAPH.replace('old bridge', '<b>old bridge</b>')}</p><div>Copyright 2007 Example Ltd</div></body>")
    page = Page("p", html, "")
    # blocks: Home, |, News (one line), title, three blocks of the paragraph line, footer
    assert block_lines(page.blocks).tolist() == [0, 0, 0, 1, 2, 2, 2, 3]
    result = WCC().extract(page)
    assert result.labels.tolist() == [0, 0, 0, 1, 1, 1, 1, 0]
    assert result.text == f"Bridge closes\n{PARAGRAPH}"
    assert WCC().extract(Page("e", "", "")).labels.tolist() == []
    assert len(block_lines(segment(""))) == 0
