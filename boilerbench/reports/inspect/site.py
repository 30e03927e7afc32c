"""HTML of the viewer: ``index.html`` and one file per page under ``pages/``, each with the CSS and
JS inlined (nothing is fetched: the site works from ``file://`` with no network).

Everything a run or a dataset supplies (page ids, URLs, block and gold text, errors) is written
as escaped text, so a page whose text holds ``<script>``, an ``onerror=`` attribute or a
``javascript:`` link shows it as text. A Content-Security-Policy (``default-src 'none'``, the
viewer's own script allowed by its SHA-256) is a second wall: a script that escaping missed
would not run, nor would an event-handler attribute or a ``javascript:`` URL.
"""

from __future__ import annotations

import base64
import hashlib
import html
import math
from collections import Counter
from pathlib import Path

import numpy as np

from boilerbench.atomic import atomic_write_text
from boilerbench.experiments.results import Run
from boilerbench.lcs import AlignmentTooLargeError, lcs_alignment
from boilerbench.reports.inspect.load import OUTCOME_NAMES, PageView
from boilerbench.tokenizer import normalise_tokens

_HERE = Path(__file__).parent
#: Index columns: (pages.csv column, header); all are better when higher.
METRICS = (
    ("token_f1", "token F1"),
    ("cleaneval", "CleanEval"),
    ("block_f1", "block F1"),
    ("block_precision", "block P"),
    ("block_recall", "block R"),
)


def _asset(name: str) -> str:
    return (_HERE / name).read_text(encoding="utf-8")


def content_security_policy(script: str) -> str:
    """The policy of every viewer file: nothing but its inline style and the one inline ``script``."""
    digest = base64.b64encode(hashlib.sha256(script.encode("utf-8")).digest()).decode("ascii")
    return f"default-src 'none'; style-src 'unsafe-inline'; script-src 'sha256-{digest}'; base-uri 'none'"


def _document(title: str, body: str) -> str:
    script = _asset("viewer.js")
    return (
        "<!DOCTYPE html>\n<html lang='en'><head><meta charset='utf-8'>"
        f"<meta http-equiv='Content-Security-Policy' content=\"{content_security_policy(script)}\">"
        f"<title>{html.escape(title)}</title><style>{_asset('viewer.css')}</style></head>"
        f"<body>{body}<script>{script}</script></body></html>\n"
    )


def page_file(index: int) -> str:
    """The file of the index-th page (ids may hold characters a file name cannot)."""
    return f"pages/page-{index:05d}.html"


def _number(value) -> float:
    try:
        number = float(value)
    except (TypeError, ValueError):
        return math.nan
    return number


def sort_value(row: dict, column: str) -> float:
    """What a metric cell sorts by: an error page first (worst), then a page without the figure."""
    if str(row.get("error") or ""):
        return -1e9
    value = _number(row.get(column))
    return value if math.isfinite(value) else -1e8


def _metric_cell(row: dict, column: str) -> str:
    """A sortable metric cell; an error page sorts first (worst) and says ``error``, not 0."""
    value = sort_value(row, column)
    if value == -1e9:
        return "<td class='num err' data-value='-1e9'>error</td>"
    if value == -1e8:
        return "<td class='num' data-value='-1e8'>–</td>"
    shown = f"{value:.2f}" if column == "cleaneval" else f"{value:.3f}"
    return f"<td class='num' data-value='{value!r}'>{shown}</td>"


def table_order(views: list[PageView]) -> list[int]:
    """The pages in the order the index first shows them (viewer.js sorts it on load by its
    ``data-default-sort`` column, the first run's token F1, ascending and stable): the order the
    pages' previous and next links follow until the reader sorts the index otherwise."""
    return sorted(range(len(views)), key=lambda i: sort_value(views[i].rows[0], METRICS[0][0]))


def run_names(runs: list[Run]) -> list[str]:
    """How the viewer names the runs: their labels, with the folder's name where two are alike;
    with two runs, ``A: ...`` and ``B: ...`` (the letters of the block chips and of ``A - B``)."""
    labels = [r.label for r in runs]
    names = [f"{r.label} ({r.path.name})" if labels.count(r.label) > 1 else r.label for r in runs]
    return [f"{letter}: {name}" for letter, name in zip("AB", names, strict=False)] if len(runs) == 2 else names


def source_file(index: int) -> str:
    """The index-th page's HTML as the dataset gives it, as plain text: shown, never rendered
    (it may hold scripts)."""
    return f"sources/page-{index:05d}.txt"


def index_html(runs: list[Run], views: list[PageView]) -> str:
    names = [html.escape(n) for n in run_names(runs)]
    two = len(runs) == 2
    headers = ["<th data-sort='text'>page</th>"]
    for name in names:
        headers += [f"<th data-sort='num'>{h}<br><small>{name}</small></th>" for _, h in METRICS]
    if two:
        headers += [f"<th data-sort='num'>Δ {METRICS[0][1]}<br><small>A - B</small></th>"]
        headers += ["<th data-sort='num'>blocks where<br>they disagree</th>"]
    headers += ["<th data-sort='text'>error</th>"]
    body = []
    for i, view in enumerate(views):
        flag = " <span class='flag empty-gold'>empty gold</span>" if view.empty_gold else ""
        cells = [f"<td><a href='{page_file(i)}'>{html.escape(view.page_id)}</a>{flag}</td>"]
        for row in view.rows:
            cells += [_metric_cell(row, column) for column, _ in METRICS]
        if two:
            a, b = (_number(r.get(METRICS[0][0])) for r in view.rows)
            delta = a - b if not any(str(r.get("error") or "") for r in view.rows) else math.nan
            cells.append(
                f"<td class='num' data-value='{delta!r}'>{delta:+.3f}</td>"
                if math.isfinite(delta)
                else "<td class='num' data-value='-1e9'>–</td>"
            )
            disagree = _disagreements(view)
            cells.append(f"<td class='num' data-value='{disagree}'>{disagree}</td>")
        errors = "; ".join(e for e in view.errors() if e)
        cells.append(f"<td class='err'>{html.escape(errors[:200])}</td>")
        css = " ".join(c for c, on in (("error", errors), ("empty-gold", view.empty_gold)) if on)
        css = f" class='{css}'" if css else ""
        page_id = html.escape(view.page_id, quote=True)
        body.append(f"<tr{css} data-page-id='{page_id}' data-file='{page_file(i)}'>{''.join(cells)}</tr>")
    n_errors = sum(1 for v in views if any(v.errors()))
    n_empty = sum(1 for v in views if v.empty_gold)
    title = " vs ".join(names)
    intro = (
        f"<h1>{title}</h1><p class='meta'>{len(views)} pages, {n_errors} with errors, {n_empty} with an empty "
        "gold text (flagged: every block kept there is noise); "
        f"{html.escape(str(runs[0].summary.get('dataset')))} / {html.escape(str(runs[0].summary.get('split')))}. "
        "Click a column to sort; pages start sorted by the first run's token F1, worst (and errors) first.</p>"
    )
    table = (
        f"<table id='index' class='sortable' data-default-sort='1'><thead><tr>{''.join(headers)}</tr></thead>"
        f"<tbody>{''.join(body)}</tbody></table>"
    )
    return _document(f"{title}: pages", intro + table)


def _disagreements(view: PageView) -> int:
    a, b = view.labels
    if a is None or b is None:
        return 0
    return int(np.sum(a != b))


def diff_html(source: str, target: str, css: str) -> str:
    """``source`` with the tokens not matched in ``target`` (an optimal LCS alignment of the
    CleanEval-normalised tokens, as the score counts them) wrapped in ``<mark class=css>``;
    line breaks kept."""
    lines = [line.split() for line in source.splitlines()]
    tokens = [t for line in lines for t in line]
    keys = [" ".join(normalise_tokens(t)) for t in tokens]
    try:
        matched = lcs_alignment(keys, [" ".join(normalise_tokens(t)) for t in target.split()]) >= 0
    except AlignmentTooLargeError:
        matched = np.ones(len(tokens), dtype=bool)
    out, k = [], 0
    for line in lines:
        words = []
        for token in line:
            text = html.escape(token)
            # a token the metrics ignore (only punctuation) is never marked
            words.append(text if matched[k] or not keys[k] else f"<mark class='{css}'>{text}</mark>")
            k += 1
        out.append(" ".join(words))
    return "<br>".join(out)


def _metrics_table(runs: list[Run], view: PageView) -> str:
    rows = []
    for name, row in zip(run_names(runs), view.rows, strict=True):
        error = str(row.get("error") or "")
        if error:
            cells = f"<td colspan='{len(METRICS)}' class='err'>error: {html.escape(error)}</td>"
        else:
            cells = "".join(_metric_cell(row, column) for column, _ in METRICS)
        rows.append(f"<tr><th>{html.escape(name)}</th>{cells}</tr>")
    header = "".join(f"<th>{h}</th>" for _, h in METRICS)
    return f"<table class='metrics'><tr><th>run</th>{header}</tr>{''.join(rows)}</table>"


def _legend(runs: list[Run], view: PageView) -> str:
    parts = []
    for r, name in enumerate(run_names(runs)):
        counts = Counter(view.outcomes(r))
        chips = "".join(
            f"<span class='chip o-{k}' data-count='{counts.get(k, 0)}' data-outcome='{k}'>"
            f"{OUTCOME_NAMES[k]}: {counts.get(k, 0)}</span>"
            for k in OUTCOME_NAMES
        )
        parts.append(f"<div class='legend' data-run='{r}'><b>{html.escape(name)}</b> {chips}</div>")
    return "".join(parts)


def _blocks(runs: list[Run], view: PageView) -> str:
    outcomes = [view.outcomes(r) for r in range(len(runs))]
    if not view.block_texts:
        return "<p class='err'>No blocks: the page was not segmented in this run (see the error above).</p>"
    rows = []
    names = run_names(runs)
    for i, text in enumerate(view.block_texts):
        per_run = [o[i] if o else "" for o in outcomes]
        disagree = len(runs) == 2 and per_run[0] != per_run[1] and all(per_run)
        css = f"blk o-{per_run[0]}" if per_run[0] else "blk"
        css += " disagree" if disagree else ""
        chips = "".join(
            f"<span class='tag o-{o}' title='{html.escape(names[r])}: {OUTCOME_NAMES.get(o, 'no labels')}'>"
            f"{'AB'[r] if len(runs) == 2 else ''}</span>"
            for r, o in enumerate(per_run)
            if len(runs) == 2  # one run: the row's colour says it all
        )
        path = html.escape(view.block_paths[i], quote=True)
        text_html = f"<span class='t'>{html.escape(text)}</span>"
        rows.append(f"<div class='{css}' id='b{i}' data-i='{i}' title='{path}'>{chips}{text_html}</div>")
    toggle = (
        "<label><input type='checkbox' id='only-disagree'> only blocks where the runs disagree</label>"
        if len(runs) == 2
        else ""
    )
    right = [all(o and o[i] == "db" for o in outcomes) for i in range(len(rows))]
    mistakes = [i for i in range(len(rows)) if any(o and o[i] in MISTAKES for o in outcomes)]
    jump = (
        f"<a id='first-mistake' href='#b{mistakes[0]}'>jump to the first mistake (block {mistakes[0]})</a>"
        if mistakes
        else "<span id='first-mistake'>no mistakes: every block kept or dropped as the gold says</span>"
    )
    return f"<div class='controls'>{jump} {toggle}</div><div id='blocks'>{''.join(fold(rows, right))}</div>"


#: Block outcomes that are mistakes: boilerplate kept, content dropped.
MISTAKES = ("kb", "dc")
#: Runs of at least this many correctly dropped boilerplate blocks are folded.
FOLD_AT = 3


def fold(rows: list[str], right: list[bool]) -> list[str]:
    """``rows`` with each run of :data:`FOLD_AT` or more consecutive ``right`` rows (boilerplate that
    every run dropped, as it should) folded into a closed ``<details>`` saying how many it holds."""
    out: list[str] = []
    i = 0
    while i < len(rows):
        if not right[i]:
            out.append(rows[i])
            i += 1
            continue
        end = i
        while end < len(rows) and right[end]:
            end += 1
        if end - i >= FOLD_AT:
            summary = f"<summary>{end - i} blocks of boilerplate dropped, rightly</summary>"
            out.append(f"<details class='fold'>{summary}{''.join(rows[i:end])}</details>")
        else:
            out.extend(rows[i:end])
        i = end
    return out


def _link(rel: str, index: int | None, text: str) -> str:
    """A previous / next link (viewer.js points it at the index's current order); hidden at an end."""
    if index is None:
        return f"<a id='{rel}' class='hide'>{text}</a>"
    return f"<a id='{rel}' href='../{page_file(index)}'>{text}</a>"


def page_html(runs: list[Run], view: PageView, index: int, previous: int | None, following: int | None) -> str:
    """The page of ``view`` (the ``index``-th page); its previous and next pages are those of the
    index table's order (:func:`table_order`)."""
    nav = [
        "<a href='../index.html'>index</a>",
        _link("previous", previous, "previous"),
        _link("next", following, "next"),
        f"<a href='../{source_file(index)}'>source HTML</a>",
    ]
    url = f" <span class='meta'>{html.escape(view.url)}</span>" if view.url else ""
    errors = "".join(
        f"<p class='err banner'>{html.escape(name)} failed on this page: {html.escape(e)}</p>"
        for name, e in zip(run_names(runs), view.errors(), strict=True)
        if e
    )
    notes = "".join(f"<p class='note'>{html.escape(n)}</p>" for n in view.notes)
    if view.empty_gold:
        notes += (
            "<p class='note empty-gold'>The gold text of this page is empty: every block is boilerplate, every "
            "kept block is noise, and its recall and F1 are 0 or undefined.</p>"
        )
    texts = [
        f"<div class='col'><h3>gold <small>(tokens {html.escape(runs[0].label)} missed marked)</small></h3>"
        f"<div class='text'>{diff_html(view.gold_text, view.texts[0], 'miss')}</div></div>"
    ]
    for run, text in zip(runs, view.texts, strict=True):
        texts.append(
            f"<div class='col'><h3>{html.escape(run.label)} <small>(tokens not in the gold marked)</small></h3>"
            f"<div class='text'>{diff_html(text, view.gold_text, 'extra')}</div></div>"
        )
    body = (
        f"<nav data-file='{page_file(index)}'>{' | '.join(nav)}</nav>"
        f"<h1>page {html.escape(view.page_id)}{url}</h1>{errors}{notes}"
        f"{_metrics_table(runs, view)}<h2>blocks in reading order</h2>{_legend(runs, view)}{_blocks(runs, view)}"
        f"<h2>text</h2><div class='cols'>{''.join(texts)}</div>"
    )
    return _document(f"page {view.page_id}", body)


def write_site(runs: list[Run], views: list[PageView], out: Path) -> None:
    """Write ``index.html``, ``pages/page-NNNNN.html`` and each page's source HTML as text
    (``sources/page-NNNNN.txt``) into ``out`` (atomically, file by file)."""
    order = table_order(views)
    for position, i in enumerate(order):
        previous = order[position - 1] if position > 0 else None
        following = order[position + 1] if position + 1 < len(order) else None
        atomic_write_text(out / page_file(i), page_html(runs, views[i], i, previous, following))
        # a byte-order mark: a browser shows the file as UTF-8 text, whatever it guesses otherwise
        atomic_write_text(out / source_file(i), "\ufeff" + views[i].source_html)
    atomic_write_text(out / "index.html", index_html(runs, views))
