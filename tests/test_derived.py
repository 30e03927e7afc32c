"""Training pages are derived one at a time and released: a fit keeps its features, not trees."""

from boilerbench.datasets.page import Page
from boilerbench.extractors.derived import derive, with_text


def _parsed(page: Page) -> bool:
    return "blocks" in page.__dict__


def test_derive_computes_each_distinct_page_once_in_order_and_releases_it():
    a, b = Page("a", "<p>one two</p><p>three</p>", ""), Page("b", "<p>four</p>", "")
    calls = []

    def compute(page):
        calls.append(page.id)
        return (page.id, len(page.blocks), page.blocks.texts)

    # a balanced mixture repeats a page: computed once, the same result shared
    results = derive([a, b, a], compute)
    assert calls == ["a", "b"]
    assert results == [("a", 2, ["one two", "three"]), ("b", 1, ["four"]), ("a", 2, ["one two", "three"])]
    assert results[0] is results[2]
    assert not _parsed(a) and not _parsed(b)
    # read again after the release: parsed anew, the same blocks
    assert a.blocks.texts == ["one two", "three"]


def test_with_text_keeps_pages_with_blocks_and_releases_every_page():
    pages = [Page("a", "<p>text</p>", ""), Page("empty", "", ""), Page("script", "<script>x()</script>", "")]
    kept = with_text(pages)
    assert [p.id for p in kept] == ["a"]
    assert not any(_parsed(p) for p in pages)


def test_with_text_does_not_parse_a_page_whose_gold_labels_are_cached(tmp_path, monkeypatch):
    from boilerbench.cache import set_cache_dir
    from boilerbench.datasets import page as page_module

    set_cache_dir(tmp_path)
    pages = [Page("a", "<p>one two</p><p>three</p>", "three"), Page("empty", "", "")]
    assert [p.id for p in with_text(pages)] == ["a"]  # cold: parses and caches the labels
    parsed = []
    real_segment = page_module.segment
    monkeypatch.setattr(page_module, "segment", lambda html, **kw: parsed.append(html) or real_segment(html, **kw))
    kept = with_text(pages)
    assert [p.id for p in kept] == ["a"] and parsed == []
    # a fit's derive step then parses each kept page exactly once
    assert derive(kept, lambda p: (p.blocks.texts, list(p.gold_labels))) == [(["one two", "three"], [0, 1])]
    assert parsed == ["<p>one two</p><p>three</p>"]
