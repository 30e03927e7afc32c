"""Checks that an extractor keeps the contract of :mod:`boilerbench.extractors.base` (as
scikit-learn's ``utils.estimator_checks`` does for estimators), on small hand-made pages.

:func:`check_extractor` runs them all on one unfitted extractor and raises ``AssertionError``
naming the first broken rule: the tags are consistent with the methods; the constructor stores
its arguments and nothing else public; ``get_params``/``set_params``/:func:`clone` round trip; an
extractor that learns refuses to extract before ``fit``; ``fit`` returns the extractor and
``extract`` gives well-formed extractions; a clone fitted on the same pages extracts the same
(fitting is deterministic); a persistent one survives ``save``/``load``; and hostile pages give
well-formed extractions or a plain exception, never a crash of the process. (Pickling is not
part of the contract: reference adapters hold their imported library, and worker processes get
their extractor by ``fork`` or build it from its config.) ``tests/test_check_extractor.py`` runs it on
every ``conf/extractor`` config, so a new extractor is checked with no further code.
"""

from __future__ import annotations

import tempfile
from collections.abc import Callable
from pathlib import Path

import numpy as np

from boilerbench.datasets.page import Page
from boilerbench.extractors.base import (
    BaseExtractor,
    Extraction,
    NotFittedError,
    Tags,
    clone,
    members,
    missing_hooks,
    tags,
)

NAV = "<div class='nav'><a href='/'>Home</a> | <a href='/news'>News</a> | <a href='/sport'>Sport</a></div>"
FOOTER = "<div class='footer'>Copyright 2024 The Valley Gazette. All rights reserved.</div>"
#: Article paragraphs of the hand-made pages (each page's gold text is its two paragraphs).
PARAGRAPHS = (
    "The school board voted on Tuesday to keep the library open in the evenings for the rest of the year, "
    "after parents collected more than two thousand signatures in a single month.",
    "Farmers in the valley expect a late harvest because the spring was wet and the summer began cold, "
    "and several of them have already sold part of their cattle to pay for feed.",
    "The museum will show the paintings of the old harbour that were found in an attic last winter, "
    "together with letters that tell how the painter sailed along the coast every summer.",
    "The council said on Monday that the old stone bridge over the river will close for repairs, "
    "and that a ferry will carry people and bicycles across the water until September.",
    "Engineers found cracks in two of the arches during an inspection in the spring, and the repairs "
    "are expected to cost more than the town had set aside for all of its roads this year.",
    "Shop owners near the bridge fear that fewer visitors will come, while the ferry company has "
    "promised to run every twenty minutes from early morning until late in the evening.",
)


def page(i: int) -> Page:
    """Hand-made page ``i``: a menu, a headline, two article paragraphs, a list of links, a footer;
    its gold text is the headline and the paragraphs."""
    first, second = PARAGRAPHS[i % len(PARAGRAPHS)], PARAGRAPHS[(i + 1) % len(PARAGRAPHS)]
    title = f"Valley news, story {i}"
    html = (
        f"<html><head><title>{title}</title><script>var views = {i};</script></head><body>{NAV}"
        f"<h1>{title}</h1><p>{first}</p><p>{second}</p>"
        "<ul><li><a href='/a'>Most read</a></li><li><a href='/b'>Weather</a></li></ul>"
        f"{FOOTER}</body></html>"
    )
    return Page(f"page{i}", html, f"{title}\n{first}\n{second}")


def training_pages() -> tuple[list[Page], list[Page]]:
    """Fresh training and validation pages (fresh: nothing parsed is shared between fits)."""
    return [page(i) for i in range(6)], [page(i) for i in range(6, 8)]


def test_pages() -> list[Page]:
    """Fresh pages that every check extracts."""
    return [page(i) for i in range(8, 11)]


#: Hostile pages (id -> HTML): each must give a well-formed extraction or a plain exception (the
#: runner records it as the page's error); those with no text must give none.
HOSTILE = {
    "empty": "",
    "only_markup": "<html><head><script>var x = '<p>not text</p>';</script></head><body><div></div></body></html>",
    "nul_and_control": f"<html><body>{NAV}\x00<p>{PARAGRAPHS[0]}</p>\x01\x1b</body></html>\x00",
    "truncated": f"<html><head><title>T</title></head><body>{NAV}<p>{PARAGRAPHS[1]}</p><p>Some text that is cut",
    "deep_nesting": "<div>" * 500 + f"<p>{PARAGRAPHS[2]}</p>" + "</div>" * 500,
    "no_body": f"<p>{PARAGRAPHS[3]}",
}
#: Hostile pages without any text: an extractor must extract nothing from them.
TEXTLESS = ("empty", "only_markup")


def check_tags(extractor: BaseExtractor) -> Tags:
    """The tags are a :class:`Tags` and every capability they declare has its method."""
    declared = tags(extractor)
    assert isinstance(declared, Tags), f"__boilerbench_tags__ returned {declared!r}, not Tags"
    missing = missing_hooks(extractor)
    assert not missing, f"tagged with capabilities whose methods it lacks: {', '.join(missing)}"
    assert not declared.loads_pickle or declared.persistent, "tagged loads_pickle but not persistent"
    assert declared.learns or not declared.persistent, "persistent but learns nothing: there is nothing to save"
    return declared


def check_constructor_stores_params(extractor: BaseExtractor) -> None:
    """A new instance from ``get_params`` holds each argument as given, and no public attribute
    besides them (no fitted state, nothing computed)."""
    # new lists for sequences: a constructor that converts (a tuple of them, floats) stores another object
    params = {k: list(v) if isinstance(v, (list, tuple)) else v for k, v in extractor.get_params().items()}
    fresh = type(extractor)(**params)
    for name, value in params.items():
        assert vars(fresh)[name] is value, f"the constructor stores {name} as {vars(fresh)[name]!r}, not as given"
    public = {k for k in vars(fresh) if not k.startswith("_")}
    assert public == set(params), f"the constructor sets attributes other than its arguments: {public - set(params)}"


def check_params_round_trip(extractor: BaseExtractor) -> None:
    """``set_params(**get_params())`` and :func:`clone` keep the parameters; a clone is a new
    object of the same class, its member extractors cloned too."""
    params = extractor.saved_params()
    copy = clone(extractor)
    assert type(copy) is type(extractor) and copy is not extractor
    assert copy.saved_params() == params, "clone changed the parameters"
    for original, cloned in zip(members(extractor), members(copy), strict=True):
        assert cloned.extractor is not original.extractor, f"clone shares member {original.name}"
    assert copy.set_params(**extractor.get_params()) is copy, "set_params must return the extractor"
    assert copy.saved_params() == params, "set_params(**get_params()) changed the parameters"
    assert repr(copy) == repr(extractor)


def check_unfitted(extractor: BaseExtractor, declared: Tags) -> None:
    """An extractor that learns, used before ``fit`` (or ``load``), raises NotFittedError or, where
    its settings use no fitted state (WCC's ``method=heuristic``), extracts as usual."""
    if not declared.learns:
        return
    first = test_pages()[0]
    try:
        check_extraction(clone(extractor).extract(first), first)
    except NotFittedError:
        return
    except AssertionError:
        raise
    except Exception as err:
        raise AssertionError(f"extract before fit raised {type(err).__name__}: {err}, not NotFittedError") from err


def check_extraction(extraction: object, page: Page) -> Extraction:
    """A well-formed extraction of ``page``: text without NUL, labels (if any) int8 0/1 over its blocks."""
    assert isinstance(extraction, Extraction), f"extract returned {type(extraction).__name__}, not Extraction"
    assert isinstance(extraction.text, str) and "\x00" not in extraction.text, "text must be a str without NUL"
    if extraction.labels is not None:
        labels = np.asarray(extraction.labels)
        assert labels.shape == (len(page.blocks),), f"{labels.shape[0]} labels for {len(page.blocks)} blocks"
        assert set(np.unique(labels).tolist()) <= {0, 1}, "labels must be 0 or 1"
    assert isinstance(extraction.info, dict)
    return extraction


def extract_all(extractor: BaseExtractor) -> list[str]:
    """The texts ``extractor`` extracts from :func:`test_pages` (each checked)."""
    return [check_extraction(extractor.extract(p), p).text for p in test_pages()]


def fitted_clone(extractor: BaseExtractor) -> BaseExtractor:
    """A clone of ``extractor`` fitted on the hand-made pages (``fit`` must return it)."""
    train, validation = training_pages()
    copy = clone(extractor)
    assert isinstance(copy, BaseExtractor)
    assert copy.fit(train, validation) is copy, "fit must return the extractor"
    return copy


def check_refit_is_deterministic(extractor: BaseExtractor, texts: list[str]) -> None:
    """A second clone fitted on the same pages extracts the same texts."""
    assert extract_all(fitted_clone(extractor)) == texts, "two fits on the same pages extract differently"


def check_save_load(fitted: BaseExtractor, texts: list[str], directory: Path) -> None:
    """A persistent extractor saved and loaded into an unfitted clone extracts the same."""
    fitted.save(directory)  # type: ignore[attr-defined]
    loaded = clone(fitted)
    assert loaded.load(directory) is loaded, "load must return the extractor"  # type: ignore[attr-defined]
    assert extract_all(loaded) == texts, "the loaded extractor extracts differently"


def check_hostile_pages(fitted: BaseExtractor) -> None:
    """Each hostile page gives a well-formed extraction (none of the text of a page without any)
    or a plain ``Exception``, which the runner records as that page's error."""
    for name, html in HOSTILE.items():
        hostile = Page(name, html, "")
        try:
            extraction = check_extraction(fitted.extract(hostile), hostile)
        except AssertionError:
            raise
        except Exception:  # a per-page error: recorded by the runner, the run goes on
            continue
        if name in TEXTLESS:
            assert not extraction.text.strip(), f"extracted {extraction.text[:60]!r} from page {name!r} with no text"


def check_extractor(extractor: BaseExtractor, directory: str | Path | None = None) -> None:
    """Run every check on the unfitted ``extractor`` (which stays unfitted: the checks fit clones);
    ``directory``: an empty folder for the save/load check (a temporary one by default)."""
    checks: list[tuple[str, Callable[[], object]]] = [
        ("tags", lambda: check_tags(extractor)),
        ("constructor", lambda: check_constructor_stores_params(extractor)),
        ("params", lambda: check_params_round_trip(extractor)),
    ]
    for name, check in checks:
        _run(name, check)
    declared = tags(extractor)
    _run("unfitted", lambda: check_unfitted(extractor, declared))
    fitted = fitted_clone(extractor)
    texts = extract_all(fitted)
    _run("refit", lambda: check_refit_is_deterministic(extractor, texts))
    if declared.persistent:
        if directory is None:
            with tempfile.TemporaryDirectory(prefix="boilerbench-check-") as tmp:
                _run("save/load", lambda: check_save_load(fitted, texts, Path(tmp)))
        else:
            _run("save/load", lambda: check_save_load(fitted, texts, Path(directory)))
    _run("hostile pages", lambda: check_hostile_pages(fitted))


def _run(name: str, check: Callable[[], object]) -> None:
    """Run one check, prefixing a failure with the check's name."""
    try:
        check()
    except AssertionError as err:
        raise AssertionError(f"check {name}: {err}") from err
