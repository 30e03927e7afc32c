"""Page metadata from hand-made pages: each source of each field, and its precedence."""

from __future__ import annotations

import pytest

from boilerbench.html_tree import parse_html
from boilerbench.metadata import (
    extract_metadata,
    find_author,
    find_canonical_url,
    find_language,
    find_sitename,
    find_title,
)


def root(head: str, body: str = "", html_attributes: str = ""):
    return parse_html(f"<html {html_attributes}><head>{head}</head><body>{body}</body></html>")


def test_title_is_the_h1_inside_the_declared_title():
    page = root("<title>River floods town | Daily News</title>", "<h1>Menu</h1><h1>River floods town</h1>")
    assert find_title(page) == "River floods town"


def test_title_without_an_h1_drops_the_site_suffix():
    assert (
        find_title(root('<meta property="og:title" content="A long article title - Site">')) == "A long article title"
    )
    assert find_title(root("<title>Home</title>")) == "Home"
    assert find_title(root("", "<h1>Only a heading</h1>")) == "Only a heading"
    assert find_title(root("")) is None


def test_author_from_json_ld_then_meta_then_rel_link():
    authors = '[{"name": "Ann Lee"}, {"name": "Bo Chen"}]'
    ld = f'<script type="application/ld+json">{{"@graph": [{{"@type": "Article", "author": {authors}}}]}}</script>'
    assert find_author(root(ld + '<meta name="author" content="Someone Else">')) == "Ann Lee, Bo Chen"
    assert find_author(root('<meta name="author" content="Cy Doe">')) == "Cy Doe"
    assert find_author(root('<meta property="article:author" content="https://facebook.com/x">')) is None
    assert find_author(root("", '<a rel="author" href="/u/1"> Di  Eve </a>')) == "Di Eve"
    assert find_author(root('<script type="application/ld+json">{broken</script>')) is None


def test_author_from_a_byline_element_without_its_lead_in():
    assert find_author(root("", '<span class="post-author">By Jo Park</span>')) == "Jo Park"
    assert find_author(root("", '<div itemprop="author"><span itemprop="name">Al Ray</span> staff</div>')) == "Al Ray"
    assert find_author(root('<meta name="author" content="Author: Kim Su">')) == "Kim Su"
    sentence = "a long sentence that mentions an author in passing and is no byline"
    assert find_author(root("", f'<p class="author">{sentence}</p>')) is None


def test_language_identified_from_the_text_before_the_declared_one():
    russian = "Городской совет во вторник вечером обсудил новый бюджет для школ и публичных библиотек."
    # a template's lang="en" on a Russian page: the text wins
    assert find_language(root("", "", 'lang="en"'), russian) == "ru"
    # too little text to identify: the declaration
    assert find_language(root("", "", 'lang="de-CH"'), "") == "de"
    assert find_language(root('<meta http-equiv="content-language" content="fr">'), "Hallo") == "fr"
    assert find_language(root(""), "これは日本語の文章です。今日はとても良い天気ですね。") == "ja"
    assert find_language(root(""), "short") is None


def test_site_name_and_canonical_url():
    head = '<meta property="og:site_name" content="Daily News"><link rel="canonical" href="/story/1">'
    page = root(head)
    assert find_sitename(page, "https://www.news.example/x?utm=1") == "Daily News"
    assert find_canonical_url(page, "https://www.news.example/x?utm=1") == "https://www.news.example/story/1"
    assert find_sitename(root(""), "https://www.news.example/x") == "news.example"
    assert find_canonical_url(root(""), "https://a.example/") == "https://a.example/"


def test_date_by_htmldate_and_every_field_present():
    pytest.importorskip("htmldate")
    html = (
        '<html><head><meta property="article:published_time" content="2024-03-05T10:00:00Z"><title>T</title></head>'
        "<body><p>Text.</p></body></html>"
    )
    fields = extract_metadata(parse_html(html), html, "https://a.example/p", "Text.", "article")
    assert fields == {
        "title": "T",
        "author": None,
        "date": "2024-03-05",
        "language": None,
        "sitename": "a.example",
        "canonical_url": "https://a.example/p",
        "page_type": "article",
    }


def test_a_url_instead_of_a_page_is_never_fetched(monkeypatch):
    htmldate = pytest.importorskip("htmldate")
    monkeypatch.setattr(htmldate, "find_date", lambda *a, **k: pytest.fail("htmldate was called"))
    assert extract_metadata(parse_html("http://example.com/"), "http://example.com/")["date"] is None
