"""studies.script_toggled: the elements a page's scripts show and hide."""

import lxml.html

from studies.script_toggled import shingles, toggled

PAGE = """<html><body>
<ul><li><a href="/a" onmouseover="showWMTT('t1')">Title one</a><div class="tooltip" id="t1">Summary one</div></li>
<li><a href="/b" onmouseover="showWMTT('t2')">Title two</a><div id="t2"><p>Summary <b>two</b></p></div></li></ul>
<form id="search" onsubmit="check('search')"><input id="q"></form>
<button onclick="openModal('box')">open</button><div class="modal-dialog" id="box">Sign up</div>
<div class="article" id="main"><p>Body text, named by no handler.</p></div>
<div class="popupish">not a popup class</div>
</body></html>"""


def test_handler_named_ids_and_popup_classes_outermost_only():
    # what would fail: ids never named by a handler taken, the form a handler names taken, nested matches
    # counted twice, or a class that only starts with "popup" taken for one
    found = toggled(lxml.html.fromstring(PAGE))
    assert [el.get("id") for el in found] == ["t1", "t2", "box"]


def test_shingles():
    assert shingles("a b c d e".split()) == [("a", "b", "c", "d"), ("b", "c", "d", "e")]
    assert shingles("a b".split()) == []
