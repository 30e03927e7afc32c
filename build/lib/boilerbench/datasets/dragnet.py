"""Dragnet (Peters & Lecocq, WWW 2013; data by Moz, 2012): 1,381 pages, gzip HTML + corrected gold text.

``HTML/<id>.html.gz`` is the page; ``Corrected/<id>.html.corrected.txt`` the text copied from
the rendered page: the main content, then, after a separator line ``!@#$%^&*()  COMMENTS``,
the comments. The separator was typed by hand and is mistyped in 20 of the 421 files that have
one (one or three spaces, a missing or doubled character, a tab): :data:`COMMENTS_LINE` is the
loose pattern that finds all of them and nothing else. (The dataset's SOURCE.md counts 416: five
gold files, 27, 39, 42, 49 and 158, are UTF-16 with a byte-order mark, which a byte-level search
does not see; :func:`~boilerbench.datasets.encoding.decode_bytes` reads them.) The gold text is the main content only
(the content-extraction task Dragnet's paper scores); ``comments=True`` keeps the comments too
(the separator line itself is dropped). Lines are whitespace-collapsed, blank lines dropped.

Splits: ``dragnet`` (default) = the official lists, ``training.txt`` (966 ids; a seeded
``validation_share`` of them, 10 % by default, is held out as validation pages for early
stopping) and ``test.txt`` (415 ids); ``all`` = the 1,381 pages as test pages. The list files
have no final newline, so ``wc -l`` undercounts them by one; they are read by splitting on
whitespace. ``HTML/R427.html.gz`` is an error page whose gold holds an article: a page whose
gold text cannot be in its HTML, left as the data has it.
"""

from __future__ import annotations

import re
from pathlib import Path

import numpy as np

from boilerbench.datasets.base import Dataset, Split
from boilerbench.datasets.encoding import decode_bytes
from boilerbench.datasets.page import Page
from boilerbench.datasets.reading import read_gzip, read_or_error
from boilerbench.text import collapse_whitespace

HTML_DIR = "HTML"
GOLD_DIR = "Corrected"
#: The comments separator line, mistypings included (see the module docstring).
COMMENTS_LINE = re.compile(r"^[ \t]*[!@#$%^&*() \t]*[!@#$%^&*()][!@#$%^&*() \t]*COMMENTS[ \t]*\r?$", re.MULTILINE)


def parse_gold(text: str, comments: bool = False) -> str:
    """Dragnet gold text: the main content (and the comments when ``comments``), one line per
    non-blank line, whitespace collapsed."""
    match = COMMENTS_LINE.search(text)
    if match:
        text = text[: match.start()] + ("\n" + text[match.end() :] if comments else "")
    lines = (collapse_whitespace(line) for line in text.splitlines())
    return "\n".join(line for line in lines if line)


def read_ids(path: Path) -> list[str]:
    """The page ids of an official list file (one per line, no final newline)."""
    return path.read_text(encoding="ascii").split()


def hold_out_ids(ids: list[str], share: float, seed: int) -> tuple[list[str], list[str]]:
    """(training, validation) ids: a seeded ``share`` of ``ids`` held out, order kept."""
    n_held = round(share * len(ids))
    held = set(np.random.default_rng(seed).choice(len(ids), size=n_held, replace=False).tolist())
    return [i for k, i in enumerate(ids) if k not in held], [i for k, i in enumerate(ids) if k in held]


def read_page(root: Path, page_id: str, comments: bool) -> Page:
    """One Dragnet page (a per-page read problem becomes the page's ``load_error``)."""

    def read() -> Page:
        html = decode_bytes(read_gzip(root / HTML_DIR / f"{page_id}.html.gz"), is_html=True)
        gold_bytes = (root / GOLD_DIR / f"{page_id}.html.corrected.txt").read_bytes()
        gold = parse_gold(decode_bytes(gold_bytes, is_html=False), comments)
        return Page(id=page_id, html=html, gold_text=gold)

    return read_or_error(page_id, read)


class Dragnet(Dataset):
    """Dragnet's 1,381 pages with the official training / test lists (see the module docstring)."""

    name = "dragnet"
    splits = ("dragnet", "all")
    required = (HTML_DIR, GOLD_DIR, "training.txt", "test.txt")

    def __init__(self, *args, comments: bool = False, validation_share: float = 0.1, seed: int = 0, **kwargs) -> None:
        super().__init__(*args, **kwargs)
        self.comments = comments
        self.validation_share = validation_share
        self.seed = seed

    def load_split(self, root: Path, split: str) -> Split:
        training, test = read_ids(root / "training.txt"), read_ids(root / "test.txt")
        if split == "all":
            return Split(name=split, test=[read_page(root, i, self.comments) for i in sorted(training + test)])
        train, validation = hold_out_ids(training, self.validation_share, self.seed)
        return Split(
            name=split,
            train=[read_page(root, i, self.comments) for i in train],
            validation=[read_page(root, i, self.comments) for i in validation],
            test=[read_page(root, i, self.comments) for i in test],
        )
