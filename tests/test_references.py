"""The reference extractors: thin adapters over third-party packages (the ``refs`` extra)."""

import subprocess
import sys

import pytest
from registry import PROJECT, make_extractor

from boilerbench.datasets.page import Page
from boilerbench.errors import MissingDependencyError
from boilerbench.extractors.references import PageTooLargeError, require

REFERENCES = [
    "boilerpipe",
    "goose3",
    "html_text",
    "inscriptis",
    "justext",
    "newspaper",
    "readabilipy",
    "readability",
    "resiliparse",
    "trafilatura",
]
#: The whole-page converters: they keep the menus too.
WHOLE_PAGE = ("inscriptis", "html_text")

ARTICLE = " ".join(
    [
        "The council met on Tuesday evening to discuss the new library building on the main square.",
        "After a long debate, the members agreed that construction would begin in the spring,",
        "and that the old reading room would stay open until the new building is finished.",
        "Residents who spoke at the meeting welcomed the decision and asked for longer opening hours.",
    ]
)
SECOND = "The mayor said that the budget for the project had been approved last year and would not change."
PAGE = (
    "<html><head><title>Library plans approved</title></head><body>"
    '<div id="menu"><ul><li><a href="/">Home</a></li><li><a href="/news">News</a></li>'
    '<li><a href="/sport">Sport</a></li><li><a href="/contact">Contact</a></li></ul></div>'
    f'<div id="article"><h1>Library plans approved</h1><p>{ARTICLE}</p><p>{SECOND}</p></div>'
    '<div id="footer"><a href="/privacy">Privacy</a> | <a href="/terms">Terms</a></div>'
    "</body></html>"
)


@pytest.mark.parametrize("name", REFERENCES)
def test_reference_extracts_the_article(name):
    extractor = make_extractor(name)
    text = extractor.extract(Page("p", PAGE, ARTICLE)).text
    assert "construction would begin in the spring" in text
    assert "The council met on Tuesday evening" in text and "budget for the project" in text
    if name in WHOLE_PAGE:  # the baselines keep everything
        assert "Contact" in text and "Privacy" in text
    else:
        assert "Privacy" not in text


QUOTED = "The mayor told the “Zürich Ελλάδα” reporters that the budget — approved last year — would not change."


@pytest.mark.parametrize("declared", ["iso-8859-1", "bogus-8"])
@pytest.mark.parametrize("name", REFERENCES)
def test_reference_reads_the_decoded_page_whatever_it_declares(name, declared):
    """The loaders decode the page; what its ``<meta charset>`` says has no work left to do. What
    would fail: an adapter whose library re-encodes the text to the declared charset (goose3 did:
    mojibake across the page for ISO-8859-1 with a curly quote, a LookupError for ``bogus-8``)."""
    page = PAGE.replace("<head>", f'<head><meta charset="{declared}">').replace(SECOND, QUOTED)
    assert make_extractor(name).extract(Page("p", page, ARTICLE)).text.count(QUOTED) == 1


def test_goose_sees_utf8_declared_in_place_and_only_where_another_charset_is():
    """What would fail: a declaration added before the page (it moves the parse: Dragnet pages
    that declare UTF-8 lost their article), or a page that declares UTF-8 or nothing touched."""
    from boilerbench.extractors.references.goose import declared_as_utf8

    for unchanged in ('<meta charset="UTF-8"><p>x', '<meta charset="utf8"><p>x', "<p>x</p>", ""):
        assert declared_as_utf8(unchanged) is unchanged
    latin = '<head><meta http-equiv="Content-Type" content="text/html; charset=iso-8859-1"></head>'
    assert declared_as_utf8(latin) == latin.replace("iso-8859-1", "utf-8")
    assert declared_as_utf8('<meta charset="bogus-8"><meta charset="koi8-r">') == (
        '<meta charset="utf-8"><meta charset="koi8-r">'  # the first is the one goose3 reads
    )
    assert (
        declared_as_utf8('<?xml version="1.0" encoding="cp1251"?><p>x') == '<?xml version="1.0" encoding="utf-8"?><p>x'
    )


@pytest.mark.parametrize("name", REFERENCES)
def test_reference_limits(name):
    extractor = make_extractor(name)
    assert extractor.extract(Page("p", "  \n ", "")).text == ""
    extractor.max_html_chars = 100
    with pytest.raises(PageTooLargeError, match="limit 100"):
        extractor.extract(Page("p", PAGE, ""))


def test_missing_package_gives_the_install_command():
    with pytest.raises(MissingDependencyError, match=r"'no-such-package'.*pip install -e \"\.\[refs\]\""):
        require("no_such_module_for_boilerbench", "no-such-package")


def test_missing_package_is_one_clear_cli_message(tmp_path):
    # Hide trafilatura from the child process: the run stops with one line, no traceback.
    blocker = tmp_path / "sitecustomize.py"
    blocker.write_text("import sys\nsys.modules['trafilatura'] = None\n")
    env = {"PYTHONPATH": str(tmp_path), "PATH": "/usr/bin:/bin", "BOILERBENCH_DATA": str(tmp_path)}
    pages = tmp_path / "pages"
    pages.mkdir()
    (pages / "a.html").write_text("<p>x</p>")
    (pages / "a.txt").write_text("x")
    proc = subprocess.run(
        [
            sys.executable,
            "run.py",
            "extractor=trafilatura",
            "dataset=plaintext",
            f"dataset.root={pages}",
            f"hydra.run.dir={tmp_path / 'out'}",
        ],
        cwd=PROJECT,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert proc.returncode == 2
    assert "trafilatura" in proc.stderr and 'pip install -e ".[refs]"' in proc.stderr
    assert "Traceback" not in proc.stderr


def _node_readabilipy(**kwargs):
    from boilerbench.extractors.references.readabilipy import ReadabiliPy

    extractor = ReadabiliPy(**kwargs)
    if extractor.run_info()["readabilipy_engine"] != "node":
        pytest.skip("node or ReadabiliPy's JavaScript dependencies are not installed")
    return extractor


def test_readabilipy_node_server_gives_readabilipys_own_text():
    """One node process for every page gives what ReadabiliPy's one process per page gives."""
    extractor = _node_readabilipy()
    own = extractor._lib.simple_json_from_html_string(PAGE, use_readability=True)["plain_text"]
    assert extractor.node_blocks(PAGE) == own and any("spring" in b["text"] for b in own)
    first = extractor._server._process
    short = "<html><body><p>Short.</p></body></html>"
    assert extractor.node_blocks(short) == extractor._lib.simple_json_from_html_string(short, True)["plain_text"]
    assert extractor._server._process is first
    assert extractor.run_info() == {"readabilipy_engine": "node"}


def test_readabilipy_node_server_failures_are_page_errors_and_the_next_page_goes_on():
    from boilerbench.extractors.references.readabilipy import ReadabilityJsError

    extractor = _node_readabilipy(timeout_s=0.001)
    with pytest.raises(ReadabilityJsError, match="no answer within 0.001 s"):
        extractor.extract(Page("slow", PAGE, ARTICLE))
    assert extractor._server._process is None  # killed: its late answer cannot reach the next page
    extractor._server.timeout_s = 60
    assert "budget for the project" in extractor.extract(Page("p", PAGE, ARTICLE)).text
    extractor._server._process.kill()  # node died between pages: the next page starts a new one
    extractor._server._process.wait()
    assert "budget for the project" in extractor.extract(Page("p", PAGE, ARTICLE)).text


def test_readabilipy_forked_worker_starts_its_own_node():
    import multiprocessing

    global _FORKED
    _FORKED = extractor = _node_readabilipy()
    parent = extractor._server._start().pid
    context = multiprocessing.get_context("fork")
    with context.Pool(1) as pool:
        child_pid, text = pool.apply(_extract_in_child)
    assert child_pid != parent and "budget for the project" in text
    assert extractor._server._process.pid == parent and extractor._server._process.poll() is None
    assert "budget for the project" in extractor.extract(Page("p", PAGE, ARTICLE)).text


#: The extractor a forked worker inherits (test_readabilipy_forked_worker_starts_its_own_node).
_FORKED = None


def _extract_in_child():
    assert _FORKED is not None
    text = _FORKED.extract(Page("p", PAGE, ARTICLE)).text
    return _FORKED._server._process.pid, text


def test_a_library_failure_is_the_row_error_and_logs_nothing(caplog):
    """readability-lxml logs a traceback for every page it cannot parse (a page of one comment):
    in a crawl that is one traceback per such page on standard error, for a failure the row
    already records."""
    from boilerbench.experiments.scoring import evaluate_page

    result = evaluate_page(make_extractor("readability"), Page(id="c", html="<!-- x -->", gold_text=""), 10**6)
    assert result.row["error"] == "Unparseable: Document is empty"
    assert [r for r in caplog.records if r.name.startswith("readability")] == []


@pytest.mark.parametrize("tag", ["xmp", "iframe", "noembed", "noframes", "plaintext"])
def test_readability_keeps_raw_text_as_the_page_has_it(tag):
    """libxml2 parses these elements' content as raw text and serialises it escaped: read back
    from readability's summary, ``&lt;b&gt;`` on the page became ``&amp;lt;b&amp;gt;``, text
    that is not on the page (found by the fuzzer). What would fail: the summary's text read
    without restoring it, or a plaintext element's end tags read as its text."""
    from benchmarks.fuzz import invented_tokens

    article = "<p>" + "The council met today and agreed on the budget for the new bridge. " * 10 + "</p>"
    page = Page(id="r", html=f"<html><body><{tag}>&lt;b&gt; x &amp;amp; y</{tag}>{article}</body></html>", gold_text="")
    text = make_extractor("readability").extract(page).text
    assert invented_tokens(text, page.html) == ([], [])
    if tag != "iframe":  # readability drops an iframe that is no video embed
        assert "&lt;b&gt; x &amp;amp; y" in text and "&amp;lt;" not in text
