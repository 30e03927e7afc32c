"""Markdown of the kept blocks: each structure on a hand-made page, with the exact expected markdown."""

from __future__ import annotations

import numpy as np

from boilerbench.datasets.blocks import segment
from boilerbench.markdown import to_markdown


def md(body: str, keep: list[int] | None = None) -> str:
    blocks = segment(f"<html><body>{body}</body></html>")
    mask = None if keep is None else np.isin(np.arange(len(blocks)), keep)
    return to_markdown(blocks, mask)


def test_headings_paragraphs_and_inline_marks():
    body = (
        "<h1>The <em>river</em> <b>rises</b></h1><p>It has <strong>risen</strong> by <code>2 m</code>.</p><h3>More</h3>"
    )
    assert md(body) == "# The *river* rises\n\nIt has **risen** by `2 m`.\n\n### More"


def test_line_break_stays_a_line_and_paragraphs_are_blank_line_apart():
    assert md("<p>one<br>two</p><div>three</div>") == "one\ntwo\n\nthree"


def test_nested_and_ordered_lists_are_one_tight_list():
    body = '<ul><li>apples</li><li>pears<ul><li>green</li></ul></li></ul><ol start="3"><li>three</li><li>four</li></ol>'
    assert md(body) == "- apples\n- pears\n  - green\n3. three\n4. four"


def test_list_item_with_paragraphs_is_one_item():
    assert md("<ul><li><p>first</p><p>second</p></li></ul>") == "- first second"


def test_data_table_with_header_row_and_escaped_pipe():
    body = "<table><tr><th>Name</th><th>Age</th></tr><tr><td>Ann</td><td>3|4</td></tr><tr><td>Bo</td></tr></table>"
    assert md(body) == "| Name | Age |\n| --- | --- |\n| Ann | 3\\|4 |\n| Bo |  |"


def test_layout_table_is_read_as_its_paragraphs():
    body = "<table><tr><td><p>An article in a layout cell.</p><p>Its second paragraph.</p></td></tr></table>"
    assert md(body) == "An article in a layout cell.\n\nIts second paragraph."


def test_code_block_keeps_its_whitespace():
    assert (
        md("<p>Run:</p><pre><code>def f():\n    return 1\n</code></pre>") == "Run:\n\n```\ndef f():\n    return 1\n```"
    )


def test_quotes_keep_their_marker_across_paragraphs():
    body = "<blockquote><p>Quoted words.</p><p>More.</p></blockquote><p>After.</p>"
    assert md(body) == "> Quoted words.\n>\n> More.\n\nAfter."


def test_only_kept_blocks_are_written():
    body = "<nav>Home</nav><h2>Title</h2><p>Body text.</p><footer>Copyright</footer>"
    assert md(body, keep=[1, 2]) == "## Title\n\nBody text."
    assert md(body, keep=[]) == ""
