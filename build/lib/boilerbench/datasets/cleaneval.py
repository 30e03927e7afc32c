"""CleanEval 2007 (English): development set (58 pages) and final set (684 pages with gold).

Splits are fixed data (``splits/cleaneval.json``, Web2Text's page ids): ``cleaneval``
(56 train / 5 validation / 676 test, the competition protocol: train on the dev set) and
``web2text`` (531 / 58 / 148); ``all`` tests on all 737 pages of those splits. Ids up to 60
are development-set files (dev and final both have a file 60; here 60 is the dev one, and
the final set's 60 is in no split).
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from pathlib import Path

from boilerbench.datasets.base import Dataset, Split
from boilerbench.datasets.encoding import decode_bytes
from boilerbench.datasets.page import Page
from boilerbench.text import CLEANEVAL_MARKER, CLEANEVAL_URL_LINE, collapse_whitespace

SPLITS_FILE = Path(__file__).with_name("splits") / "cleaneval.json"
DEV_INPUT = "cleaneval-dev/input"
DEV_GOLD = "cleaneval-dev/GoldStandard"
FINAL_INPUT = "cleaneval-final/finalrun-input"
FINAL_GOLD = "cleaneval-final/GoldStandard"
LAST_DEV_ID = 60

_WRAPPER_OPEN = re.compile(rb"\A\s*<text\b([^>]*)>", re.IGNORECASE)
_WRAPPER_CLOSE = re.compile(rb"</text>\s*\Z", re.IGNORECASE)
_ATTR = re.compile(rb"""(\w+)\s*=\s*"([^"]*)\"""")


def unwrap_html(data: bytes) -> tuple[bytes, dict[str, str]]:
    """Strip CleanEval's ``<text id=URL title=... encoding=...>`` wrapper; return the HTML and its attributes."""
    attrs: dict[str, str] = {}
    match = _WRAPPER_OPEN.match(data)
    if match:
        for key, value in _ATTR.findall(match.group(1)):
            attrs[key.decode("ascii", "replace").lower()] = value.decode("latin-1")
        data = data[match.end() :]
        data = _WRAPPER_CLOSE.sub(b"", data)
    return data, attrs


def parse_gold(text: str) -> tuple[str, str | None]:
    """CleanEval gold markup -> (text without markers, one paragraph per line; URL or None).

    The markup is a ``URL:`` line, then paragraphs started by ``<p>``, ``<h>`` or ``<l>``.
    """
    text = text.lstrip("\ufeff")
    url = None
    match = CLEANEVAL_URL_LINE.match(text)
    if match:
        url = match.group(1) or None
        text = text[match.end() :]
    paragraphs = (collapse_whitespace(p) for p in CLEANEVAL_MARKER.split(text)[::2])
    return "\n".join(p for p in paragraphs if p), url


def read_page(
    html_path: Path,
    gold_path: Path,
    page_id: str,
    part: str,
    gold_parser: Callable[[str], tuple[str, str | None]] = parse_gold,
) -> Page:
    """Read one CleanEval-format page: unwrap and decode the HTML, decode and parse the gold text
    (with ``gold_parser``: CleanPortalEval also drops the annotators' comments)."""
    raw, attrs = unwrap_html(html_path.read_bytes())
    hints = [attrs["encoding"]] if attrs.get("encoding", "unset").lower() not in ("", "unset") else []
    html = decode_bytes(raw, hints=hints, is_html=True)
    markup = decode_bytes(gold_path.read_bytes(), is_html=False)
    gold_text, gold_url = gold_parser(markup)
    return Page(
        id=page_id,
        html=html,
        gold_text=gold_text,
        url=attrs.get("id") or gold_url,
        meta={"part": part, "gold_markup": markup, "title": attrs.get("title")},
    )


def read_page_id(root: Path, page_id: int) -> Page:
    """The CleanEval page with this id (ids up to 60 from the dev set, above from the final set)."""
    if page_id <= LAST_DEV_ID:
        html, gold, part = root / DEV_INPUT / f"{page_id}.html", root / DEV_GOLD / f"{page_id}-cleaned.txt", "dev"
    else:
        html, gold, part = root / FINAL_INPUT / f"{page_id}.html", root / FINAL_GOLD / f"{page_id}.txt", "final"
    return read_page(html, gold, str(page_id), part)


class CleanEval(Dataset):
    """CleanEval 2007 with Web2Text's fixed page-id splits (see the module docstring)."""

    name = "cleaneval"
    splits = ("cleaneval", "web2text", "all")
    required = (DEV_INPUT, DEV_GOLD, FINAL_INPUT, FINAL_GOLD)

    def load_split(self, root: Path, split: str) -> Split:
        table = json.loads(SPLITS_FILE.read_text(encoding="utf-8"))
        if split == "all":
            return Split(name=split, test=[read_page_id(root, i) for i in table["pages"]])
        parts = table[split]
        return Split(
            name=split,
            train=[read_page_id(root, i) for i in parts["train"]],
            validation=[read_page_id(root, i) for i in parts["validation"]],
            test=[read_page_id(root, i) for i in parts["test"]],
        )
