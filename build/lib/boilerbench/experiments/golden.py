"""Golden pages: a few small hand-made pages (news, a forum thread, a listing; English, Russian,
Chinese, Greek) on which a model file records what its extractor outputs when it is written, so
that reading it later can check that the running code still gives the same outputs
(:mod:`boilerbench.experiments.model_file`). What decides whether a model can be used is then
what changes its predictions, not any edit of the source: a new release that leaves the
features and outputs alone keeps every model file working.
"""

from __future__ import annotations

import hashlib

from boilerbench.datasets.page import Page

_NAV = "<ul><li><a href='/'>Home</a></li><li><a href='/news'>News</a></li><li><a href='/about'>About</a></li></ul>"
_FOOTER = "<footer><p>© 2026 Example Media. All rights reserved. <a href='/privacy'>Privacy</a></p></footer>"


def _page(title: str, body: str) -> str:
    return f"<html><head><title>{title}</title></head><body><nav>{_NAV}</nav><main>{body}</main>{_FOOTER}</body></html>"


GOLDEN_PAGES: dict[str, str] = {
    "en_article": _page(
        "Council budget",
        "<h1>Council approves the new budget for schools</h1><p class='byline'>By Anna Smith</p>"
        "<p>The city council met on Tuesday evening to discuss the new budget for schools and public "
        "libraries, and after a long debate it decided that more money would go to education next year.</p>"
        "<p>Teachers welcomed the decision, which they said had been expected for a long time, while some "
        "members of the council asked where the money would come from and whether taxes would rise.</p>",
    ),
    "ru_article": _page(
        "Бюджет",
        "<h1>Городской совет утвердил бюджет</h1><p>Городской совет во вторник вечером обсудил новый бюджет "
        "для школ и публичных библиотек. Депутаты решили, что в следующем году на образование будет выделено "
        "больше денег, чем в этом, и что все они будут там, где это нужно.</p>",
    ),
    "zh_article": _page(
        "预算",
        "<h1>市议会通过新预算</h1><p>市议会星期二晚上开会，讨论了学校和公共图书馆的新预算，并决定明年增加教育经费。"
        "教师们对这一决定表示欢迎，他们说这是期待已久的事情，而一些议员则询问资金从哪里来。</p>",
    ),
    "el_forum": _page(
        "Συζήτηση",
        "".join(
            f"<div class='post'><span class='user'>χρήστης{i}</span><p>Το δημοτικό συμβούλιο συνεδρίασε την "
            f"Τρίτη το βράδυ για να συζητήσει τον νέο προϋπολογισμό των σχολείων, απάντηση {i}.</p></div>"
            for i in range(1, 6)
        ),
    ),
    "en_listing": _page(
        "Products",
        "<h1>Garden tools</h1>"
        + "".join(
            f"<div class='item'><h3>Spade model {i}</h3><p>A sturdy steel spade with an ash handle, item {i}.</p>"
            f"<span class='price'>{10 + i}.99 EUR</span></div>"
            for i in range(1, 11)
        ),
    ),
}


def golden_outputs(extractor: object) -> dict[str, str]:
    """The SHA-256 of ``extractor``'s text on each golden page ("error: <type>" where it fails)."""
    outputs = {}
    for name, html in GOLDEN_PAGES.items():
        try:
            text = extractor.extract(Page(id=name, html=html, gold_text="")).text  # type: ignore[attr-defined]
            outputs[name] = hashlib.sha256(text.encode("utf-8")).hexdigest()
        except Exception as err:  # a page the extractor refuses is an output too
            outputs[name] = f"error: {type(err).__name__}"
    return outputs
