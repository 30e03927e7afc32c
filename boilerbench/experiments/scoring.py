"""Extract one page safely (:mod:`boilerbench.engine.extraction`), score it, and aggregate the rows of a run."""

from __future__ import annotations

import time
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import pandas as pd

from boilerbench.datasets.align import align_labels
from boilerbench.datasets.page import Page
from boilerbench.engine.extraction import extract_safely
from boilerbench.errors import describe
from boilerbench.evaluation import (
    BlockCounts,
    CleanEvalCounts,
    SnippetCounts,
    block_counts,
    block_page_metrics,
    cleaneval_counts,
    cleaneval_markup_score,
    has_markup,
    is_wrong,
    lcs_error_from_counts,
    rouge_lsum,
    snippet_counts,
    snippet_summary,
    text_only_markup,
    token_prf,
    word_prf,
)
from boilerbench.evaluation.aggregates import PRESENT, figure_for, point_value
from boilerbench.extractors.base import Extraction, Extractor


@dataclass
class PageResult:
    """One page's row for ``pages.csv``, its extracted text, the counts behind the aggregates, and
    the predicted block labels the block metrics scored (None where the page has no blocks).

    A page that could not be loaded (``Page.load_error``) has a row with its error and no
    scores (``scored`` is False): it counts among the run's errors, not in its metrics.
    """

    row: dict
    text: str
    cleaneval: CleanEvalCounts
    blocks: BlockCounts | None
    snippets: SnippetCounts | None = None
    scored: bool = True
    labels: np.ndarray | None = None


def _identity(page: Page) -> dict:
    """The row's first columns: the page id, its type where the dataset has types, and its
    language where it is known (:attr:`Page.language`)."""
    return {
        "page_id": page.id,
        **({"page_type": page.page_type} if page.page_type else {}),
        **({"language": page.language} if page.language else {}),
    }


def unloaded_result(page: Page) -> PageResult:
    """The row of a page that could not be loaded: its error, no scores."""
    row = {**_identity(page), "extract_ms": 0.0, "error": f"load: {page.load_error}"}
    return PageResult(row=row, text="", cleaneval=cleaneval_counts("", ""), blocks=None, scored=False)


def markup_scores(extraction: Extraction | None, text: str, page: Page, text_only: float) -> dict:
    """The CleanEval 2007 text-and-markup score and the competition's average of it and the
    text-only score, on pages whose gold carries CleanEval markup (``structured``: whether the
    extractor output its own structure rather than the text-only one: a ``<p>`` per line)."""
    gold = page.meta.get("gold_markup")
    if not gold or not has_markup(gold):
        return {}
    structured = extraction is not None and extraction.markup is not None
    markup = extraction.markup if structured and extraction is not None else text_only_markup(text)
    tm = cleaneval_markup_score(markup or "", gold, page.tokenizer)
    return {"cleaneval_markup": tm, "cleaneval_2007": (tm + text_only) / 2, "structured": structured}


def evaluate_page(extractor: Extractor, page: Page, max_html_chars: int, rouge: bool = False) -> PageResult:
    """Extract and score one page (with ROUGE-LSum too when ``rouge``, the snippet checks when the
    page has snippets). ``extract_ms`` includes parsing and segmentation when the extractor is the
    first to use ``page.blocks`` (the runner makes sure it is). A page that could not be loaded
    is not extracted: see :func:`unloaded_result`."""
    if page.load_error:
        return unloaded_result(page)
    start = time.perf_counter()
    extraction, error = extract_safely(extractor, page, max_html_chars)
    extract_ms = 1000 * (time.perf_counter() - start)
    text = extraction.text if extraction is not None else ""

    tokenizer = page.tokenizer
    ce = cleaneval_counts(text, page.gold_text, tokenizer)
    tok = token_prf(text, page.gold_text, tokenizer)
    word = word_prf(text, page.gold_text)
    error_share = lcs_error_from_counts(ce)
    row = {
        **_identity(page),
        "cleaneval": ce.score,
        **markup_scores(extraction, text, page, ce.score),
        "lcs_error": error_share,
        "lcs_wrong": is_wrong(error_share),
        "token_precision": tok.precision,
        "token_recall": tok.recall,
        "token_f1": tok.f1,
        "word_precision": word.precision,
        "word_recall": word.recall,
        "word_f1": word.f1,
    }
    if rouge:
        lsum = rouge_lsum(text, page.gold_text, tokenizer)
        row.update({"rouge_precision": lsum.precision, "rouge_recall": lsum.recall, "rouge_f1": lsum.f1})
    snippets = None
    if page.snippets is not None:
        snippets = snippet_counts(text, page.snippets.with_, page.snippets.without)
        row.update(
            {
                "snippet_with_found": snippets.with_found,
                "snippet_without_absent": snippets.without_absent,
                "snippet_f1": snippets.f1,
            }
        )

    counts: BlockCounts | None = None
    pred: np.ndarray | None = None
    if len(page.html) <= max_html_chars:
        try:
            gold = page.gold_labels
            if extraction is not None and extraction.labels is not None:
                pred = extraction.labels
            elif extraction is not None:
                pred = align_labels(page.blocks, text)
            else:
                pred = np.zeros(len(gold), dtype=np.int8)
            counts = block_counts(pred, gold)
        except Exception as err:  # e.g. labels of the wrong length, or an alignment too large
            error = "; ".join(e for e in (error, describe(err)) if e)
    if counts is not None:
        row.update({f"block_{k}": v for k, v in block_page_metrics(counts).items()})
        row.update({"n_blocks": counts.n_blocks, "n_gold_blocks": counts.n_gold, "n_pred_blocks": counts.n_pred})
        # the pooled counts behind micro figures, and the page's text size (its complexity)
        row.update({"n_tp_blocks": counts.tp, "n_page_tokens": sum(map(len, page.blocks.tokens))})
    row.update({"n_pred_tokens": ce.n_pred, "n_gold_tokens": ce.n_gold, "n_lcs_tokens": ce.lcs})
    row.update({"extract_ms": extract_ms, "error": error})
    if extraction is not None:
        row.update(extraction.info)
    return PageResult(
        row=row,
        text=text,
        cleaneval=ce,
        blocks=counts,
        snippets=snippets,
        labels=pred if counts is not None else None,
    )


#: The figures of a run's ``metrics`` section (group -> names), in the order ``summary.json``
#: lists them; each one is its :data:`~boilerbench.evaluation.aggregates.FIGURES` definition.
METRICS = {
    "cleaneval": ("mean", "micro", "markup_mean", "mean_2007"),
    "lcs_error": ("mean", "wrong_rate"),
    "block": ("accuracy", "precision", "recall", "f1", "macro_f1"),
    "token": ("precision", "recall", "f1"),
    "word": ("precision", "recall", "f1"),
    "rouge_lsum": ("precision", "recall", "f1"),
    "snippets": ("with_found", "without_absent", "f1"),
}
#: Figures reported only where some page row has their columns (NaN otherwise, for the rest).
OPTIONAL = {
    ("cleaneval", "markup_mean"),
    ("cleaneval", "mean_2007"),
    *(("rouge_lsum", n) for n in METRICS["rouge_lsum"]),
}
OPTIONAL |= {("snippets", n) for n in METRICS["snippets"]}


def aggregate(results: Sequence[PageResult]) -> dict:
    """The ``metrics`` section of ``summary.json`` over the pages that were scored: every figure
    computed from the page rows by its registry definition (:func:`figure_for`; block figures
    pool the counts of the pages that could be segmented). The snippet checks also report
    trafilatura's pooled ``micro_f1`` and their page count, from the per-page snippet counts
    (which the rows do not carry)."""
    scored = [r for r in results if r.scored]
    rows = pd.DataFrame([r.row for r in scored])
    metrics: dict = {}
    for group, names in METRICS.items():
        for name in names:
            figure = figure_for(group, name)
            missing = [c for c in figure.columns if c.removeprefix(PRESENT) not in rows.columns]
            if missing and (group, name) in OPTIONAL:
                continue
            frame = rows.reindex(columns=[*rows.columns, *dict.fromkeys(c.removeprefix(PRESENT) for c in missing)])
            metrics.setdefault(group, {})[name] = point_value(figure, frame)
    snippets = [r.snippets for r in scored if r.snippets is not None]
    if snippets:
        summary = snippet_summary(snippets)
        metrics.setdefault("snippets", {}).update(micro_f1=summary["micro_f1"], n_pages=summary["n_pages"])
    return metrics


def by_column(results: Sequence[PageResult], column: str) -> dict:
    """Per value of a row ``column`` (``page_type``, ``language``): its page and error counts and
    the same metrics as the whole run (:func:`aggregate`); empty when no row has the column."""
    groups: dict[str, list[PageResult]] = {}
    for r in results:
        if r.row.get(column):
            groups.setdefault(str(r.row[column]), []).append(r)
    return {
        name: {
            "n_pages": len(part),
            "n_errors": sum(1 for r in part if r.row["error"]),
            "metrics": aggregate(part),
        }
        for name, part in sorted(groups.items())
    }
