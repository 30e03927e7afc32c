"""Reading one run's files with the checks that keep a damaged run from passing for a good one:
``pages.csv`` must hold ``n_pages`` rows of ``summary.json``, and ``predictions.jsonl`` one
complete line per page, in the same order. A damaged file is a :class:`RunFileError` naming the
file and what is wrong, never a silently shortened run."""

from __future__ import annotations

import json
from dataclasses import dataclass
from functools import cached_property
from pathlib import Path

import pandas as pd


class RunFileError(Exception):
    """A run folder's files are missing, truncated or disagree with each other."""


@dataclass
class Run:
    """A run folder: its summary, page rows and (on demand) predictions."""

    path: Path

    @cached_property
    def summary(self) -> dict:
        file = self.path / "summary.json"
        if not file.is_file():
            raise RunFileError(f"{self.path}: no summary.json (not a run folder, or the run did not finish)")
        try:
            return json.loads(file.read_text(encoding="utf-8"))
        except json.JSONDecodeError as err:
            raise RunFileError(f"{file}: not valid JSON ({err})") from err

    @cached_property
    def pages(self) -> pd.DataFrame:
        """``pages.csv`` (page ids as text, empty cells as empty strings), checked against the
        summary's page count."""
        file = self.path / "pages.csv"
        if not file.is_file():
            raise RunFileError(f"{self.path}: no pages.csv")
        frame = pd.read_csv(file, dtype={"page_id": str, "error": str}, keep_default_na=False)
        expected = self.summary.get("n_pages")
        if expected is not None and len(frame) != expected:
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
