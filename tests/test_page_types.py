"""Item groups, structured data and the page-type evidence of the stack (issue 33), on hand-made pages."""

from __future__ import annotations

import json

import numpy as np
import pytest
from test_stack import small

from boilerbench.datasets.page import Page
from boilerbench.errors import ConfigError
from boilerbench.extractors.stack import items, structured
from boilerbench.extractors.stack.page_types import type_evidence

MENU = (
    "<ul class='nav'><li><a href='/'>Home</a></li><li><a href='/f'>Forums</a></li><li><a href='/h'>Help</a></li></ul>"
)
FOOTER = "<div class='foot'><a href='/c'>Contact us</a> | Copyright 2024</div>"
BODIES = [
    "I have the same problem with my router since the update last week.",
    "Did you try resetting it to the factory settings first?",
    "Yes, twice.",
    "Then it is the firmware: roll back to the previous version and wait for a fix.",
    "Thanks, rolling back worked for me too and the connection is stable again.",
    "Same here.",
    "Could the vendor not test their updates before pushing them to everyone?",
]


def thread(n: int, offset: int = 0) -> Page:
    """A forum thread of ``n`` posts (user name, then body) between a menu and a footer; gold = the bodies."""
    bodies = [BODIES[(offset + k) % len(BODIES)] for k in range(n)]
    posts = "".join(
        f"<div class='post post-{k}'><span class='user'>user{k}</span><div class='body'><p>{b}</p></div></div>"
        for k, b in enumerate(bodies)
    )
    html = f"<html><body>{MENU}<div id='thread'>{posts}</div>{FOOTER}</body></html>"
    return Page(f"t{n}-{offset}", html, "\n".join(bodies), page_type="forum")


def listing(n: int, offset: int = 0) -> Page:
    """A listing of ``n`` items (title link, one line of description); gold = titles and descriptions."""
    entries = [(f"Item {offset + k} title", f"A short description of item {offset + k} for sale") for k in range(n)]
    cards = "".join(
        f"<li class='card'><h3><a href='/i{k}'>{t}</a></h3><p>{d}</p></li>" for k, (t, d) in enumerate(entries)
    )
    html = f"<html><body>{MENU}<h1>Results</h1><ul class='results'>{cards}</ul>{FOOTER}</body></html>"
    gold = "\n".join(["Results", *(f"{t}\n{d}" for t, d in entries)])
    return Page(f"l{n}-{offset}", html, gold, page_type="listing")


def test_item_layout_finds_the_posts_and_the_menu_by_hand():
    page = thread(5)
    layout = items.item_layout(page.blocks)
    texts = page.blocks.texts
    assert texts[:3] == ["Home", "Forums", "Help"] and texts[-2:] == ["Contact us", "| Copyright 2024"]
    menu, posts, footer = layout[:3], layout[3:13], layout[13:]
    assert len(set(menu[:, 1])) == 1 and menu[0, 1] >= 0 and menu[:, 4].tolist() == [1, 1, 1]  # one group, links
    assert len(set(posts[:, 3])) == 1 and posts[0, 3] != menu[0, 3]  # the five posts: one outer group
    assert [len(set(posts[2 * k : 2 * k + 2, 2])) for k in range(5)] == [1] * 5  # a post's name and body: one item
    assert len(set(posts[:, 2])) == 5
    assert (footer[:, :4] == -1).all()  # the footer repeats nothing


def test_item_features_by_hand():
    page = thread(5)
    layout = items.item_layout(page.blocks)
    words = page.blocks.word_counts
    p = np.zeros(len(words))
    p[4:13:2] = [0.9, 0.3, 0.9, 0.3, 0.9]  # the bodies; user names at 0
    feats = items.item_features(layout, page.blocks.paths, words, p)
    names = items.item_feature_names()
    outer = {n.split(".")[-1]: feats[4, j] for j, n in enumerate(names) if n.startswith("items.outer.")}
    post_words = words[3:13].astype(float)
    assert outer["in_group"] == 1 and outer["log_items"] == pytest.approx(np.log(5))
    assert outer["page_share"] == pytest.approx(post_words.sum() / words.sum())
    assert outer["link_density"] == 0 and outer["regularity"] == 1  # every path in every post
    body_words = words[4:13:2].astype(float)
    assert outer["column_p"] == pytest.approx(body_words @ p[4:13:2] / body_words.sum())  # the bodies' mean
    # an item's probability is the word-weighted mean of its name (at 0) and its body: 3 of 5 reach 0.5
    assert outer["items_kept"] == pytest.approx(0.6)
    assert outer["item_p"] == pytest.approx(0.9 * words[4] / (words[3] + words[4]))
    assert np.isnan(feats[-1]).sum() == len(names) - 2 and (feats[-1, [0, len(items.ITEM_FEATURES)]] == 0).all()


def test_item_features_of_two_groups_with_an_irregular_one_by_hand():
    # two posts of five carry a signature: of the thread's three tag paths, the signature's is in
    # fewer than half of the posts, so its regularity is 2/3; the menu's one path is in all of its items
    sigs = {0: "<div class='sig'>Sent from my phone</div>", 1: "<div class='sig'>Cheers, Bob</div>"}
    posts = "".join(
        f"<div class='post'><span class='user'>user{k}</span><p>{BODIES[k]}</p>{sigs.get(k, '')}</div>"
        for k in range(5)
    )
    page = Page("irregular", f"<html><body>{MENU}<div id='thread'>{posts}</div></body></html>", "")
    layout = items.item_layout(page.blocks)
    words = page.blocks.word_counts
    texts = page.blocks.texts
    bodies = [texts.index(BODIES[k]) for k in range(5)]
    p = np.zeros(len(words))
    p[bodies] = [0.9, 0.9, 0.2, 0.9, 0.1]
    feats = items.item_features(layout, page.blocks.paths, words, p)
    names = [n.split(".")[-1] for n in items.item_feature_names() if n.startswith("items.outer.")]
    outer = len(items.ITEM_FEATURES)
    thread_row = dict(zip(names, feats[bodies[0], outer:], strict=True))
    menu_row = dict(zip(names, feats[0, outer:], strict=True))
    assert thread_row["log_items"] == pytest.approx(np.log(5)) and menu_row["log_items"] == pytest.approx(np.log(3))
    assert thread_row["regularity"] == pytest.approx(2 / 3) and menu_row["regularity"] == 1
    # an item's probability is the word-weighted mean of its blocks (name 1 word at 0, body, signature
    # at 0): post 0 0.9 * 13/18, post 1 0.9 * 10/13, post 3 0.9 * 16/17 reach 0.5; posts 2 and 4 do not
    assert [words[b] for b in bodies[:4]] == [13, 10, 2, 16]
    assert thread_row["items_kept"] == pytest.approx(3 / 5)
    assert menu_row["items_kept"] == 0 and menu_row["group_p"] == 0


def test_pooling_takes_the_decision_per_role_of_the_group():
    page = thread(5)
    layout = items.item_layout(page.blocks)
    words = page.blocks.word_counts
    p = np.full(len(words), 0.1)
    p[4:13:2] = [0.9, 0.3, 0.9, 0.35, 0.9]
    pooled = items.pool_by_items(p, layout, page.blocks.paths, words, 1.0, "outer")
    bodies = words[4:13:2].astype(float)
    assert pooled[4:13:2] == pytest.approx(np.full(5, bodies @ p[4:13:2] / bodies.sum()))
    assert (pooled[4:13:2] >= 0.5).all() and pooled[3:13:2] == pytest.approx(np.full(5, 0.1))
    assert pooled[-1] == 0.1 and items.pool_by_items(p, layout, page.blocks.paths, words, 0.0, "outer") is p
    half = items.pool_by_items(p, layout, page.blocks.paths, words, 0.5, "outer")
    assert half[6] == pytest.approx(0.5 * 0.3 + 0.5 * pooled[6])


def _train(n: int) -> list[Page]:
    return [thread(3 + k % 5, k) if k % 2 else listing(4 + k % 7, k) for k in range(n)]


def test_a_thread_of_five_posts_and_a_listing_of_ten_items_are_kept_whole():
    stack = small(item_groups=True, item_pooling=1.0, stage_folds=2).fit(_train(16), _train(22)[16:])
    names = stack.feature_names()
    assert names[-6 - len(items.item_feature_names()) : -6] == items.item_feature_names()
    for page in (thread(5, 2), listing(10, 40)):
        labels = stack.extract(page).labels
        assert labels.tolist() == page.gold_labels.tolist(), page.id
        assert labels.sum() == (5 if page.page_type == "forum" else 21)


def test_a_product_description_only_in_json_ld_is_extracted():
    description = "Hand-stitched leather wallet with six card slots, a coin pocket and a lifetime warranty."
    ld = {
        "@context": "https://schema.org",
        "@graph": [{"@type": "Product", "name": "Wallet", "description": description}],
    }
    html = (
        f"<html><head><script type='application/ld+json'>{json.dumps(ld)}</script></head><body>{MENU}"
        "<div id='app'><h1>Wallet</h1><p>Price: 40 EUR</p></div></body></html>"
    )
    page = Page("product", html, f"Wallet\nPrice: 40 EUR\n{description}", page_type="product")
    assert structured.product_descriptions(page.blocks.root) == [description]
    assert structured.fallback_text(page.blocks, "Wallet Price: 40 EUR") == description
    assert structured.fallback_text(page.blocks, f"Wallet {description}") == ""  # already extracted
    stack = small(product_fallback=True).fit(_train(12), _train(16)[12:])
    extraction = stack.extract(page)
    assert extraction.text.endswith(description) and extraction.info["fallback_words"] == len(description.split())
    assert description not in small().fit(_train(12), _train(16)[12:]).extract(page).text


def test_schema_families_read_json_ld_microdata_and_rdfa():
    ld = [{"@type": ["NewsArticle"], "author": {"@type": "Person"}}, {"@graph": [{"@type": "BreadcrumbList"}]}]
    html = (
        f"<html><head><script type='application/ld+json'>{json.dumps(ld)}</script>"
        "<script type='application/ld+json'>{not json</script></head><body>"
        "<div itemscope itemtype='https://schema.org/Product'><p itemprop='description'>Nice</p></div>"
        "<div typeof='schema:Comment'><p>Hi</p></div><p>Out</p></body></html>"
    )
    page = Page("s", html, "")
    counts = structured.schema_families(page.blocks.root)
    assert {f: c for f, c in counts.items() if c} == {"article": 1, "person": 1, "product": 1, "forum": 1}
    evidence = structured.block_evidence(page.blocks)
    column = {n: j for j, n in enumerate(structured.BLOCK_EVIDENCE_NAMES)}
    assert page.blocks.texts == ["Nice", "Hi", "Out"]
    assert evidence[0, column["schema.in_product"]] == 1 and evidence[0, column["schema.in_body_prop"]] == 1
    assert evidence[1, column["schema.in_forum"]] == 1 and evidence[1].sum() == 1 and evidence[2].sum() == 0


def test_url_features_by_hand():
    values = structured.url_features("https://example.com/forum/thread-123-x?page=2")
    flags = dict(zip(structured.URL_PATTERNS, values, strict=False))
    assert flags["forum"] == 1 and flags["listing"] == 1 and flags["product"] == 0
    stats = values[len(structured.URL_PATTERNS) :]
    assert stats == pytest.approx([2.0, 1.0, np.log1p(3), np.log1p(2), 0.0])
    assert structured.url_features("https://shop.example.com/")[-1] == 1.0
    assert structured.url_features(None) == [0.0] * (len(structured.URL_PATTERNS) + len(structured.URL_STATS))


def test_type_evidence_has_one_value_per_name():
    page = thread(5)
    evidence = type_evidence(page.blocks, "https://example.com/t/router-problem/123")
    assert len(evidence) == len(structured.EVIDENCE_NAMES) + len(items.STRUCTURE_NAMES)
    structure = dict(zip(items.STRUCTURE_NAMES, evidence[len(structured.EVIDENCE_NAMES) :], strict=True))
    assert structure["log_max_items"] == pytest.approx(np.log1p(5))
    words = page.blocks.word_counts
    assert structure["link_share"] == pytest.approx((3 + 2) / words.sum())  # the menu's and "Contact us"'s words


def test_bad_item_pooling_is_a_config_error():
    with pytest.raises(ConfigError, match="item_pooling"):
        small(item_pooling=1.5)
    with pytest.raises(ConfigError, match="item_level"):
        small(item_level="middle")


def test_the_study_prints_accuracy_confusion_and_calibration(tmp_path):
    from boilerbench.reports.page_types import calibration_error, wilson
    from studies.page_types import report

    rows = [("forum", "forum", 0.9), ("forum", "article", 0.6), ("article", "article", 0.9), ("listing", "", 0.5)]
    lines = ["page_id,page_type,predicted_page_type,page_type_confidence"]
    lines += [f"p{k},{g},{p},{c}" for k, (g, p, c) in enumerate(rows)]
    (tmp_path / "pages.csv").write_text("\n".join(lines) + "\n", encoding="utf-8")
    text = report(tmp_path).splitlines()
    lo, hi = wilson(2, 3)
    assert text[0] == f"{tmp_path}: 3 pages, accuracy 0.667 [{lo:.3f}, {hi:.3f}]"  # the untyped prediction is left out
    # bins: 0.6 (wrong) alone, the two 0.9 (right) together: (|0 - 0.6| + 2 |1 - 0.9|) / 3
    assert calibration_error([0.9, 0.6, 0.9], [True, False, True]) == pytest.approx(0.8 / 3)
    assert text[3].split() == ["article", "1", "0", "1.00"] and text[4].split() == ["forum", "1", "1", "0.50"]


def test_temperature_scaling_follows_the_out_of_fold_errors():
    from boilerbench.extractors.stack import page_types

    x = np.linspace(-3, 3, 120)[:, None]
    types = ["article" if v < 0 else "forum" for v in x[:, 0]]
    gate = page_types.fit_classifier(x, types, 0)
    # one clean feature: the regularised classifier is never wrong out of fold, yet hesitant: sharpen
    assert page_types.fit_temperature(gate, x, types, folds=3, seed=0) < 1.0
    # 300 features and 90 pages, the type in the first: it fits noise and is overconfident out of fold: soften
    wide = np.random.default_rng(0).normal(size=(90, 300))
    wide_types = ["article" if v < 0 else "forum" for v in wide[:, 0]]
    wide_gate = page_types.fit_classifier(wide, wide_types, 0)
    assert page_types.fit_temperature(wide_gate, wide, wide_types, folds=3, seed=0) > 1.0
    gate.temperature = 4.0
    scores = (gate.coef @ ((np.array([0.5]) - gate.mean) / gate.scale) + gate.intercept) / 4.0
    assert gate.probabilities(np.array([0.5])) == pytest.approx(np.exp(scores) / np.exp(scores).sum())
    assert page_types.TypeGate.from_json(json.loads(json.dumps(gate.to_json()))).temperature == 4.0
    old = {k: v for k, v in gate.to_json().items() if k != "temperature"}  # a model saved before temperatures
    assert page_types.TypeGate.from_json(old).temperature == 1.0


def test_evident_type_only_where_the_evidence_names_one_type():
    def page(ld: list[dict]) -> Page:
        scripts = "".join(f"<script type='application/ld+json'>{json.dumps(x)}</script>" for x in ld)
        return Page("e", f"<html><head>{scripts}</head><body><p>Text</p></body></html>", "")

    product = page([{"@type": "Product"}, {"@type": "Organization"}])  # an organisation names no page type
    # the URL names a product and a listing: not the declared type alone
    assert structured.evident_type(product.blocks, "https://a.example/shop/category/wallets") is None
    assert structured.evident_type(product.blocks, "https://a.example/p/wallet") == "product"
    assert structured.evident_type(product.blocks, None) == "product"
    assert structured.evident_type(product.blocks, "https://a.example/forum/x") is None  # URL disagrees
    both = page([{"@type": "BlogPosting"}, {"@type": "DiscussionForumPosting"}])
    assert structured.evident_type(both.blocks, None) is None
    assert structured.evident_type(page([{"@type": "Comment"}]).blocks, None) is None  # forum: not evident alone
    crumbs = page([{"@type": "BreadcrumbList", "itemListElement": [{"@type": "ListItem"}]}, {"@type": "NewsArticle"}])
    assert structured.evident_type(crumbs.blocks, None) == "article"  # a breadcrumb's items are no listing
    plain = page([])
    assert structured.evident_type(plain.blocks, "https://a.example/2024/05/a-story") == "article"
    assert structured.evident_type(plain.blocks, "https://a.example/showthread.php?t=9") is None
    assert structured.evident_type(plain.blocks, "https://a.example/about-us") is None
    assert structured.evident_type(plain.blocks, None) is None
