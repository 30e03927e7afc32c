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
from boilerbench.lcs import AlignmentTooLargeError, lcs_alignment
from boilerbench.reports.inspect.load import OUTCOME_NAMES, PageView
from boilerbench.reports.runfiles import Run
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


def _metric_cell(row: dict, column: str) -> str:
    """A sortable metric cell; an error page sorts first (worst) and says ``error``, not 0."""
    if str(row.get("error") or ""):
        return "<td class='num err' data-value='-1e9'>error</td>"
    value = _number(row.get(column))
    if not math.isfinite(value):
        return "<td class='num' data-value='-1e8'>–</td>"
    shown = f"{value:.2f}" if column == "cleaneval" else f"{value:.3f}"
    return f"<td class='num' data-value='{value!r}'>{shown}</td>"


def index_html(runs: list[Run], views: list[PageView]) -> str:
    names = [html.escape(r.label) for r in runs]
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
        cells = [f"<td><a href='{page_file(i)}'>{html.escape(view.page_id)}</a></td>"]
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
        css = " class='error'" if errors else ""
        body.append(f"<tr{css} data-page-id='{html.escape(view.page_id, quote=True)}'>{''.join(cells)}</tr>")
    n_errors = sum(1 for v in views if any(v.errors()))
    title = " vs ".join(names)
    intro = (
        f"<h1>{title}</h1><p class='meta'>{len(views)} pages, {n_errors} with errors; "
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
    for run, row in zip(runs, view.rows, strict=True):
        error = str(row.get("error") or "")
        if error:
            cells = f"<td colspan='{len(METRICS)}' class='err'>error: {html.escape(error)}</td>"
        else:
            cells = "".join(_metric_cell(row, column) for column, _ in METRICS)
        rows.append(f"<tr><th>{html.escape(run.label)}</th>{cells}</tr>")
    header = "".join(f"<th>{h}</th>" for _, h in METRICS)
    return f"<table class='metrics'><tr><th>run</th>{header}</tr>{''.join(rows)}</table>"


def _legend(runs: list[Run], view: PageView) -> str:
    parts = []
    for r, run in enumerate(runs):
        counts = Counter(view.outcomes(r))
        chips = "".join(
            f"<span class='chip o-{k}' data-count='{counts.get(k, 0)}' data-outcome='{k}'>"
            f"{OUTCOME_NAMES[k]}: {counts.get(k, 0)}</span>"
            for k in OUTCOME_NAMES
        )
        parts.append(f"<div class='legend' data-run='{r}'><b>{html.escape(run.label)}</b> {chips}</div>")
    return "".join(parts)


def _blocks(runs: list[Run], view: PageView) -> str:
    outcomes = [view.outcomes(r) for r in range(len(runs))]
    if not view.block_texts:
        return "<p class='err'>No blocks: the page was not segmented in this run (see the error above).</p>"
    rows = []
    for i, text in enumerate(view.block_texts):
        per_run = [o[i] if o else "" for o in outcomes]
        disagree = len(runs) == 2 and per_run[0] != per_run[1] and all(per_run)
        css = f"blk o-{per_run[0]}" if per_run[0] else "blk"
        css += " disagree" if disagree else ""
        chips = "".join(
            f"<span class='tag o-{o}' title='{html.escape(runs[r].label)}: {OUTCOME_NAMES.get(o, 'no labels')}'>"
            f"{'AB'[r] if len(runs) == 2 else ''}</span>"
            for r, o in enumerate(per_run)
            if len(runs) == 2  # one run: the row's colour says it all
        )
        path = html.escape(view.block_paths[i], quote=True)
        text_html = f"<span class='t'>{html.escape(text)}</span>"
        rows.append(f"<div class='{css}' data-i='{i}' title='{path}'>{chips}{text_html}</div>")
    toggle = (
        "<label><input type='checkbox' id='only-disagree'> only blocks where the runs disagree</label>"
        if len(runs) == 2
        else ""
    )
    return f"<div class='controls'>{toggle}</div><div id='blocks'>{''.join(rows)}</div>"


def page_html(runs: list[Run], view: PageView, index: int, total: int) -> str:
    nav = ["<a href='../index.html'>index</a>"]
    if index > 0:
        nav.append(f"<a href='../{page_file(index - 1)}'>previous</a>")
    if index + 1 < total:
        nav.append(f"<a href='../{page_file(index + 1)}'>next</a>")
    url = f" <span class='meta'>{html.escape(view.url)}</span>" if view.url else ""
    errors = "".join(
        f"<p class='err banner'>{html.escape(run.label)} failed on this page: {html.escape(e)}</p>"
        for run, e in zip(runs, view.errors(), strict=True)
        if e
    )
    notes = "".join(f"<p class='note'>{html.escape(n)}</p>" for n in view.notes)
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
        f"<nav>{' | '.join(nav)}</nav><h1>page {html.escape(view.page_id)}{url}</h1>{errors}{notes}"
        f"{_metrics_table(runs, view)}<h2>blocks in reading order</h2>{_legend(runs, view)}{_blocks(runs, view)}"
        f"<h2>text</h2><div class='cols'>{''.join(texts)}</div>"
    )
    return _document(f"page {view.page_id}", body)


def write_site(runs: list[Run], views: list[PageView], out: Path) -> None:
    """Write ``index.html`` and ``pages/page-NNNNN.html`` into ``out`` (atomically, file by file)."""
    for i, view in enumerate(views):
        atomic_write_text(out / page_file(i), page_html(runs, view, i, len(views)))
    atomic_write_text(out / "index.html", index_html(runs, views))
