"""jusText's paragraphs computed once each (boilerbench.extractors.references.justext_paragraphs):
hand-computed classes on a small page, and the library's own text on tricky pages and, with
BOILERBENCH_DATA, on the datasets' pages."""

import sys

import lxml.html
import pytest
from lxml import etree
from omegaconf import DictConfig, OmegaConf

justext = pytest.importorskip("justext")

from boilerbench.datasets.page import Page  # noqa: E402
from boilerbench.experiments.runner import CONF_DIR, build  # noqa: E402
from boilerbench.extractors.references import JusText  # noqa: E402
from boilerbench.extractors.references import justext_paragraphs as native  # noqa: E402
from boilerbench.extractors.references.justext import INDEPENDENT  # noqa: E402
from boilerbench.extractors.references.lxml_tree import html_tree  # noqa: E402
from boilerbench.extractors.sharing import sharing  # noqa: E402

ENGLISH = justext.get_stoplist("English")
SENTENCE = "The council met on Tuesday and it decided that the money would go to the schools of the town. "
#: A heading, a good paragraph (264 characters, stopword density 0.5), a paragraph of links and
#: a copyright line.
PAGE = (
    "<html><body><div><h1>Title</h1>"
    f"<p>{SENTENCE * 3}</p>"
    '<p><a href="/">Home</a> <a href="/about">About us</a></p>'
    "<p>\xa9 2024 The Town</p></div></body></html>"
)


def classes(html: str) -> list[tuple[str, str, str]]:
    found = native.make_paragraphs(justext.core.preprocessor(justext.core.html_to_dom(html)))
    native.classify_paragraphs(found, ENGLISH)
    native.revise_paragraph_classification(found)
    return [(p.text[:5], p.cf_class, p.class_type) for p in found]


def library_text(html: str, stoplist: frozenset = ENGLISH, **thresholds: float) -> str:
    return "\n".join(p.text for p in justext.justext(html, stoplist, **thresholds) if not p.is_boilerplate)


def test_the_classes_of_a_hand_made_page():
    # Title: 5 characters, no link: short; between the page's edge (bad) and a good paragraph it
    # turns bad, and as a heading followed by good text within 200 characters it becomes good
    # again. The links (density 1) and the copyright sign are bad.
    assert classes(PAGE) == [
        ("Title", "short", "good"),
        ("The c", "good", "good"),
        ("HomeA", "bad", "bad"),  # the space between the links is a blank text node: dropped
        ("\xa9 202", "bad", "bad"),
    ]
    assert JusText(stoplist="English").extract(Page("p", PAGE, "")).text == f"Title\n{(SENTENCE * 3).strip()}"


@pytest.mark.parametrize(
    "text",
    ["a  b", "a \t\n b", "a\r\nb", " lead and trail ", "no\u00a0break\u2003em", "x\u2028y", "", "\n\n", "one"],
)
def test_whitespace_is_normalised_as_justext_does(text):
    assert native.normalize_whitespace(text) == justext.utils.normalize_whitespace(text)


TRICKY = {
    "line breaks": f"<body><p>{SENTENCE}<br>{SENTENCE}<br><br>{SENTENCE * 2}<br><br><br>tail</p></body>",
    "inline and links": f"<body><div>{SENTENCE}<b>bold</b> <a href='#'>{SENTENCE}</a> after</div></body>",
    "select and comments": (
        f"<body><select><option>{SENTENCE * 3}</option></select><!-- c -->tail<p>{SENTENCE * 3}</p></body>"
    ),
    "short between good": f"<body><p>{SENTENCE * 3}</p><p>short one</p><p>{SENTENCE * 3}</p></body>",
    "near-good between bad": f"<body><p>{'x ' * 40}</p><p>{SENTENCE}</p><p>{'y ' * 40}</p></body>",
    "headings": f"<body><h2>Heading</h2><p>{'z ' * 120}</p><h3>Next</h3><p>{SENTENCE * 3}</p></body>",
    "carriage returns": f"<body><pre>{SENTENCE}\r\n\r\n{SENTENCE}</pre><td>a\rb</td></body>",
    "no body": f"<p>{SENTENCE * 3}</p>tail text",
}


@pytest.mark.parametrize("name", sorted(TRICKY))
def test_the_text_is_the_librarys_from_the_string_and_from_the_shared_tree(name):
    html = TRICKY[name]
    expected = library_text(html)
    extractor = JusText(stoplist="English")
    page = Page("p", html, "")
    assert extractor.extract(page).text == expected
    with sharing(page):
        assert (html_tree(page) is None) == (name == "no body")  # trafilatura parses no tree there
        assert extractor.extract(page).text == expected


def test_the_language_independent_mode_is_the_librarys():
    html = TRICKY["short between good"]
    text = JusText(stoplist=INDEPENDENT).extract(Page("p", html, "")).text
    assert text == library_text(html, frozenset(), stopwords_low=0.0, stopwords_high=0.0) != ""


def test_a_tree_deeper_than_the_recursion_limit_is_read_from_a_stack():
    body = inner = lxml.html.Element("body")
    for _ in range(sys.getrecursionlimit() + 100):  # past what lxml's HTML parser builds, so by hand
        inner = etree.SubElement(inner, "span")
    inner.text = SENTENCE
    assert [p.text for p in justext.core.ParagraphMaker.make_paragraphs(body)] == [SENTENCE.strip()]
    assert [p.text for p in native.make_paragraphs(body)] == [SENTENCE.strip()]


@pytest.mark.parametrize("dataset", ["cleaneval", "daniel", "wcxb"])
def test_the_text_is_the_librarys_on_the_datasets_pages(dataset, data_root):
    node = OmegaConf.load(CONF_DIR / "dataset" / f"{dataset}.yaml")
    assert isinstance(node, DictConfig)
    node.data_dir, node.download = str(data_root), False
    extractor = JusText()
    pages = [p for p in build(node).load().test if not p.load_error][:40]
    for page in pages:
        name = extractor.stoplist_for(page)
        stoplist, thresholds = (
            (frozenset(), {"stopwords_low": 0.0, "stopwords_high": 0.0})
            if name == INDEPENDENT
            else (justext.get_stoplist(name), {})
        )
        assert extractor.extract(page).text == library_text(page.html, stoplist, **thresholds), page.id
