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
from registry import EXTRACTOR_NAMES, QUICK_FIT

from benchmarks.fuzz import documents, fitted, fuzz_page, invented_tokens
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
