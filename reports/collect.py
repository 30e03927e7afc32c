"""Collect runs: every ``summary.json`` under the given folders, one row per run."""

from __future__ import annotations

import json
from collections.abc import Iterable
from pathlib import Path

import pandas as pd

#: What identifies a run's setting; among runs with equal keys the latest one wins.
KEY = ("report", "extractor", "dataset", "split", "protocol", "trained_on", "params")


def protocol(summary: dict) -> str:
    """``test`` (the split's test pages), ``cv`` (cross-validation) or ``cross`` (trained on
    another dataset)."""
    if "cv" in summary:
        return "cv"
    return "cross" if summary.get("trained_on") else "test"


def run_row(path: Path) -> dict:
    """One run's row: identity, every metric flattened (``block.f1``), timings, the extractor's
    hyperparameters (``param.<name>``) and where its files are."""
    summary = json.loads(path.read_text())
    config = summary.get("config", {})
    params = {k: v for k, v in config.get("extractor", {}).items() if k != "_target_"}
    row = {
        "run_dir": str(path.parent),
        "report": config.get("report") or "",
        "extractor": summary["extractor"],
        "dataset": summary["dataset"],
        "split": str(config.get("dataset", {}).get("split", summary["split"])),
        "protocol": protocol(summary),
        "trained_on": summary.get("trained_on", ""),
        "params": json.dumps(params, sort_keys=True),
        "n_pages": summary["n_pages"],
        "n_errors": summary["n_errors"],
        "finished_at": summary.get("finished_at", ""),
        "ms_per_page": summary["timing"]["extract_ms_per_page"],
        "fit_s": summary["timing"].get("fit_s", 0.0),
    }
    for group, values in summary["metrics"].items():
        for name, value in values.items():
            row[f"{group}.{name}"] = value
    for page_type, part in summary.get("by_page_type", {}).items():
        row[f"type.{page_type}.n_pages"] = part["n_pages"]
        for group, values in part["metrics"].items():
            for name, value in values.items():
                row[f"type.{page_type}.{group}.{name}"] = value
    if "cv" in summary:
        row["cv.f1_std"] = summary["cv"]["std"]["block_f1"]
        row["cv.folds"] = summary["cv"]["folds"]
    row.update({f"param.{k}": v for k, v in params.items()})
    return row


def collect(folders: Iterable[str | Path]) -> pd.DataFrame:
    """All runs under ``folders`` (searched recursively), the latest of each setting kept."""
    rows = [run_row(p) for folder in folders for p in sorted(Path(folder).rglob("summary.json"))]
    if not rows:
        return pd.DataFrame(columns=[*KEY, "run_dir"])
    frame = pd.DataFrame(rows).sort_values("finished_at")
    return frame.drop_duplicates(subset=list(KEY), keep="last").reset_index(drop=True)


def pages(run_dir: str | Path) -> pd.DataFrame:
    """A run's ``pages.csv`` (page ids as strings)."""
    return pd.read_csv(Path(run_dir) / "pages.csv", dtype={"page_id": str}, keep_default_na=False)
