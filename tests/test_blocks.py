"""Canonical segmentation and the aligner on hand-made pages."""

import numpy as np
from conftest import NAV_PAGE

from boilerbench.datasets.align import align_labels, matched_tokens
from boilerbench.datasets.blocks import segment


def test_blocks_of_hand_made_page():
    b = segment(NAV_PAGE)
    assert b.texts == ["Home", "|", "About", "Hello", "wor", "ld, friend.", "one", "two", "tail"]
    assert b.paths == [
        "html/body/div/a",
        "html/body/div",
        "html/body/div/a",
        "html/body/p",
        "html/body/p/b",
        "html/body/p",
        "html/body/ul/li",
        "html/body/ul/li",
        "html/body",
    ]
    assert b.seps == ["", " ", " ", "\n", " ", "", "\n", "\n", "\n"]
    # start/end tags between blocks: <body><div><a> | </a> | <a> | </a></div><p> | <b> | </b> |
    # </p><ul><li> | </li><li> | </li></ul><img></img> ; </body> after the last block
    assert b.tags_before.tolist() == [3, 1, 1, 3, 1, 1, 3, 2, 4]
    assert b.tags_after == 1
    assert b.is_tail.tolist() == [False, True, False, False, False, True, False, False, True]
    assert b.owner(1).tag == "div" and b.owner(8).tag == "body"
    assert b.word_counts.tolist() == [1, 1, 1, 1, 1, 2, 1, 1, 1]


def test_join_restores_words_and_lines():
    b = segment(NAV_PAGE)
    assert b.join() == "Home | About\nHello world, friend.\none\ntwo\ntail"
    mask = np.zeros(len(b), bool)
    mask[[0, 2]] = True  # skipping "|" keeps a space
    assert b.join(mask) == "Home About"
    mask[:] = False
    mask[[3, 6]] = True  # a skipped stretch with a line break keeps the line break
    assert b.join(mask) == "Hello\none"


def test_skipped_and_empty_pages():
    assert len(segment("")) == 0
    assert len(segment("<html><head><title>x</title></head><body><script>a()</script> </body></html>")) == 0
    # text in the tail of a skipped element belongs to its parent
    b = segment("<p>before<br>after<select><option>no</option></select>end</p>")
    assert b.texts == ["before", "after", "end"]
    assert b.seps == ["", "\n", "\n"]


def test_aligner_labels_hand_made_page():
    b = segment(NAV_PAGE)
    labels = align_labels(b, "Hello world, friend. one two")
    # "ld, friend." has tokens [ld, friend]: 1 of 2 matched is not more than 2/3
    assert labels.tolist() == [0, 0, 0, 1, 0, 0, 1, 1, 0]
    assert labels.dtype == np.int8


def test_two_thirds_rule_is_strict():
    b = segment("<p>alpha beta gamma</p><p>one two three four</p>")
    # 2 of 3 tokens matched: not content; 3 of 4: content
    assert align_labels(b, "alpha beta one two three").tolist() == [0, 1]
    assert align_labels(b, "alpha beta gamma").tolist() == [1, 0]


def test_aligner_uses_document_order():
    # The gold sentence occurs twice; an order-preserving alignment cannot use both copies.
    b = segment("<p>intro text</p><p>the story</p><p>footer</p><p>the story</p>")
    labels = align_labels(b, "intro text the story")
    assert labels.sum() == 2 and labels[0] == 1


def test_matched_tokens_mask():
    mask = matched_tokens(["a", "b", "c", "d"], ["b", "x", "d"])
    assert mask.tolist() == [False, True, False, True]
    assert not matched_tokens([], ["a"]).any()
