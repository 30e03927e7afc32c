"""Markdown of the kept blocks, keeping the structure the page gives them.

Each kept block belongs to a *unit*: the nearest of its ancestors that is a code block
(``pre``), a heading (``h1``-``h6``), a cell of a data table or a list item (``li``), else its
nearest block-level ancestor (a paragraph). Consecutive kept blocks of one unit are joined with
the page's separators (:meth:`boilerbench.datasets.blocks.Blocks.join`'s rule), and each unit is
written as markdown (CommonMark): ``#`` headings, ``-`` and ``1.`` list items indented by list
depth, fenced code blocks (the ``pre`` element's whole text, whitespace kept), tables with a
header separator after their first row, and ``>`` for every enclosing ``blockquote``. Inline
``strong``/``b``, ``em``/``i`` and ``code`` become ``**``, ``*`` and backticks.

A table counts as a data table only when none of its cells holds a block-level element (a
paragraph, a list, another table): layout tables, which hold whole articles in one cell on
older sites, are read as the paragraphs inside them.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

import numpy as np
from lxml import etree

from boilerbench.datasets.blocks import BLOCK_TAGS, Blocks

HEADINGS = {f"h{n}": n for n in range(1, 7)}
#: Block-level tags that make a table cell a layout cell, not a data cell.
_LAYOUT_INSIDE = frozenset("p div table ul ol dl pre blockquote h1 h2 h3 h4 h5 h6 section article".split())
_INLINE = {"strong": "**", "b": "**", "em": "*", "i": "*", "code": "`", "kbd": "`", "tt": "`"}


@dataclass
class _Unit:
    """One structural unit of kept text: its element, its kind and the kept blocks in it."""

    element: etree._Element
    kind: str  # "heading", "item", "cell", "code" or "para"
    blocks: list[int] = field(default_factory=list)


def _tag(element: etree._Element) -> str:
    return element.tag.lower() if isinstance(element.tag, str) else ""


def _is_data_table(table: etree._Element, memo: dict[int, bool]) -> bool:
    key = id(table)
    if key not in memo:
        cells = (e for e in table.iter("td", "th"))
        memo[key] = not any(_tag(d) in _LAYOUT_INSIDE for cell in cells for d in cell.iterdescendants())
    return memo[key]


def _table_of(cell: etree._Element) -> etree._Element | None:
    return next((a for a in cell.iterancestors() if _tag(a) == "table"), None)


def _unit_of(owner: etree._Element, memo: dict[int, bool]) -> tuple[etree._Element, str]:
    """The unit element of a block whose text node lies in ``owner``, and the unit's kind."""
    paragraph: etree._Element | None = None
    element: etree._Element | None = owner
    while element is not None:
        tag = _tag(element)
        if tag == "pre":
            return element, "code"
        if tag in HEADINGS:
            return element, "heading"
        if tag == "li":
            return element, "item"
        if tag in ("td", "th"):
            table = _table_of(element)
            if table is not None and _is_data_table(table, memo):
                return element, "cell"
        if paragraph is None and tag in BLOCK_TAGS:
            paragraph = element
        element = element.getparent()
    return (paragraph if paragraph is not None else owner), "para"


def _units(blocks: Blocks, kept: Sequence[int]) -> list[_Unit]:
    memo: dict[int, bool] = {}
    units: list[_Unit] = []
    for i in kept:
        element, kind = _unit_of(blocks.owner(i), memo)
        if units and units[-1].element is element:
            units[-1].blocks.append(i)
        else:
            units.append(_Unit(element, kind, [i]))
    return units


def _inline(blocks: Blocks, i: int, bold: bool) -> str:
    text = blocks.texts[i]
    mark = None if blocks.is_tail[i] else _INLINE.get(_tag(blocks.anchors[i]))
    return f"{mark}{text}{mark}" if mark and (bold or mark != "**") else text


def _joined(blocks: Blocks, indices: list[int], newline: str, bold: bool = True) -> str:
    """The unit's blocks with the page's separators (a line break becomes ``newline``); bold
    marks only with ``bold`` (a heading is bold already)."""
    parts: list[str] = []
    previous = -2
    for i in indices:
        if parts:
            between = blocks.seps[previous + 1 : i + 1]
            sep = "\n" if "\n" in between else (" " if " " in between or i != previous + 1 else "")
            parts.append(newline if sep == "\n" else sep)
        parts.append(_inline(blocks, i, bold))
        previous = i
    return "".join(parts)


def _count_ancestors(element: etree._Element, tags: tuple[str, ...]) -> int:
    return sum(1 for a in element.iterancestors() if _tag(a) in tags)


def _item_marker(item: etree._Element) -> str:
    parent = item.getparent()
    if parent is not None and _tag(parent) == "ol":
        start = int(parent.get("start", "1")) if parent.get("start", "1").isdigit() else 1
        position = sum(1 for s in item.itersiblings(preceding=True) if _tag(s) == "li")
        return f"{start + position}."
    return "-"


def _render(blocks: Blocks, unit: _Unit) -> str:
    element = unit.element
    if unit.kind == "code":
        return "```\n" + "".join(element.itertext()).strip("\n") + "\n```"
    if unit.kind == "heading":
        return "#" * HEADINGS[_tag(element)] + " " + _joined(blocks, unit.blocks, " ", bold=False)
    if unit.kind == "item":
        depth = max(_count_ancestors(element, ("ul", "ol")) - 1, 0)
        return "  " * depth + _item_marker(element) + " " + _joined(blocks, unit.blocks, " ")
    if unit.kind == "cell":
        return _joined(blocks, unit.blocks, " ").replace("|", "\\|")
    return _joined(blocks, unit.blocks, "\n")


def _table(blocks: Blocks, cells: list[_Unit]) -> str:
    """The markdown table of consecutive kept cells of one table, one row per ``tr``."""
    rows: list[list[str]] = []
    row_of: etree._Element | None = None
    for cell in cells:
        parent = cell.element.getparent()
        if not rows or parent is not row_of:
            rows.append([])
            row_of = parent
        rows[-1].append(_render(blocks, cell))
    width = max(len(r) for r in rows)
    lines = ["| " + " | ".join(r + [""] * (width - len(r))) + " |" for r in rows]
    lines.insert(1, "|" + " --- |" * width)
    return "\n".join(lines)


def _quote_depth(element: etree._Element) -> int:
    return _count_ancestors(element, ("blockquote",)) + (_tag(element) == "blockquote")


def _quote(text: str, depth: int) -> str:
    return "\n".join(("> " * depth + line).rstrip() for line in text.split("\n")) if depth else text


def to_markdown(blocks: Blocks, mask: np.ndarray | None = None) -> str:
    """The selected blocks (all when ``mask`` is None) as markdown (see the module docstring)."""
    kept = [int(i) for i in (range(len(blocks)) if mask is None else np.flatnonzero(mask))]
    units = _units(blocks, kept)
    chunks: list[tuple[str, int, str]] = []  # (kind, quote depth, markdown)
    k = 0
    while k < len(units):
        unit = units[k]
        if unit.kind == "cell":
            table = _table_of(unit.element)
            end = k
            while end < len(units) and units[end].kind == "cell" and _table_of(units[end].element) is table:
                end += 1
            text, kind, k = _table(blocks, units[k:end]), "table", end
        else:
            text, kind, k = _render(blocks, unit), unit.kind, k + 1
        depth = _quote_depth(unit.element)
        chunks.append((kind, depth, _quote(text, depth)))
    out: list[str] = []
    for n, (kind, depth, text) in enumerate(chunks):
        if n:
            before, before_depth, _ = chunks[n - 1]
            if kind == "item" and before == "item":
                out.append("\n")
            else:  # a blank line, inside the quote when both chunks are in it
                out.append("\n" + ">" * min(depth, before_depth) + "\n")
        out.append(text)
    return "".join(out)
