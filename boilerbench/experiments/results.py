"""Writing a run's results (atomically) and printing its summary table."""

from __future__ import annotations

import json
import math
from collections.abc import Sequence
from pathlib import Path

import pandas as pd

from boilerbench.atomic import atomic_write_text
from boilerbench.errors import ConfigError
from boilerbench.experiments.scoring import PageResult


def _finite(value):
    """JSON has no NaN: write null instead."""
    if isinstance(value, float) and not math.isfinite(value):
        return None
    if isinstance(value, dict):
        return {k: _finite(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_finite(v) for v in value]
    return value


def prediction_record(result: PageResult) -> dict:
    """A page's line of ``predictions.jsonl``: its id, the extracted text and, where the page has
    blocks, the predicted block labels the block metrics scored as a string of 0/1 (one character
    per block, compact): what ``python -m boilerbench.reports inspect`` colours blocks by."""
    record = {"page_id": result.row["page_id"], "text": result.text}
    if result.labels is not None:
        record["labels"] = "".join("1" if v else "0" for v in result.labels.tolist())
    return record


def write_results(output_dir: Path, results: Sequence[PageResult], summary: dict, predictions: bool) -> None:
    """``pages.csv``, ``summary.json`` and (optionally) ``predictions.jsonl`` in ``output_dir``."""
    output_dir.mkdir(parents=True, exist_ok=True)
    atomic_write_text(output_dir / "pages.csv", pd.DataFrame([r.row for r in results]).to_csv(index=False))
    if predictions:
        lines = (json.dumps(prediction_record(r), ensure_ascii=False) for r in results)
        atomic_write_text(output_dir / "predictions.jsonl", "".join(line + "\n" for line in lines))
    write_summary(output_dir, summary)


def write_summary(output_dir: Path, summary: dict) -> None:
    """``summary.json`` in ``output_dir`` (atomically; NaN and infinities as null)."""
    atomic_write_text(output_dir / "summary.json", json.dumps(_finite(summary), indent=2, ensure_ascii=False) + "\n")


def summary_value(summary: dict, path: str) -> float | None:
    """The figure at a dotted ``path`` of a summary (``metrics.block.f1``); a path that names no
    number is a :class:`ConfigError` listing the metrics there are."""
    node: object = summary
    for part in path.split("."):
        if not isinstance(node, dict) or part not in node:
            metrics = summary.get("metrics", {})
            valid = ", ".join(f"metrics.{g}.{k}" for g, values in metrics.items() for k in values)
            raise ConfigError(f"optimize={path!r} names no figure of the summary; choose one of: {valid}")
        node = node[part]
    if node is None:
        return None
    if not isinstance(node, int | float):
        raise ConfigError(f"optimize={path!r} names {type(node).__name__}, not a number")
    return float(node)


def format_summary(summary: dict) -> str:
    """A short human-readable table of a run's main figures."""
    m = summary["metrics"]
    b, c, t = m["block"], m["cleaneval"], m["token"]
    lines = [
        f"{summary['extractor']} on {summary['dataset']} (split {summary['split']}): "
        f"{summary['n_pages']} pages, {summary['n_errors']} errors"
        + (" (above max_error_rate)" if summary.get("error_rate_exceeded") else ""),
        f"  CleanEval score   mean {c['mean']:6.2f}   micro {c['micro']:6.2f}",
        f"  block (micro)     acc {b['accuracy']:.3f}  P {b['precision']:.3f}  R {b['recall']:.3f}  "
        f"F1 {b['f1']:.3f}   macro F1 {b['macro_f1']:.3f}",
        f"  token bag-of-words  P {t['precision']:.3f}  R {t['recall']:.3f}  F1 {t['f1']:.3f}",
        f"  SCEDD error       mean {m['lcs_error']['mean']:.3f}   wrong (> 0.2) {m['lcs_error']['wrong_rate']:.3f}",
    ]
    if "f1_ci95" in b and "f1_ci95" in t:
        lines.append(
            "  95 % page-bootstrap intervals   block F1 [{:.3f}, {:.3f}]   token F1 [{:.3f}, {:.3f}]".format(
                *b["f1_ci95"], *t["f1_ci95"]
            )
        )
    if "snippets" in m:
        s = m["snippets"]
        lines.append(
            f"  snippets          with found {s['with_found']:.3f}  without absent {s['without_absent']:.3f}  "
            f"F1 {s['f1']:.3f}   micro F1 {s['micro_f1']:.3f} ({s['n_pages']} pages)"
        )
    if "rouge_lsum" in m:
        r = m["rouge_lsum"]
        lines.append(f"  ROUGE-LSum        P {r['precision']:.3f}  R {r['recall']:.3f}  F1 {r['f1']:.3f}")
    lines += [
        f"  time  extract {summary['timing']['extract_ms_per_page']:.2f} ms/page (p95 "
        f"{summary['timing']['extract_ms_p95']:.2f}), fit {summary['timing']['fit_s']:.2f} s",
    ]
    if "cv" in summary:
        mean, std = summary["cv"]["mean"], summary["cv"]["std"]
        lines.append(
            f"  {summary['cv']['folds']}-fold CV (mean +- sd over folds): block F1 {mean['block_f1']:.3f} +- "
            f"{std['block_f1']:.3f}   CleanEval {mean['cleaneval_mean']:.2f} +- {std['cleaneval_mean']:.2f}"
        )
    if summary.get("output_dir"):
        lines.append(f"  results in {summary['output_dir']}")
    return "\n".join(lines)
