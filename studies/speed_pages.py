"""The pages the speed studies time: a dataset's pages read straight from its files (no split
manifest check), in the split's order, the disk cache off, so every member runs on every page.

Shared by ``studies/speed_profile.py``, ``studies/speed_shared_parse.py`` and
``studies/speed_workers.py``; ``benchmarks/speed.py`` is the harness that prints the
figures against trafilatura for the README.
"""

from __future__ import annotations

import sys
from pathlib import Path

from benchmarks import speed
from boilerbench.cache import set_cache_dir
from boilerbench.datasets.page import Page
from boilerbench.errors import check_choice

PROJECT = Path(__file__).resolve().parents[1]
#: Where the studies write their figures (git-ignored build output).
OUT = PROJECT / "reports" / "out" / "speed"
PARTS = ("test", "validation", "train", "all")


def load_pages(dataset: str, part: str, limit: int | None) -> list[Page]:
    """The first ``limit`` readable pages of ``part`` of ``dataset``'s default split
    (:func:`benchmarks.speed.load_pages`); turns the disk cache off (the studies time extraction
    from raw HTML)."""
    set_cache_dir(None)
    check_choice("--part", part, PARTS)
    return speed.load_pages(dataset, part)[1][:limit]


def fresh(page: Page) -> Page:
    """A copy of ``page`` with nothing parsed yet (as a user's call sees it)."""
    return Page(page.id, page.html, "", page.url)


def out_dir() -> Path:
    """:data:`OUT`, made when missing."""
    OUT.mkdir(parents=True, exist_ok=True)
    return OUT


if __name__ == "__main__":
    sys.exit("a helper module of the speed studies; run studies/speed_profile.py")
