"""What the viewer shows of each page: the run rows, the blocks, their gold and predicted labels.

See :mod:`boilerbench.reports.inspect` for why the labels come from the run and the blocks from the dataset.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
from hydra.utils import instantiate

from boilerbench.cache import set_cache_dir
from boilerbench.datasets.align import align_labels
from boilerbench.datasets.page import Page
from boilerbench.errors import ConfigError
from boilerbench.experiments.results import Run, RunFileError
from boilerbench.reports.significance import align

#: Outcome of a block: (kept?, content?) -> class name.
OUTCOMES = {(1, 1): "kc", (1, 0): "kb", (0, 1): "dc", (0, 0): "db"}
OUTCOME_NAMES = {
    "kc": "kept, content",
    "kb": "kept, boilerplate",
    "dc": "dropped, content",
    "db": "dropped, boilerplate",
}


@dataclass
class PageView:
    """One page as the viewer shows it; ``labels[r]`` is run r's predicted labels (None: the
    page has no blocks in that run, e.g. it was too large to segment); ``source_html`` the
    page's decoded HTML as the dataset gives it; ``empty_gold`` whether its gold text is empty
    (every kept block is then noise, and its F1 is 0 or undefined: such pages are flagged)."""

    page_id: str
    url: str
    rows: list[dict]
    texts: list[str]
    gold_text: str
    block_texts: list[str] = field(default_factory=list)
    block_paths: list[str] = field(default_factory=list)
    gold: np.ndarray | None = None
    labels: list[np.ndarray | None] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    source_html: str = ""
    empty_gold: bool = False

    def outcomes(self, run: int) -> list[str]:
        """Each block's outcome class in run ``run`` (empty without blocks)."""
        pred = self.labels[run]
        if pred is None or self.gold is None:
            return []
        return [OUTCOMES[(int(p), int(g))] for p, g in zip(pred, self.gold, strict=True)]

    def errors(self) -> list[str]:
        return [str(row.get("error") or "") for row in self.rows]


def dataset_pages(run: Run) -> dict[str, Page]:
    """Every page of the run's dataset split (training, validation and test), by id."""
    config = dict(run.summary.get("config", {}).get("dataset") or {})
    if "_target_" not in config:
        raise RunFileError(f"{run.path}/summary.json records no dataset config to re-read the pages from")
    config["download"] = False  # the viewer reads what is there; it never fetches
    cache = run.summary.get("config", {}).get("paths", {}).get("cache_dir")
    set_cache_dir(cache)
    try:
        dataset = instantiate(config)
    except Exception as err:  # hydra wraps the loader's own error
        cause = err.__cause__ or err
        raise ConfigError(f"cannot re-create the run's dataset ({config['_target_']}): {cause}") from err
    split = dataset.load()
    return {p.id: p for p in (*split.train, *split.validation, *split.test)}


def run_labels(record: dict, page: Page, row: dict, run: Run, notes: list[str]) -> np.ndarray | None:
    """The predicted labels the run scored: saved in ``predictions.jsonl``, or (older runs)
    the aligner's labels of the extracted text."""
    if str(row.get("n_blocks", "")) == "":
        return None  # the run did not segment this page (too large, or segmentation failed)
    saved = record.get("labels")
    if saved is None:
        notes.append(f"{run.label}: block labels re-derived from the extracted text (the run did not save them)")
        return align_labels(page.blocks, str(record.get("text", "")))
    labels = np.frombuffer(saved.encode("ascii"), dtype=np.uint8) - ord("0")
    if len(labels) != len(page.blocks):
        notes.append(
            f"{run.label}: the run saved {len(labels)} labels but the page has {len(page.blocks)} blocks now "
            "(the dataset or the segmentation changed since the run)"
        )
        return None
    return labels.astype(np.int8)


def _check_counts(view: PageView, runs: list[Run]) -> None:
    """Flag a page whose outcome counts differ from its ``pages.csv`` counts."""
    for r, (run, row) in enumerate(zip(runs, view.rows, strict=True)):
        outcomes = view.outcomes(r)
        if not outcomes or "n_tp_blocks" not in row:
            continue
        tp, pred, gold = (int(float(row[c])) for c in ("n_tp_blocks", "n_pred_blocks", "n_gold_blocks"))
        expected = {"kc": tp, "kb": pred - tp, "dc": gold - tp}
        got = {k: outcomes.count(k) for k in expected}
        if got != expected:
            view.notes.append(f"{run.label}: outcome counts {got} differ from pages.csv {expected}")


def load_pages(runs: list[Run]) -> list[PageView]:
    """Every page of the runs (one, or two on the same pages), in the first run's order."""
    datasets = {(r.summary.get("dataset"), r.summary.get("split")) for r in runs}
    if len(datasets) > 1:
        listed = ", ".join(str(r.path) for r in runs)
        raise RunFileError(f"the runs were made on different datasets (or splits): {listed}")
    frames = align([r.pages for r in runs], [str(r.path) for r in runs])
    predictions = [{str(p["page_id"]): p for p in run.predictions()} for run in runs]
    dataset = dataset_pages(runs[0])
    views = []
    for i, page_id in enumerate(frames[0]["page_id"]):
        rows = [f.iloc[i].to_dict() for f in frames]
        page = dataset.get(page_id)
        records = [p[page_id] for p in predictions]
        texts = [str(r.get("text", "")) for r in records]
        if page is None:
            view = PageView(page_id, "", rows, texts, "", notes=["the page is not in the dataset any more"])
            view.labels = [None] * len(runs)
            views.append(view)
            continue
        view = PageView(page_id, page.url or "", rows, texts, page.gold_text)
        view.source_html, view.empty_gold = page.html, not page.gold_text.strip()
        view.labels = [
            run_labels(record, page, row, run, view.notes) for record, row, run in zip(records, rows, runs, strict=True)
        ]
        if any(label is not None for label in view.labels):
            view.block_texts, view.block_paths = list(page.blocks.texts), list(page.blocks.paths)
            view.gold = np.asarray(page.gold_labels, dtype=np.int8)
        _check_counts(view, runs)
        page.release()
        views.append(view)
    return views
