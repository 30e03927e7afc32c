"""The CleanEval 2007 heuristics on hand-made pages."""

import numpy as np
import pytest

from boilerbench.datasets.blocks import segment
from boilerbench.datasets.page import Page
from boilerbench.errors import ConfigError
from boilerbench.extractors.cleaneval2007 import WCC, HTMLCleaner, Kimatu
from boilerbench.extractors.cleaneval2007.htmlcleaner import (
    best_sequence,
    function_word_chars,
    good_sentences,
    select_sequences,
    sentence_spans,
)
from boilerbench.extractors.cleaneval2007.kimatu import block_ratios, kimatu_blocks
from boilerbench.extractors.cleaneval2007.lines import block_lines
from boilerbench.extractors.cleaneval2007.wcc import wcc_lines

PARAGRAPH = "The council said that the old bridge will close for repairs during the whole summer"  # 16 words


def test_wcc_keeps_paragraphs_and_the_title_just_before():
    lines = ["Home | News", "Bridge closes", PARAGRAPH, "ok", "Copyright 2007 Example Ltd"]
    # the nav line becomes a possible title, then "Bridge closes" replaces it; the paragraph
    # follows it at once, so both are kept; "ok" is too short to count; the footer is no paragraph
    assert wcc_lines(lines).tolist() == ["", "h", "p", "", ""]


def test_wcc_title_must_be_close_and_words_long_enough():
    far = ["Old title", "a b", "c d", PARAGRAPH]  # the title lies 3 lines before the paragraph
    assert wcc_lines(far).tolist() == ["", "", "", "p"]
    short_words = ["a an the of to in it is at by on"]  # 11 words, average length under 3
    assert wcc_lines(short_words).tolist() == [""]
    assert wcc_lines(far, title_lines=4).tolist() == ["h", "", "", "p"]


def test_wcc_on_a_page_maps_lines_back_to_blocks():
    html = (
        f"<body><div><a>Home</a> | <a>News</a></div><h1>Bridge closes</h1>"
        f"<p>{PARAGRAPH.replace('old bridge', '<b>old bridge</b>')}</p><div>Copyright 2007 Example Ltd</div></body>"
    )
    page = Page("p", html, "")
    # blocks: Home, |, News (one line), title, three blocks of the paragraph line, footer
    assert block_lines(page.blocks).tolist() == [0, 0, 0, 1, 2, 2, 2, 3]
    result = WCC().extract(page)
    assert result.labels.tolist() == [0, 0, 0, 1, 1, 1, 1, 0]
    assert result.text == f"Bridge closes\n{PARAGRAPH}"
    assert result.markup == f"<h>Bridge closes\n<p>{PARAGRAPH}"
    assert WCC().extract(Page("e", "", "")).labels.tolist() == []
    assert len(block_lines(segment(""))) == 0


SENTENCE_A = "The council said that it will close the old bridge for the summer."  # nFW 22
SENTENCE_B = "It is the only road into the town from the north."  # nFW 25
SENTENCE_C = "Workers will start on the first of June and finish in the autumn."  # nFW 19
TWO_SEQUENCES = (
    f"<body><p>{SENTENCE_A} {SENTENCE_B}</p>"
    "<div><a>Shop</a> | <a>Sponsors of the Summer Fair and the Big Market</a></div>"
    f"<p>{SENTENCE_C}</p><div>Copyright</div></body>"
)


def test_htmlcleaner_sentences_and_function_words():
    assert sentence_spans("A b. C d\nE") == [(0, 4), (5, 8), (9, 10)]
    assert sentence_spans('He said "Go." Then') == [(0, 13), (14, 18)]
    assert function_word_chars("The cat sat on the mat.") == 8  # the + on + the
    assert function_word_chars(SENTENCE_B) == 2 + 2 + 3 + 4 + 4 + 3 + 4 + 3
    # mean length 15.25: only the long, capitalised sentences ending with punctuation are good
    sentences = ["Home", "A long sentence ends here.", "a long sentence in lower case.", "No final stop here"]
    assert good_sentences(sentences).tolist() == [False, True, False, False]
    assert good_sentences([]).tolist() == []


def test_htmlcleaner_best_sequences_start_and_end_at_good_sentences():
    scores = np.array([-5.0, 3, -1, 4, -10, 2])
    good = np.array([False, True, True, True, False, True])
    assert best_sequence(scores, good) == (1, 3, 6.0)  # 3 - 1 + 4; [1, 5] scores only -2
    assert best_sequence(scores, np.zeros(6, bool)) is None
    # the second sequence [5] scores 2: kept above 0, dropped at half the best (3)
    assert select_sequences(scores, good, 0.0).tolist() == [False, True, True, True, False, True]
    assert select_sequences(scores, good, 0.5).tolist() == [False, True, True, True, False, False]


def test_htmlcleaner_on_a_two_sequence_page():
    page = Page("p", TWO_SEQUENCES, "")
    # sentences A, B, the link line (nFW 11, nA 4 + 46), C, "Copyright"; scores 22, 25, -39, 19, 0;
    # the best sequence is A..B (47); C alone (19) is the second; the link line and the short
    # "Copyright" are dropped
    result = HTMLCleaner().extract(page)
    assert result.labels.tolist() == [1, 0, 0, 0, 1, 0]
    assert result.text == f"{SENTENCE_A} {SENTENCE_B}\n{SENTENCE_C}"
    assert HTMLCleaner(min_score_ratio=1.0).extract(page).labels.tolist() == [1, 0, 0, 0, 0, 0]
    assert HTMLCleaner().extract(Page("e", "", "")).labels.tolist() == []
    with pytest.raises(ConfigError):
        HTMLCleaner(min_score_ratio=-1)


KIMATU_PAGE = (
    "<body><ul><li><a>Home</a></li><li><a>News</a></li></ul><h2>Bridge closes</h2>"
    f"<p>{SENTENCE_A}</p><p>{SENTENCE_B}</p><blockquote>close the old bridge for the summer</blockquote>"
    "<div class=by>Posted by Ann</div><div class=c>Great news, thanks!</div>"
    "<div class=by>Posted by Ann</div></body>"
)


def test_kimatu_blocks_and_ratios():
    page = Page("p", KIMATU_PAGE, "")
    group, tags = kimatu_blocks(page.blocks)
    # the two <li> of one list form one block, so do the two <p> of the article
    assert group.tolist() == [0, 0, 1, 2, 2, 3, 4, 5, 6]
    assert tags == ["li", "h2", "p", "blockquote", "div", "div", "div"]
    ratio, link_share = block_ratios(page.blocks, group, len(tags))
    # the article is the longest (66 + 49 = 115 characters in 2 containers, 57.5 on average),
    # with the most punctuation (2, as many as "Great news, thanks!")
    assert ratio[2] == pytest.approx(1.0)
    assert ratio[5] == pytest.approx((19 / 115 + 19 / 57.5 + 2 / 2) / 3)
    assert ratio[3] == pytest.approx((35 / 115 + 35 / 57.5) / 3)
    assert ratio[0] == 0 and link_share.tolist() == [1, 0, 0, 0, 0, 0, 0]


def test_kimatu_removes_quotations_and_repeated_blocks():
    page = Page("p", KIMATU_PAGE, "")
    result = Kimatu().extract(page)
    # the blockquote is a candidate (ratio 0.30) but its 7 words all lie in the article's
    # longest common subsequence; both "Posted by Ann" repeat each other; the heading just
    # before the article is kept; the menu is all links
    assert result.labels.tolist() == [0, 0, 1, 1, 1, 0, 0, 1, 0]
    assert result.text == f"Bridge closes\n{SENTENCE_A}\n{SENTENCE_B}\nGreat news, thanks!"
    # when only blocks of up to 5 words count as small, the 7-word quotation stays (the
    # 3-word bylines are still removed)
    assert Kimatu(small_block_words=5).extract(page).labels.tolist() == [0, 0, 1, 1, 1, 1, 0, 1, 0]
    assert Kimatu().extract(Page("e", "", "")).labels.tolist() == []
    with pytest.raises(ConfigError):
        Kimatu(candidate_ratio=2)


def _wcc_training_pages() -> list[Page]:
    """Pages whose content is long <p> lines and whose boilerplate is short link lines."""
    pages = []
    for k in range(6):
        paragraphs = [
            f"Paragraph {k} {j}: " + " ".join(["the council repaired the bridge"] * 4) + "." for j in range(3)
        ]
        html = (
            "<body><div><a>Home</a></div><div><a>News</a></div>"
            + "".join(f"<p>{p}</p>" for p in paragraphs)
            + "<div><a>Contact us</a></div><div>Copyright 2007</div></body>"
        )
        pages.append(Page(f"w{k}", html, "\n".join(paragraphs)))
    return pages


def test_wcc_baseline_keeps_every_line_as_a_paragraph():
    page = Page("p", "<body><div><a>Home</a></div><h1>Title</h1><p>Some text here.</p></body>", "")
    result = WCC(method="baseline").extract(page)
    assert result.labels.tolist() == [1, 1, 1]
    assert result.markup == "<p>Home\n<p>Title\n<p>Some text here."


@pytest.mark.parametrize("method", ["tree", "genetic"])
def test_wcc_learned_methods_keep_paragraphs_and_drop_links(method):
    train = _wcc_training_pages()
    extractor = WCC(method=method, tree_min_leaf=1, ga_population=20, ga_generations=10).fit(train)
    page = _wcc_training_pages()[0]
    page.id = "new"
    labels = extractor.extract(page).labels
    texts = page.blocks.texts
    assert [t for t, keep in zip(texts, labels, strict=True) if keep] == [t for t in texts if t.startswith("Paragraph")]
    if method == "genetic":  # seeded: the same rules twice
        again = WCC(method=method, tree_min_leaf=1, ga_population=20, ga_generations=10).fit(train)
        assert again.rules_ == extractor.rules_ and len(extractor.fitness_history_) == 10
        assert extractor.fitness_history_[-1] >= extractor.fitness_history_[0]


def test_wcc_lm_ranks_lines_by_divergence_from_the_headings():
    html = (
        "<body><h1>Bridge repairs</h1><p>The bridge repairs start in June and the bridge closes.</p>"
        "<p>Cheap flights to sunny islands for everyone now.</p></body>"
    )
    page = Page("p", html, "")
    wcc = WCC(method="lm", lm_max_kl=1.0)
    lines, kinds = wcc.line_kinds(page)
    kl = wcc._line_kl(page.blocks, lines)
    # the heading line itself, then the line about bridge repairs, then the unrelated line
    assert kl[0] < kl[1] < kl[2]
    assert kinds.tolist() == ["p" if d < 1.0 else "" for d in kl]
    with pytest.raises(RuntimeError):
        WCC(method="lm").extract(page)  # the threshold is learned in fit
