"""The derived teaser-rail pages: the rail's place and shape on a hand-made page, the gold left
as it was, lines never taken from the page itself, and on the real data no page derived from a
test page."""

from __future__ import annotations

import numpy as np
import pytest
from lxml import html as lxml_html

from boilerbench.datasets.page import Page
from boilerbench.datasets.teaser_rails import TeaserRails, prose_lines, source_dataset, with_rail
from boilerbench.errors import ConfigError

ARTICLE = (
    "<html><body><div id='nav'><a href='/'>Home</a></div>"
    "<div id='main'><h1>Council approves the new harbour budget</h1>"
    "<p>The city council approved the harbour budget on Tuesday after a long debate about its costs.</p>"
    "<p>Work on the northern pier starts in spring and should end within two years.</p></div>"
    "<div id='footer'>Contact us</div></body></html>"
)
GOLD = (
    "Council approves the new harbour budget\n"
    "The city council approved the harbour budget on Tuesday after a long debate about its costs.\n"
    "Work on the northern pier starts in spring and should end within two years."
)
LINES = [
    " ".join(f"{word}{n}" for n in range(20)) for word in ("alpha", "bravo", "charlie", "delta", "echo", "foxtrot")
]


def _article(page_id: str = "a", gold: str = GOLD, html: str = ARTICLE, page_type: str | None = None) -> Page:
    return Page(id=page_id, html=html, gold_text=gold, source="src", page_type=page_type, meta={"language": "en"})


def test_the_rail_follows_the_article_container_and_leaves_the_gold_as_it_was():
    derived = with_rail(_article(), LINES, 3, np.random.default_rng(0))
    assert derived is not None
    tree = lxml_html.fromstring(derived.html)
    main = tree.get_element_by_id("main")
    rail = main.getnext()
    assert rail.get("id") is None and rail.getnext().get("id") == "footer"
    assert len(rail) == 3
    for item in rail:
        (link,) = item.iter("a")
        headline, summary = link.text_content().split(), item[1].text_content().split()
        assert 4 <= len(headline) <= 9 and 12 <= len(summary) <= 20
        assert any(" ".join(headline) in line for line in LINES) and any(" ".join(summary) in line for line in LINES)
    assert derived.gold_text == GOLD
    assert (derived.id, derived.source, derived.page_type) == ("src/a", "teaser_rails", "article")
    assert derived.meta == {"language": "en", "group": "src:a", "derived_from": "src/a"}
    labels, texts = derived.gold_labels, derived.blocks.texts
    kept = [t for t, label in zip(texts, labels, strict=True) if label]
    assert kept == GOLD.splitlines()
    assert sum(1 for t in texts if t.startswith(("alpha", "bravo", "charlie", "delta", "echo", "foxtrot"))) == 6


def test_a_page_whose_gold_no_block_holds_gets_no_rail():
    assert with_rail(_article(gold="Nothing of this page is here at all."), LINES, 3, np.random.default_rng(0)) is None


def test_prose_lines_are_the_gold_lines_of_twelve_words_or_more():
    page = _article(gold="Short heading\n" + " ".join(["word"] * 12) + "\n" + " ".join(["word"] * 11))
    assert prose_lines([page]) == [" ".join(["word"] * 12)]


def test_derive_takes_articles_only_and_never_a_pages_own_lines():
    pages = [
        _article(
            str(i),
            gold=f"Heading {i}\n" + " ".join(f"own{i}w{n}" for n in range(15)),
            html=ARTICLE.replace("Council approves the new harbour budget", f"Heading {i}").replace(
                "The city council approved the harbour budget on Tuesday after a long debate about its costs.",
                " ".join(f"own{i}w{n}" for n in range(15)),
            ),
            page_type=page_type,
        )
        for i, page_type in enumerate(["article", None, "forum", "article"])
    ]
    derived = TeaserRails(per_source=5, items=(2, 2)).derive(pages, np.random.default_rng(1))
    tag = TeaserRails(per_source=5, items=(2, 2)).tag
    assert [p.id for p in derived] == [f"src/0#{tag}", f"src/1#{tag}", f"src/3#{tag}"]
    for page in derived:
        own = f"own{page.id.split('/')[1].split('#')[0]}w"
        rail = lxml_html.fromstring(page.html).get_element_by_id("main").getnext()
        assert len(rail) == 2 and own not in rail.text_content()
    again = TeaserRails(per_source=5, items=(2, 2)).derive(pages, np.random.default_rng(1))
    assert [p.html for p in again] == [p.html for p in derived]


def test_the_settings_change_the_ids_that_key_a_model():
    tags = {
        TeaserRails().tag,
        TeaserRails(items=(2, 5)).tag,
        TeaserRails(seed=1).tag,
        TeaserRails(sources=["wcxb"]).tag,
    }
    assert len(tags) == 4 and TeaserRails().tag == TeaserRails().tag


def test_pages_without_an_article_give_no_derived_page():
    forum = _article(page_type="forum")
    assert TeaserRails().derive([forum], np.random.default_rng(0)) == []
    assert TeaserRails().derive([], np.random.default_rng(0)) == []


def test_per_source_caps_the_pages_drawn():
    pages = [_article(str(i)) for i in range(6)]
    assert len(TeaserRails(per_source=2).derive(pages, np.random.default_rng(0))) == 2


@pytest.mark.parametrize("kwargs", [{"items": (0, 3)}, {"items": (5, 3)}, {"items": (3,)}, {"per_source": 0}])
def test_bad_settings_are_config_errors(kwargs):
    with pytest.raises(ConfigError):
        TeaserRails(**kwargs)


@pytest.mark.parametrize("entry", ["teaser_rails", "no_such_dataset"])
def test_a_source_must_be_another_dataset_config(entry, tmp_path):
    with pytest.raises(ConfigError, match="no dataset config"):
        source_dataset(entry, tmp_path)


@pytest.mark.data
@pytest.mark.slow
def test_on_the_real_data_no_page_is_derived_from_a_test_page(data_root):
    root = data_root
    derived = TeaserRails(sources=["wcxb"], per_source=50, data_dir=root).load()
    wcxb = source_dataset("wcxb", root).load()
    assert derived.test == [] and len(derived.train) == 50 and 0 < len(derived.validation) <= 50
    training = {p.id for p in (*wcxb.train, *wcxb.validation) if p.page_type == "article"}
    assert {p.meta["derived_from"].split("/", 1)[1] for p in (*derived.train, *derived.validation)} <= training
    assert all(p.id.endswith(f"#{TeaserRails(sources=['wcxb'], per_source=50).tag}") for p in derived.train)
    assert all(p.gold_labels.sum() > 0 for p in derived.train[:10])
