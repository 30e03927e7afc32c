"""Fixed train / validation / test cuts grouped by site and stratified by a page label.

Pages of one web site share its template, so a page-level cut leaks the site's boilerplate
from the training pages into the test pages; every shipped split of a multi-site dataset is
therefore cut by site (WCXB by domain, stratified by page type; DANIEL by site, stratified by
language; magic-html by host, stratified by page kind). The cut is made once by
:func:`grouped_split` with a fixed seed and shipped as data (``splits/<name>.json``).
"""

from __future__ import annotations

import json
import re
import sys
from collections import Counter, defaultdict
from collections.abc import Callable, Iterable, Mapping, Sequence
from pathlib import Path
from urllib.parse import urlsplit

import numpy as np

from boilerbench.datasets.base import Split
from boilerbench.datasets.page import Page
from boilerbench.errors import DatasetNotFoundError

PARTS = ("train", "validation", "test")


def grouped_split(
    group_of: Mapping[str, str],
    stratum_of: Mapping[str, str],
    shares: Sequence[float],
    seed: int = 0,
    parts: Sequence[str] = PARTS,
) -> dict[str, list[str]]:
    """Page ids per part, no group in two parts, each stratum cut about ``shares``.

    ``group_of`` maps every page id to its group (its site), ``stratum_of`` to its stratum. Each
    group belongs to the stratum of its most common page stratum (ties by name). Within a
    stratum (in name order), the groups are visited in a seeded random order of their sorted
    names and each goes to the part whose page count is furthest below its share of the pages
    placed so far. Ids are sorted within each part.
    """
    groups: dict[str, list[str]] = defaultdict(list)
    for page_id, group in group_of.items():
        groups[group].append(page_id)
    strata: dict[str, list[str]] = defaultdict(list)
    for group, ids in groups.items():
        kinds = Counter(stratum_of[i] for i in ids)
        strata[min(kinds, key=lambda t: (-kinds[t], t))].append(group)
    rng = np.random.default_rng(seed)
    placed: dict[str, list[str]] = {p: [] for p in parts}
    for stratum in sorted(strata):
        names = sorted(strata[stratum])
        counts = np.zeros(len(parts))
        for k in rng.permutation(len(names)):
            ids = groups[names[k]]
            deficit = np.asarray(shares) * (counts.sum() + len(ids)) - counts
            best = int(np.argmax(deficit))
            counts[best] += len(ids)
            placed[parts[best]].extend(ids)
    return {p: sorted(ids) for p, ids in placed.items()}


def shipped_parts(splits_file: Path, known: Iterable[str], where: Path, parts: Sequence[str] = PARTS) -> dict:
    """The page ids per part of a shipped splits file, checked against the ids the data has
    (:class:`DatasetNotFoundError` naming the first missing ones: another version of the data)."""
    table = json.loads(splits_file.read_text(encoding="utf-8"))
    unknown = sorted(set().union(*(table[p] for p in parts)) - set(known))
    if unknown:
        raise DatasetNotFoundError(
            f"{where} lacks {len(unknown)} page(s) of the shipped split {splits_file.name} "
            f"({', '.join(unknown[:5])}): another version of the dataset?"
        )
    return {p: list(table[p]) for p in parts}


def load_parts(
    split: str, ids: Iterable[str], parts: Callable[[], Mapping[str, list[str]]], read: Callable[[str], Page]
) -> Split:
    """Split ``all`` (every page of ``ids`` a test page, in sorted order), or the shipped
    train / validation / test ``parts()``, each page read by ``read(id)``."""
    if split == "all":
        return Split(name=split, test=[read(i) for i in sorted(ids)])
    table = parts()
    return Split(
        name=split,
        train=[read(i) for i in table["train"]],
        validation=[read(i) for i in table["validation"]],
        test=[read(i) for i in table["test"]],
    )


def splits_json(about: str, parts: Mapping[str, list[str]]) -> str:
    """The text of a shipped splits file: ``about`` (how it was made) and the ids per part."""
    return json.dumps({"about": about, **parts}, indent=1) + "\n"


def splits_command(argv: list[str], module: str, about: str, make: Callable[[Path], Mapping[str, list[str]]]) -> int:
    """``python -m MODULE splits ROOT``: print the splits file ``make(ROOT)`` makes (exit 2 on bad usage)."""
    if len(argv) != 2 or argv[0] != "splits":
        print(f"usage: python -m {module} splits ROOT", file=sys.stderr)
        return 2
    sys.stdout.write(splits_json(about, make(Path(argv[1]))))
    return 0


_ARCHIVED = re.compile(r"^/web/[^/]*/(.+)$")


def url_host(url: str | None) -> str | None:
    """A page URL's site for grouping: the host, lowercased, without a leading ``www.``; for a
    ``web.archive.org/web/<time>/<url>`` copy, the archived URL's host. None when there is none."""
    if not url:
        return None
    try:
        parts = urlsplit(url.strip())
        host = parts.hostname
    except ValueError:
        return None
    if host == "web.archive.org" and (match := _ARCHIVED.match(parts.path)):
        archived = match.group(1)
        return url_host(archived if "://" in archived else f"http://{archived}")
    if not host or parts.scheme not in ("http", "https"):
        return None
    return host.removeprefix("www.")
