"""CleanPortalEval (Endrédy & Novák 2013): 71 pages of 4 news portals in CleanEval's format.

``input/<site>_<n>.html`` holds the page after a CleanEval ``<text id=URL ...>`` header line
(60 files start with an empty line before it), ``GoldStandard/<site>_<n>.txt`` the gold in
CleanEval's markup (``URL:`` line, ``<p>/<h>/<l>`` markers): both are read with CleanEval's own
wrapper stripping and gold parser. Two section front pages have no content: one gold file is
only the URL line, the other holds the annotators' remark ``<!-- this page contains no
article -->``, an HTML comment that is dropped from the gold (it is not page text). 64 gold files
hold HTML character references (``Wednesday&#8217;s``, ``&amp;``) copied from the page's source:
they are decoded, as the page's own text is.

There is no training split: ``all`` tests on every page; learned extractors are
cross-validated (``cv.folds``), as on L3S-GN1.
"""

from __future__ import annotations

import html
import re
from pathlib import Path

from boilerbench.datasets.base import Dataset, Split
from boilerbench.datasets.cleaneval import parse_gold, read_page
from boilerbench.datasets.page import Page
from boilerbench.datasets.reading import read_or_error

INPUT_DIR = "input"
GOLD_DIR = "GoldStandard"
_COMMENT = re.compile(r"<!--.*?-->", re.DOTALL)


def parse_portal_gold(markup: str) -> tuple[str, str | None]:
    """CleanEval gold parsing, with the annotators' HTML comments removed and character
    references decoded."""
    text, url = parse_gold(_COMMENT.sub(" ", markup))
    return html.unescape(text), url


def read_portal_page(root: Path, stem: str) -> Page:
    """One page (a missing or unreadable file becomes the page's ``load_error``)."""
    return read_or_error(
        stem,
        lambda: read_page(
            root / INPUT_DIR / f"{stem}.html", root / GOLD_DIR / f"{stem}.txt", stem, "portal", parse_portal_gold
        ),
    )


class CleanPortalEval(Dataset):
    """CleanPortalEval; ``split=all`` (every page is a test page; learned methods use ``cv.folds``)."""

    name = "cleanportaleval"
    splits = ("all",)
    required = (INPUT_DIR, GOLD_DIR)

    def load_split(self, root: Path, split: str) -> Split:
        stems = sorted(p.stem for p in (root / INPUT_DIR).glob("*.html"))
        return Split(name=split, test=[read_portal_page(root, s) for s in stems])
