"""Property-based fuzzing (hypothesis) of every extractor with generated HTML, a small budget for
CI: no exception escapes the runner's per-page path, the row is a text or a recorded error, and
the kept text invents no token (``benchmarks/fuzz.py`` defines the pages and the check, and runs
10,000 pages per extractor). What would fail: an extractor exception that is not turned into the
page's error, a scoring step that raises on a strange text, an extractor that emits text that is
not on the page (a template string, another page's text)."""

from __future__ import annotations

import functools

import pytest
from hypothesis import HealthCheck, given, settings
from registry import EXTRACTOR_NAMES, QUICK_FIT, make_extractor

from benchmarks.fuzz import Generated, documents, fitted, fuzz_page, invented_tokens
from boilerbench.errors import MissingDependencyError

#: Fitted extractors whose training (even short) or extraction costs seconds: run with -m slow.
SLOW = {"boilernet", "lm_embedding", "stack", "tagpath_lstm", "web2text", "web2text_unary", "readabilipy"}


@functools.cache
def extractor(name: str) -> object:
    """The extractor, fitted on the tiny hand-made set when it learns (once per test session)."""
    try:
        return fitted(name, QUICK_FIT.get(name, ()))
    except MissingDependencyError as err:
        pytest.skip(f"{name}: {err}")


def test_the_invented_text_check_by_hand():
    page = "<p title='Tip'>Hello <b>wor</b>ld, &amp;friends</p><script>var x</script><!-- note -->"
    assert invented_tokens("Hello world, &friends", page) == ([], [])
    assert invented_tokens("wor ld Tip var note", page) == ([], [])  # split, attributes, scripts, comments
    assert invented_tokens("HELLO World!", page) == ([], [])  # case and punctuation do not matter
    assert invented_tokens("Hello planet", page) == (["planet"], [])
    assert invented_tokens("Hello Hello", page) == ([], ["hello"])  # more often than on the page
    # entities decoded twice (trafilatura, inscriptis) in text that touches a tag: not repeated
    assert invented_tokens("&中 中", "<p>&amp;amp;中 中</p>") == ([], [])
    # the parser drops the stray <tr>, joining the text either side; decoded twice, it is "<b>hYY"
    assert invented_tokens("<b>hYY", "<div>&amp;lt;b&amp;gt;<tr>hYY</div>") == ([], [])
    # the text on either side of a style runs together on the screen (all_text kept "aaacg7")
    assert invented_tokens("aaacg7", "<p>aaa<style>p {}</style>cg7</p>") == ([], [])
    assert invented_tokens("aaacg7", "<p>aaa<b>x</b>cg7</p>") == (["aaacg7"], [])  # shown: not a join
    # CDATA in math is text to an HTML5 parser (resiliparse), a comment to libxml2
    assert invented_tokens("字 x 字", "<math><![CDATA[字 x 字]]></math>") == ([], [])
    assert invented_tokens("abcd", "<math>ab<!--x--><![CDATA[cd]]></math>") == ([], [])
    # an ordered list's numbers are shown (inscriptis writes them); a third is not on the page
    assert invented_tokens(" 1. alpha\n 2. beta", "<ol><li>alpha</li><li>beta</li></ol>") == ([], [])
    assert invented_tokens("3. alpha", "<ol><li>alpha</li><li>beta</li></ol>") == (["3"], [])
    # text directly in a table is moved out in front of it by an HTML5 parser (resiliparse kept
    # "&amp;Cac" from "<table>&amp;amp;<svg …" and a "Cac" much later); libxml2 leaves it in place
    assert invented_tokens("abcd x", "<table>ab<tr><td>x</td></tr>cd</table>") == ([], [])
    assert invented_tokens("abcd", "<div>ab<table><tr><td>x</td></tr></table>cd</div>") == (["abcd"], [])
    # ... and the HTML5 tree as a browser shows it: resiliparse drops the foster-parented svg's text
    assert invented_tokens("ac", "<table>a<tr><td>x</td></tr><svg><font>b</font></svg>c</table>") == ([], [])
    assert invented_tokens("ace", "<table>a<svg><font>b</font></svg><tr><td>x</td></tr>c</table>") == (["ace"], [])


def test_the_views_are_read_cheapest_first_and_only_as_far_as_needed():
    """What would fail: the HTML5 parser (pure Python, the costliest view) run on every page, or a
    tier skipped when the earlier ones do not account for a token."""
    from benchmarks.fuzz import TIERS, Views

    page = "<table>ab<tr><td>x</td></tr>cd</table>"
    views = Views(page)
    assert views.compare("ab x") == ([], []) and views.read == 1  # the markup alone accounts for it
    assert views.compare("abcd") == ([], []) and views.read == len(TIERS)  # only the HTML5 tree does
    views = Views(page)
    assert views.compare("zz") == (["zz"], []) and views.read == len(TIERS)


@pytest.mark.parametrize(
    "name", [pytest.param(n, marks=[pytest.mark.slow] if n in SLOW else []) for n in EXTRACTOR_NAMES]
)
def test_generated_pages_never_escape_and_invent_nothing(name):
    built = extractor(name)

    @settings(
        max_examples=8,
        deadline=None,
        database=None,
        derandomize=True,
        suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
    )
    @given(documents(big=False))
    def check(data: bytes) -> None:
        outcome = fuzz_page(built, data)  # an exception here fails the test: it would end a run
        assert isinstance(outcome.error, str)
        assert outcome.invented == [], outcome.invented[:5]

    check()


class _Echo:
    """Keeps the page's text; sleeps on a page that says ``slow``, raises on one that says ``boom``
    (an extractor exception: the row's error, not an escape)."""

    def extract(self, page):
        import time

        from boilerbench.extractors.base import Extraction

        if "slow" in page.html:
            time.sleep(30)
        if "boom" in page.html:
            raise ValueError("boom")
        return Extraction(page.html.replace("<p>", "").replace("</p>", ""))


def test_fuzz_all_counts_per_extractor_and_names_the_one_that_timed_out():
    """Two forked workers, one page past the time limit while the second extractor runs on it.
    What would fail: tallies of the two workers not merged, a timeout charged to the wrong
    extractor (or to all), the pages column counting a page an extractor never finished."""
    from benchmarks.fuzz import fuzz_all

    pages = [b"<p>alpha</p>", b"<p>boom</p>", b"<p>slow</p>", b"<p>beta</p>"]
    extractors = {"first": make_extractor("all_text"), "echo": _Echo()}
    tallies = fuzz_all(extractors, pages, jobs=2, page_timeout_s=3.0)
    echo, first = tallies["echo"], tallies["first"]
    assert (echo.pages, echo.escaped, echo.errors, echo.invented) == (4, 0, 2, 0)
    assert echo.examples["worker: PageTimeout: page took more than 3 s"] == 1
    assert echo.examples["error ValueError: boom"] == 1
    assert echo.problems == [2]
    # the first extractor's tally of the slow page died with its worker
    assert (first.pages, first.escaped, first.errors, first.invented) == (3, 0, 0, 0)


class _StallingDecode(Generated):
    """:class:`benchmarks.fuzz.Generated` whose decoding of a page that says ``stall`` hangs."""

    def __init__(self, data, page_id="fuzz"):
        import time

        if b"stall" in data:
            time.sleep(30)
        super().__init__(data, page_id)


def test_a_page_whose_decoding_times_out_fails_every_extractor(monkeypatch):
    """What would fail: the timeout of a page still being decoded charged to the first extractor
    (the shared slot's initial value) as if that extractor had hung."""
    import benchmarks.fuzz as fuzz

    monkeypatch.setattr(fuzz, "Generated", _StallingDecode)
    extractors = {"first": make_extractor("all_text"), "echo": _Echo()}
    tallies = fuzz.fuzz_all(extractors, [b"<p>alpha</p>", b"<p>stall</p>"], jobs=1, page_timeout_s=3.0)
    for tally in tallies.values():
        assert (tally.pages, tally.escaped, tally.errors, tally.invented) == (2, 0, 1, 0)
        assert tally.examples["worker while decoding: PageTimeout: page took more than 3 s"] == 1
        assert tally.problems == [1]


def test_a_repeated_token_is_counted_and_its_page_kept():
    """What would fail: repeated text counted but its page not kept for --save (it could not be
    reproduced), or a clean page kept."""
    from collections import Counter

    from benchmarks.fuzz import Outcome, Tally, _count

    tally = Tally()
    _count(tally, 7, lambda: Outcome("", [], ["alpha"]))
    _count(tally, 8, lambda: Outcome("", [], []))
    assert (tally.pages, tally.repeated, tally.invented) == (2, 1, 0)
    assert tally.problems == [7] and tally.examples == Counter({"repeated ['alpha']": 1})


def test_pages_generated_apart_are_the_pages_generated_here():
    """What would fail: the child's pages differing from the in-process ones (a seed not passed,
    the pages not sent back whole), which would make a run's pages depend on where they were made."""
    from benchmarks.fuzz import generate, generate_apart

    assert generate_apart(12, 3) == generate(12, 3) != generate(12, 4)
