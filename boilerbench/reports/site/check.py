"""The figure check: a page may show a measured number only where the results store holds it.

On a page as built (directives expanded, :mod:`.render`):

1. each ``<!-- store: FILE -->`` block must equal the store file's text, byte for byte;
2. each figure span (:func:`.store.figure`) must name a cell the store holds, and its text must
   be that cell as the tables print it (same digits);
3. outside those, and outside fenced code (commands, config files), no decimal number may
   appear at all: a number typed by hand in prose or in a table is refused, whether or not some
   cell of the store happens to hold it (with thousands of cells, most three-digit fractions
   are somewhere in ``runs.csv``, so a look-up by value alone could not fail).

The docstrings that mkdocstrings renders into an extractor's or a dataset's page are checked
after they are rendered, with a narrower rule (:func:`docstring_problems`): docstrings state
settings (``0.2``), the literature's figures and section numbers, so only a number with three or
more decimals, the precision of a measurement, is refused there. (The API reference and the
metric definitions are not checked: their docstrings hold constants such as ``1.960``.)

Dotted versions (``2.13.0``) and licence names (``Apache-2.0``) are not numbers here; integers
(page counts, years) are not figures.
"""

from __future__ import annotations

import html
import re

from lxml import html as lxml_html

from boilerbench.reports.site.render import VERBATIM, ends_line
from boilerbench.reports.site.store import PUBLISHED_SOURCE, Store, StoreError, interval, is_missing, shown

SPAN = re.compile(
    r'<span class="bb-fig" data-store="(?P<source>[^"]+)" data-row="(?P<row>[^"]*)" '
    r'data-col="(?P<col>[^"]+)"(?: data-item="(?P<item>[01])")?>(?P<text>[^<]*)</span>'
)
FENCE = re.compile(r"^(```|~~~).*?^\1[ \t]*$", re.S | re.M)
#: A decimal number that is not part of a dotted version or a name (``v1.2``, ``2.13.0``,
#: ``CC-BY-4.0``); a sign before it (``-0.004``) still makes it a number.
DECIMAL = re.compile(r"(?<![\w.])(?<![A-Za-z]-)\d*\.\d+(?![\w]|\.\d)")


def _span_problem(match: re.Match[str], store: Store) -> str | None:
    source, row, col, item = match["source"], html.unescape(match["row"]), html.unescape(match["col"]), match["item"]
    text = html.unescape(match["text"])
    try:
        value = store.value(source, row, col)
    except StoreError as err:
        return f"{text!r}: {err}"
    if source == PUBLISHED_SOURCE:
        expected = f"{float(value):g}"  # type: ignore[arg-type]
    elif item is not None:
        bounds = interval(value)
        expected = "" if bounds is None else shown(bounds[int(item)], col)
    else:
        expected = "" if is_missing(value) else shown(value, col)
    if text != expected:
        where = col if item is None else f"{col}[{item}]"
        return f"{text!r} at ({source}, {row}, {where}): the store holds {expected!r}"
    return None


def problems(page: str, store: Store) -> list[str]:
    """What is wrong with one built page's markdown (empty when every figure is the store's)."""
    found: list[str] = []
    for match in VERBATIM.finditer(page):
        try:
            if match["body"] != ends_line(store.text(match["file"])):
                found.append(f"the block of {match['file']} differs from the store's file: rebuild the page")
        except StoreError as err:
            found.append(str(err))
    rest = VERBATIM.sub("", page)
    for match in SPAN.finditer(rest):
        problem = _span_problem(match, store)
        if problem:
            found.append(problem)
    rest = FENCE.sub("", SPAN.sub("", rest))
    for line in rest.splitlines():
        for number in DECIMAL.findall(line):
            found.append(f"{number!r} is typed on the page, not read from the store: {line.strip()[:100]}")
    return found


#: A measured-looking number in a docstring: three or more decimals.
MEASURED = re.compile(r"(?<![\w.])(?<![A-Za-z]-)\d*\.\d{3,}(?![\w]|\.\d)")


def docstring_problems(page_html: str) -> list[str]:
    """Measured-looking numbers in the docstrings a built page renders (mkdocstrings' ``doc``
    blocks), outside code."""
    if 'class="doc ' not in page_html:
        return []
    tree = lxml_html.fromstring(page_html)
    for code in tree.xpath("//code|//pre"):
        code.drop_tree()
    found: dict[str, str] = {}
    for block in tree.xpath('//div[contains(concat(" ", @class, " "), " doc-contents ")]'):
        text = " ".join(block.text_content().split())
        for number in MEASURED.findall(text):
            where = _around(text, number)
            found.setdefault(number, f"{number!r} is typed in a docstring, not read from the store: ...{where}...")
    return list(found.values())


def _around(text: str, number: str) -> str:
    at = text.index(number)
    return text[max(0, at - 60) : at + 40]
