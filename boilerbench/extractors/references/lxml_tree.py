"""One lxml.html parse of a page shared by the reference members that accept a parsed tree.

The tree is trafilatura's own (``trafilatura.load_html``: lxml.html's ``fromstring`` with its
parser, after its repairs of faulty HTML), so trafilatura, given it, extracts exactly what it
extracts from the string (it copies a tree it is given before cleaning it). jusText and
readability-lxml parse the string with lxml.html too, with other parser options (comments and
processing instructions kept, then removed by their lxml ``Cleaner``); on the pages of
``studies/speed_shared_parse.py`` their outputs from this tree equal those from their own parse.
Shared through :func:`boilerbench.extractors.sharing.shared`: inside a stack's or an ensemble's
vote on a page it is parsed once; outside one there is none, and each adapter hands its library
the string as before (so trafilatura alone, the speed reference, pays no extra copy). Never
modified: readability gets a copy, jusText's cleaner copies it, trafilatura copies it.
"""

from __future__ import annotations

from typing import Any

from boilerbench.datasets.page import Page
from boilerbench.errors import MissingDependencyError
from boilerbench.extractors.references.base import require
from boilerbench.extractors.sharing import is_shared, shared

#: The key of the tree among a page's shared artefacts.
KEY = "lxml.html tree (trafilatura.load_html)"


def _load_html() -> Any:
    """trafilatura's ``load_html``, or None when trafilatura is not installed."""
    try:
        return require("trafilatura", "trafilatura").load_html
    except MissingDependencyError:
        return None


def html_tree(page: Page) -> Any:
    """trafilatura's lxml.html tree of ``page``, shared, never to be modified; None outside
    :func:`~boilerbench.extractors.sharing.sharing`, when trafilatura finds no HTML document
    there, or when trafilatura is not installed (the caller parses the string itself)."""
    if not is_shared(page):
        return None
    load = _load_html()
    return shared(page, KEY, lambda: load(page.html)) if load is not None else None


def is_document_root(tree: Any) -> bool:
    """Whether ``tree`` is a whole document's ``<html>`` root, as ``lxml.html.document_fromstring``
    gives (``fromstring``, and so trafilatura, gives a page that does not start with ``<html`` or a
    doctype as its body, renamed ``div`` or ``span``, or as the body's only child)."""
    return tree is not None and tree.getparent() is None and tree.tag == "html"
