"""Page language: detection on hand-made pages in six scripts, the abstention rule, labels, stoplists."""

from __future__ import annotations

import threading

import justext
import pytest

from boilerbench.datasets.encoding import decode_bytes
from boilerbench.datasets.page import Page
from boilerbench.datasets.reading import read_gzip, read_json
from boilerbench.html_tree import parse_html
from boilerbench.language import (
    MIN_CONFIDENCE,
    MIN_LETTERS,
    detect,
    justext_stoplist,
    page_language,
    page_text_sample,
    text_sample,
)

#: One paragraph of running text per language, each in its own script (or, for English and
#: German, with its own function words).
PARAGRAPHS = {
    "en": "The city council met on Tuesday evening to discuss the new budget for schools and public libraries.",
    "de": "Der Stadtrat hat am Dienstagabend über den neuen Haushalt für Schulen und öffentliche Bibliotheken beraten.",
    "ru": "Городской совет во вторник вечером обсудил новый бюджет для школ и публичных библиотек.",
    "el": "Το δημοτικό συμβούλιο συνεδρίασε την Τρίτη το βράδυ για να συζητήσει τον νέο προϋπολογισμό των σχολείων.",
    "zh": "市议会星期二晚上开会，讨论了学校和公共图书馆的新预算，并决定明年增加教育经费。",
    "ar": "اجتمع مجلس المدينة مساء الثلاثاء لمناقشة الميزانية الجديدة للمدارس والمكتبات العامة في المدينة.",
    "ja": "市議会は火曜日の夜に会議を開き、学校と公共図書館のための新しい予算について話し合いました。",
}


def _page_html(paragraph: str) -> str:
    """A page whose only long line is ``paragraph``, with English script and style text around it
    that detection must not read."""
    return (
        "<html><head><title>Home</title><style>body { font-family: serif; color: black; }</style></head><body>"
        "<script>var message = 'this script text is written in English and is long enough to be read';</script>"
        f"<div>Menu</div><p>{paragraph}</p>"
        "<noscript>Please enable JavaScript in your browser to see the whole of this page.</noscript>"
        "</body></html>"
    )


@pytest.mark.parametrize("code", sorted(PARAGRAPHS))
def test_detect_page_in_each_script(code):
    assert detect(page_text_sample(_page_html(PARAGRAPHS[code]))) == code


def test_page_text_sample_keeps_visible_text_only():
    text = page_text_sample(_page_html("Hello there."))
    assert text.splitlines() == ["Menu", "Hello there."]


def test_page_text_sample_accepts_a_parsed_tree_and_leaves_it_alone():
    root = parse_html(_page_html("Hello there."))
    assert page_text_sample(root) == "Menu\nHello there."
    assert root.find(".//script") is not None


def test_page_text_sample_is_bounded():
    html = "<html><body>" + "<p>word word word word</p>" * 1000 + "</body></html>"
    text = page_text_sample(html, limit=100)
    assert text.splitlines() == ["word word word word"] * 5


def test_text_sample_takes_longest_lines_first_up_to_the_limit():
    assert text_sample("a\nlonger  line\nmid", limit=16) == "longer line\nmid"
    assert text_sample("x" * 50, limit=10) == "x" * 10


def test_too_short_text_is_unknown():
    assert detect("Hello world") == ""
    assert detect("") == ""
    assert detect("1234 5678 -- !!") == ""


def test_uncertain_text_is_unknown():
    """The probability threshold, with a stand-in identifier whose answer is known."""
    text = PARAGRAPHS["en"]
    assert detect(text, identifier=lambda sample: ("en", MIN_CONFIDENCE)) == "en"
    assert detect(text, identifier=lambda sample: ("en", MIN_CONFIDENCE - 0.01)) == ""


def test_identifier_reads_the_bounded_sample():
    """The identifier sees the longest line first, cut at ``sample_chars``, not the whole text."""
    seen: list[str] = []

    def record(sample: str) -> tuple[str, float]:
        seen.append(sample)
        return "en", 1.0

    assert detect("a" * 30 + "\n" + "b" * 100, identifier=record, sample_chars=40) == "en"
    assert seen == ["b" * 40]


def test_letter_minimum_counts_han_characters():
    """Twenty Han characters are a sentence: enough; nineteen are not."""
    sentence = PARAGRAPHS["zh"].replace("，", "")[:MIN_LETTERS]
    assert detect(sentence) == "zh"
    assert detect(sentence[:-1]) == ""


def test_chinese_variants_map_to_zh():
    """py3langid's Cantonese label (yue) is reported as ISO 639-1 Chinese."""
    cantonese = "佢哋琴日喺度食咗飯先至返屋企，我哋今日唔去啦，因為好攰呀。"
    assert detect(cantonese * 3) == "zh"


def test_detect_from_threads_agrees():
    results: list[str] = []
    threads = [threading.Thread(target=lambda c=c: results.append(detect(PARAGRAPHS[c]))) for c in ("ru", "el")]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert sorted(results) == ["el", "ru"]


def test_dataset_label_overrides_detection():
    html = _page_html(PARAGRAPHS["ru"])
    assert page_language(Page(id="p", html=html, gold_text="")) == "ru"
    assert page_language(Page(id="p", html=html, gold_text="", meta={"language": "PL"})) == "pl"


def test_justext_stoplist():
    assert justext_stoplist("ru") == "Russian"
    assert justext_stoplist("EL") == "Greek"
    assert justext_stoplist("zh") is None
    assert justext_stoplist("th") is None


@pytest.mark.data
def test_detect_daniel_pages_from_their_html(data_root):
    """The first five DANIEL pages of each language (by id), detected from their HTML alone."""
    labels = read_json(data_root / "daniel" / "doc_lg.json")
    codes = {"English": "en", "Chinese": "zh", "Greek": "el", "Polish": "pl", "Russian": "ru"}
    for name, code in codes.items():
        for page_id in sorted(pid for pid, lang in labels.items() if lang == name)[:5]:
            html = decode_bytes(read_gzip(data_root / "daniel" / "html" / f"{page_id}.gz"))
            assert detect(page_text_sample(html)) == code, page_id


def test_every_stoplist_name_exists_in_justext():
    from boilerbench.language import _JUSTEXT_STOPLISTS

    assert set(_JUSTEXT_STOPLISTS.values()) <= justext.get_stoplists()
    assert len(_JUSTEXT_STOPLISTS) == 85
