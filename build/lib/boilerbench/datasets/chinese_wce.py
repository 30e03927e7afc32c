"""Chinese Web Content Extraction Dataset (immortal-autumn, 2022): 69 Chinese pages (news, blogs,
forums, notices) with hand-copied main text, author and date.

``original/<id>.html.gz`` is the page, ``cleaned/<id>.txt`` the gold main text (as copied from
the rendered page: blank lines and full-width indentation kept), ``author/<id>.txt`` and
``date/<id>.txt`` one line each (``UNKNOWN``, its typo ``UNKNWON`` and empty files mean no value:
the field is then left out of ``meta``). Every page is Chinese (``meta["language"] = "zh"``).
49 pages come in CleanEval's ``<text id=URL title=... encoding=...>`` wrapper (they look like
pages of CleanEval's Chinese track): it is stripped as the CleanEval loader strips it, and its
URL gives ``url`` and the site (``meta["group"]``); the other 20 pages have neither.

Encodings (the dataset's SOURCE.md): 22 pages are UTF-8, 47 GBK-family, 10 of those with no
declared charset, 7 with bytes in GBK's user-defined areas (valid only as GB18030, which maps
them to the private-use characters the gold has) and 2 with damaged sequences. So a page that
is not UTF-8 is read as GB18030 (the hint to :func:`~boilerbench.datasets.encoding.decode_bytes`),
damaged bytes becoming U+FFFD, not left to a detector alone. No page kind is recorded; split ``all`` only (a test set).
"""

from __future__ import annotations

from pathlib import Path

from boilerbench.datasets.base import Dataset, Split
from boilerbench.datasets.cleaneval import unwrap_html
from boilerbench.datasets.encoding import decode_bytes, strip_controls
from boilerbench.datasets.grouping import url_host
from boilerbench.datasets.page import Page
from boilerbench.datasets.reading import read_gzip, read_or_error

HTML_DIR = "original"
GOLD_DIR = "cleaned"
FIELDS = ("author", "date")
_UNKNOWN = {"", "UNKNOWN", "UNKNOWN.", "UNKNWON"}


def read_field(path: Path) -> str | None:
    """An author or date file's value, None when unknown."""
    value = path.read_bytes().decode("utf-8").strip()
    return None if value in _UNKNOWN else value


def read_page(root: Path, page_id: str) -> Page:
    """One page (a missing or corrupt file becomes the page's ``load_error``)."""

    def read() -> Page:
        gold = (root / GOLD_DIR / f"{page_id}.txt").read_bytes().decode("utf-8")
        raw, wrapper = unwrap_html(read_gzip(root / HTML_DIR / f"{page_id}.html.gz"))
        url = wrapper.get("id") if url_host(wrapper.get("id")) else None
        meta: dict = {"language": "zh", **({"group": url_host(url)} if url else {})}
        for name in FIELDS:
            value = read_field(root / name / f"{page_id}.txt")
            if value is not None:
                meta[name] = value
        html = decode_bytes(raw, hints=("gb18030",))
        return Page(id=page_id, html=html, gold_text=strip_controls(gold), url=url, meta=meta)

    return read_or_error(page_id, read, meta={"language": "zh"})


class ChineseWCE(Dataset):
    """The 69 pages of the Chinese Web Content Extraction Dataset, all test pages (a page with
    its HTML or its gold missing is loaded with a ``load_error``)."""

    name = "chinese-wce"
    splits = ("all",)
    required = (HTML_DIR, GOLD_DIR)

    def load_split(self, root: Path, split: str) -> Split:
        ids = sorted(
            {p.name.removesuffix(".html.gz") for p in (root / HTML_DIR).glob("*.html.gz")}
            | {p.stem for p in (root / GOLD_DIR).glob("*.txt")}
        )
        return Split(name=split, test=[read_page(root, i) for i in ids])
