"""The CleanEval 2007 text-and-markup score and its average with the text-only score, by hand."""

from __future__ import annotations

import numpy as np
import pytest

from boilerbench.datasets.page import Page
from boilerbench.evaluation import (
    cleaneval_markup_score,
    markup_edit_counts,
    markup_tokens,
    segment_validity,
    text_only_markup,
)
from boilerbench.experiments.scoring import evaluate_page
from boilerbench.extractors.base import Extraction

GOLD = "URL: http://x.org/\n<h>Title here\n<p>Hello world, this is it.\n<l>item one"


def test_markup_tokens_put_each_marker_before_its_words():
    assert markup_tokens(GOLD) == [
        "<h>",
        "title",
        "here",
        "<p>",
        "hello",
        "world",
        "this",
        "is",
        "it",
        "<l>",
        "item",
        "one",
    ]
    assert markup_tokens("before <P>after") == ["before", "<p>", "after"]


def test_text_only_structure_is_a_paragraph_per_line():
    assert text_only_markup("Title here\n\n  Hello world \nitem") == "<p>Title here\n<p>Hello world\n<p>item"


def test_markup_score_by_hand():
    assert cleaneval_markup_score(GOLD, GOLD) == 100.0
    # text-only structure: <p> where the gold has <h> and <l>: 12 tokens each side, 10 in common;
    # the three segments start and end where the gold's do
    pred = text_only_markup("Title here\nHello world, this is it.\nitem one")
    assert markup_edit_counts(pred, GOLD).score == pytest.approx(100 * 10 / 14)
    assert segment_validity(pred, GOLD) == 100.0
    assert cleaneval_markup_score(pred, GOLD) == pytest.approx((100 * 10 / 14 + 100) / 2)
    # no markers at all: 9 words matched of 12 tokens (100 * 9 / 12); one segment over three: none valid
    flat = "Title here Hello world, this is it. item one"
    assert markup_edit_counts(flat, GOLD).score == pytest.approx(75.0)
    assert segment_validity(flat, GOLD) == 0.0
    assert cleaneval_markup_score(flat, GOLD) == pytest.approx(37.5)
    # a paragraph split in two: one extra marker (100 * 12 / 13); 2 of 4 segments valid, 2 of 3
    # gold segments found: F1 = 2 * (1/2 * 2/3) / (1/2 + 2/3) = 4/7
    split = "<h>Title here\n<p>Hello world,\n<p>this is it.\n<l>item one"
    assert segment_validity(split, GOLD) == pytest.approx(400 / 7)
    assert cleaneval_markup_score(split, GOLD) == pytest.approx((100 * 12 / 13 + 400 / 7) / 2)
    assert segment_validity("", GOLD) == 0.0 and segment_validity("", "") == 100.0


class _Fixed:
    def __init__(self, extraction):
        self.extraction = extraction

    def fit(self, train, validation=None):
        return self

    def extract(self, page):
        return self.extraction


def test_runner_scores_structure_or_the_text_only_structure():
    page = Page(
        id="1",
        html="<html><body><h1>Title here</h1><p>Hello world, this is it.</p><ul><li>item one</li></ul></body></html>",
        gold_text="Title here Hello world, this is it. item one",
        meta={"gold_markup": GOLD},
    )
    text = "Title here\nHello world, this is it.\nitem one"
    plain = evaluate_page(_Fixed(Extraction(text=text)), page, 10**6).row
    assert plain["cleaneval"] == 100.0 and not plain["structured"]
    tm = (100 * 10 / 14 + 100) / 2
    assert plain["cleaneval_markup"] == pytest.approx(tm)
    assert plain["cleaneval_2007"] == pytest.approx((100 + tm) / 2)
    structured = evaluate_page(_Fixed(Extraction(text=text, markup=GOLD.split("\n", 1)[1])), page, 10**6).row
    assert (
        structured["structured"] and structured["cleaneval_markup"] == 100.0 and structured["cleaneval_2007"] == 100.0
    )
    # no gold markup (L3S-GN1): no markup columns
    bare = Page(id="2", html=page.html, gold_text=page.gold_text)
    assert (
        "cleaneval_markup"
        not in evaluate_page(_Fixed(Extraction(text=text, labels=np.ones(3, np.int8))), bare, 10**6).row
    )
