"""A run folder, written and read: ``pages.csv`` (one row per page), ``predictions.jsonl`` (one
line per page, in the same order) and ``summary.json`` (written last, atomically: its presence
means the run is complete). The runner writes through :func:`write_results`; the run reuse check
(:func:`previous_run`), the reports and the viewer read through :class:`Run`, whose checks keep a
damaged run from passing for a good one: ``pages.csv`` must hold ``n_pages`` rows of
``summary.json``, and ``predictions.jsonl`` one complete line per page, in the same order. A
damaged file is a :class:`RunFileError` naming the file and what is wrong, never a silently
shortened run. :func:`protocol_name` reads a summary's protocol, also from the summaries of
earlier versions, which did not record it."""

from __future__ import annotations

import json
import math
from collections.abc import Sequence
from dataclasses import dataclass
from functools import cached_property
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


class RunFileError(Exception):
    """A run folder's files are missing, truncated or disagree with each other."""


def read_summary(path: Path) -> dict:
    """A ``summary.json`` file; a missing or damaged one is a :class:`RunFileError`."""
    if not path.is_file():
        raise RunFileError(f"{path.parent}: no summary.json (not a run folder, or the run did not finish)")
    try:
        return json.loads(path.read_text(encoding="utf-8"))
    except json.JSONDecodeError as err:
        raise RunFileError(f"{path}: not valid JSON ({err})") from err


def read_pages(path: Path) -> pd.DataFrame:
    """A ``pages.csv`` file: page ids and errors as text, empty cells as empty strings."""
    if not path.is_file():
        raise RunFileError(f"{path.parent}: no pages.csv")
    return pd.read_csv(path, dtype={"page_id": str, "error": str}, keep_default_na=False)


@dataclass
class Run:
    """A run folder: its summary, page rows and (on demand) predictions."""

    path: Path

    @cached_property
    def summary(self) -> dict:
        return read_summary(self.path / "summary.json")

    @cached_property
    def pages(self) -> pd.DataFrame:
        """``pages.csv`` (:func:`read_pages`), checked against the summary's page count."""
        frame = read_pages(self.path / "pages.csv")
        expected = self.summary.get("n_pages")
        if expected is not None and len(frame) != expected:
            file = self.path / "pages.csv"
            raise RunFileError(f"{file}: {len(frame)} rows but summary.json says n_pages = {expected} (truncated?)")
        return frame

    @property
    def label(self) -> str:
        """The run's extractor, with the folder's name where that helps tell runs apart."""
        return str(self.summary.get("extractor", self.path.name))

    def errors(self) -> dict[str, str]:
        """Page id -> error message of the pages the extractor failed on."""
        rows = self.pages[self.pages["error"].astype(str) != ""]
        return dict(zip(rows["page_id"], rows["error"].astype(str), strict=True))

    def predictions(self) -> list[dict]:
        """``predictions.jsonl``: one record per row of ``pages.csv``, same ids in the same order.
        A missing file, a line cut short, or fewer (or other) pages than ``pages.csv`` is a
        :class:`RunFileError` saying which."""
        file = self.path / "predictions.jsonl"
        if not file.is_file():
            raise RunFileError(f"{self.path}: no predictions.jsonl (the run was made with save_predictions=false)")
        text = file.read_text(encoding="utf-8")
        lines = text.split("\n")
        if lines[-1] == "":
            lines.pop()
        elif lines:
            raise RunFileError(f"{file} is truncated: its last line ({len(lines)}) has no line end")
        records = []
        for number, line in enumerate(lines, start=1):
            try:
                records.append(json.loads(line))
            except json.JSONDecodeError as err:
                raise RunFileError(f"{file} is damaged at line {number}: {err}") from err
        ids = list(self.pages["page_id"])
        got = [str(r.get("page_id")) for r in records]
        if got != ids:
            missing = [i for i in ids if i not in set(got)]
            detail = f"; missing pages: {', '.join(missing[:10])}" + (" ..." if len(missing) > 10 else "")
            raise RunFileError(
                f"{file} has {len(records)} predictions for the {len(ids)} pages of pages.csv"
                + (detail if missing else " (in another order, or other page ids)")
                + " (truncated? re-run the extractor)"
            )
        return records


def previous_run(output_dir: Path, field: str, key: str) -> dict | None:
    """The summary of a complete earlier run in ``output_dir`` whose ``field`` (``quick_key`` or
    ``run_key``) is ``key`` (``summary.json`` is written last: its presence means complete)."""
    try:
        summary = read_summary(output_dir / "summary.json")
    except (OSError, ValueError, RunFileError):
        return None
    return summary if summary.get(field) == key and (output_dir / "pages.csv").is_file() else None


#: The protocol names of runs.csv files written before summaries recorded ``protocol``.
LEGACY_PROTOCOLS = {"test": "in_domain", "cv": "cv"}


def protocol_name(summary: dict) -> str:
    """The protocol a run followed (``summary["protocol"]["name"]``: in_domain, cv, cross_dataset,
    mixture). A summary of an earlier version, which did not record it, is read as that version
    ran it: ``cv`` where it has a ``cv`` section, ``mixture`` where it has a ``mixture`` section (a
    ``fallback_train_on`` run trained on the mixture too), ``cross_dataset`` where it names other
    training data, else ``in_domain``."""
    if isinstance(summary.get("protocol"), dict):
        return str(summary["protocol"]["name"])
    if "cv" in summary:
        return "cv"
    if "mixture" in summary:
        return "mixture"
    return legacy_protocol_name("cross" if summary.get("trained_on") else "test", str(summary.get("trained_on") or ""))


def legacy_protocol_name(protocol: str, trained_on: str) -> str:
    """A runs.csv row's protocol of an earlier version (``test``, ``cv``, ``cross``) as the protocol
    name: ``cross`` stood for both the cross-dataset and the mixture runs (``trained_on``
    ``mix(...)/weights``)."""
    if protocol == "cross":
        return "mixture" if trained_on.startswith("mix(") else "cross_dataset"
    return LEGACY_PROTOCOLS.get(protocol, protocol)


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
