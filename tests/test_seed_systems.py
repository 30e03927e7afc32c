"""StupidOS and GenieKnows (CleanEval 2007) on hand-made pages."""

from __future__ import annotations

import pytest
from lxml import html as lxml_html

from boilerbench.datasets.page import Page
from boilerbench.errors import ConfigError
from boilerbench.extractors.cleaneval2007 import GenieKnows, StupidOS
from boilerbench.extractors.cleaneval2007.genieknows import font_size
from boilerbench.extractors.cleaneval2007.stupidos import TrigramLM

STORY = [
    "The council has decided that the old bridge over the river will close for repairs this summer.",
    "Engineers found that the steel beams under the road had rusted after many wet winters.",
    "The mayor said that the work would take about four months and cost the town a lot of money.",
]
NAV = ["Home", "Latest news", "Sport", "Weather", "Contact us", "Sign in"]


def _page(k: int) -> Page:
    html = (
        "<html><body><ul>" + "".join(f"<li><a href='/{n}'>{n}</a></li>" for n in NAV) + "</ul>"
        f"<h1>Bridge to close {k}</h1>"
        + "".join(f"<p>{s}</p>" for s in STORY)
        + "<div>Copyright 2007 Town Times | Privacy | Terms</div>"
        "<div><a href='/more'>More stories from the town</a></div></body></html>"
    )
    return Page(
        f"s{k}",
        html,
        f"Bridge to close {k}\n" + "\n".join(STORY),
        meta={"gold_markup": f"<h>Bridge to close {k}\n" + "\n".join(f"<p>{s}" for s in STORY)},
    )


def test_trigram_lm_interpolation_by_hand():
    lm = TrigramLM((0.5, 0.3, 0.15, 0.05)).fit([["a", "b"]], frozenset({"a", "b"}))
    # P(a | <s> <s>) = .5 * 1 + .3 * 1 + .15 * 1/3 + .05 / 4; P(b | <s> a) and P(</s> | a b) likewise
    p = 0.5 + 0.3 + 0.15 / 3 + 0.05 / 4
    assert lm.logprob(["a", "b"]) == pytest.approx(3 * __import__("math").log(p))
    assert lm.logprob(["zzz"]) < lm.logprob(["a"])  # unseen words fall back to <unk> and uniform mass


def test_stupidos_keeps_story_lines_and_drops_boilerplate():
    model = StupidOS().fit([_page(k) for k in range(4)])
    assert model.regex_boilerplate("Copyright 2007 Town Times | Privacy | Terms")
    assert model.regex_boilerplate("--- 12 ---") and not model.regex_boilerplate(STORY[0])
    result = model.extract(_page(9))
    assert all(s in result.text for s in STORY)
    assert not any(n in result.text.splitlines() for n in NAV) and "Copyright" not in result.text
    assert result.markup.splitlines()[1:] == [f"<p>{s}" for s in STORY]
    with pytest.raises(ConfigError):
        StupidOS(lambdas=(0.5, 0.5, 0.0, 0.0))


def test_font_size_from_markup():
    root = lxml_html.fromstring(
        "<div><h2>t</h2><font size='5'><b>u</b></font>"
        "<small><span style='font-size: 2em'>v</span></small><p>w</p></div>"
    )
    sizes = {el.text: font_size(el) for el in root.iter() if el.text}
    assert sizes == {"t": 24.0, "u": 24.0, "v": pytest.approx(2 * 0.83 * 16), "w": 16.0}


def test_genieknows_learns_importance_and_tags():
    model = GenieKnows().fit([_page(k) for k in range(4)])
    result = model.extract(_page(9))
    assert all(s in result.text for s in STORY)
    assert "Sign in" not in result.text and "More stories" not in result.text
    assert result.markup.startswith("<h>Bridge to close 9\n<p>")
    importance, unit, targets = model.importance(_page(9))
    assert len(importance) == len(targets) and unit.max() == len(targets) - 1


MIXED = (
    "<html><body><div><a href='/'>首页</a> | <a href='/en'>English</a></div>"
    "<p>我们在北京大学学习Python编程。Καλημέρα κόσμε, привет мир! 日本語のテキストです。</p>"
    "<p>版权所有 © 2016</p></body></html>"
)
NO_LETTERS = "<html><body><p>12345 !!! ---</p><div>$$$ 3.14 ... ;;;</div><p>2007-07-13 | 10:20</p></body></html>"


@pytest.mark.parametrize("name", ["wcc", "stupidos", "genieknows", "fiasco", "bte"])
def test_mixed_scripts_and_no_letters_give_clear_results(name):
    from registry import make_extractor
    from test_bad_input import TRAIN

    from boilerbench.experiments.scoring import evaluate_page

    extractor = make_extractor(name, quick=True).fit(TRAIN, None)
    gold = "我们在北京大学学习Python编程。Καλημέρα κόσμε, привет мир! 日本語のテキストです。"
    mixed = Page("mixed", MIXED, gold, meta={"gold_markup": "<p>" + gold})
    row = evaluate_page(extractor, mixed, 10**6).row
    assert row["error"] == "" and 0 <= row["cleaneval"] <= 100 and 0 <= row["cleaneval_markup"] <= 100
    assert mixed.tokenizer == "ja"  # kana on the page: Han and kana as characters, the rest by whitespace
    assert row["n_gold_tokens"] == len("我们在北京大学学习") + 1 + 2 + 2 + len("日本語のテキストです") + 1 + 1
    empty = Page("digits", NO_LETTERS, "12345")
    row = evaluate_page(extractor, empty, 10**6).row
    assert row["error"] == "" and 0 <= row["cleaneval"] <= 100 and row["n_gold_tokens"] == 1
