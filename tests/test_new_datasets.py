"""The five new loaders on hand-made folders, per-page load errors, the manifest check, snippet
scoring, mixtures and page types (real-data counts are in test_real_datasets.py)."""

from __future__ import annotations

import gzip
import json
import math
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from hydra import compose, initialize_config_dir
from hydra.utils import instantiate

from boilerbench.configs import CONF_DIR
from boilerbench.datasets import download
from boilerbench.datasets.base import Split
from boilerbench.datasets.cleanportaleval import CleanPortalEval
from boilerbench.datasets.download import check_manifest, write_manifest
from boilerbench.datasets.dragnet import Dragnet, hold_out_ids, parse_gold
from boilerbench.datasets.mixture import mixture, resample
from boilerbench.datasets.page import Page
from boilerbench.datasets.readability_tests import ReadabilityTests, html_to_gold
from boilerbench.datasets.scrapinghub import ScrapinghubAEB
from boilerbench.datasets.wcxb import WCXB, make_splits
from boilerbench.errors import ConfigError, DatasetIntegrityError
from boilerbench.evaluation.snippets import snippet_counts, snippet_summary
from boilerbench.experiments import run


def _gz(path: Path, text: str | bytes) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(gzip.compress(text.encode("utf-8") if isinstance(text, str) else text))


def _page(body: str) -> str:
    return f"<html><body>{body}</body></html>"


# -- Dragnet ------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "separator", ["!@#$%^&*()  COMMENTS", "!@#$%^&*() COMMENTS", "!!@#$%^&*()  COMMENTS\t", "  #$%^&*()  COMMENTS"]
)
def test_dragnet_gold_stops_at_the_comments_line(separator):
    text = f"Title  here\r\n\r\n  Body text.\n\n{separator}\n\nNice post!\n"
    assert parse_gold(text) == "Title here\nBody text."
    assert parse_gold(text, comments=True) == "Title here\nBody text.\nNice post!"


def test_dragnet_gold_without_separator_and_comments_word_in_text():
    assert parse_gold("Read the COMMENTS below\nmore") == "Read the COMMENTS below\nmore"


def _dragnet(root: Path) -> Path:
    for i in ("a1", "a2", "a3", "b1", "b2"):
        _gz(root / "HTML" / f"{i}.html.gz", _page(f"<p>Text of {i} here.</p><div>menu</div>"))
        (root / "Corrected").mkdir(parents=True, exist_ok=True)
        (root / "Corrected" / f"{i}.html.corrected.txt").write_text(f"Text of {i} here.\n!@#$%^&*()  COMMENTS\nhi")
    (root / "training.txt").write_text("a1\na2\na3")  # no final newline, as the real lists
    (root / "test.txt").write_text("b1\nb2")
    return root


def test_dragnet_splits_and_lists_without_final_newline(tmp_path):
    root = _dragnet(tmp_path / "dragnet")
    split = Dragnet(root=root, validation_share=0.34, seed=0).load()
    assert sorted(p.id for p in split.train + split.validation) == ["a1", "a2", "a3"]
    assert (len(split.train), len(split.validation), [p.id for p in split.test]) == (2, 1, ["b1", "b2"])
    assert split.test[0].gold_text == "Text of b1 here." and split.test[0].source == "dragnet"
    assert Dragnet(root=root, split="all").load().test[4].id == "b2"
    assert Dragnet(root=root, split="all", comments=True).load().test[4].gold_text == "Text of b2 here.\nhi"
    assert hold_out_ids(["x", "y", "z", "w"], 0.5, 3) == hold_out_ids(["x", "y", "z", "w"], 0.5, 3)


def test_dragnet_missing_gold_and_corrupt_gzip_are_page_errors(tmp_path):
    root = _dragnet(tmp_path / "dragnet")
    (root / "Corrected" / "b1.html.corrected.txt").unlink()
    (root / "HTML" / "b2.html.gz").write_bytes(gzip.compress(b"<p>truncated page</p>" * 50)[:40])
    (root / "HTML" / "a1.html.gz").write_bytes(b"not gzip at all")
    split = Dragnet(root=root).load()
    errors = {p.id: p.load_error for p in split.train + split.validation + split.test if p.load_error}
    assert set(errors) == {"a1", "b1", "b2"}
    assert "FileNotFoundError" in errors["b1"] and "b1.html.corrected.txt" in errors["b1"]
    assert errors["b2"].startswith("EOFError") and errors["a1"].startswith("BadGzipFile")


# -- WCXB ---------------------------------------------------------------------------------------


def _wcxb(root: Path) -> Path:
    files = {}
    for n, (page_type, domain) in enumerate(
        [("article", "a.com"), ("article", "b.com"), ("forum", "c.com"), ("forum", "c.com"), ("product", "d.com")], 1
    ):
        page_id = f"{n:04d}"
        files[page_id] = {"split": "dev", "page_type": page_type, "domain": domain, "spa": False}
        _gz(root / "dev/html" / f"{page_id}.html.gz", _page(f"<nav>Home Login</nav><p>Body of page {n} is here.</p>"))
        truth = {"title": "T", "main_content": f"Body of page {n} is here.", "with": [f"page {n}"]}
        truth["without"] = ["Login"]
        if n == 4:
            del truth["main_content"]
        gold = {"url": f"https://{domain}/{n}", "ground_truth": truth}
        (root / "dev/ground-truth").mkdir(parents=True, exist_ok=True)
        (root / "dev/ground-truth" / f"{page_id}.json").write_text(json.dumps(gold))
    (root / "metadata.json").write_text(json.dumps({"files": files}))
    return root


def test_wcxb_pages_types_snippets_and_missing_main_content(tmp_path):
    pages = WCXB(root=_wcxb(tmp_path / "wcxb"), split="all").load().test
    assert [p.page_type for p in pages] == ["article", "article", "forum", "forum", "product"]
    assert pages[0].snippets.with_ == ("page 1",) and pages[0].snippets.without == ("Login",)
    assert pages[0].gold_text == "Body of page 1 is here." and pages[0].url == "https://a.com/1"
    gold_file = tmp_path / "wcxb/dev/ground-truth/0004.json"
    assert pages[3].load_error == f"PageReadError: {gold_file}: no ground_truth.main_content"
    assert pages[3].page_type == "forum" and not any(p.load_error for p in pages[:3] + pages[4:])


def test_wcxb_split_groups_domains_and_stratifies_types():
    rng = np.random.default_rng(1)
    types = ["article", "forum", "product"]
    files = {f"{i:04d}": {"page_type": types[i % 3], "domain": f"d{rng.integers(300)}.org"} for i in range(1000)}
    parts = make_splits(files, seed=0)
    assert parts == make_splits(files, seed=0) and parts != make_splits(files, seed=1)
    assert sorted(parts["train"] + parts["validation"] + parts["test"]) == sorted(files)
    domains = {p: {files[i]["domain"] for i in ids} for p, ids in parts.items()}
    assert not (domains["train"] & domains["test"] or domains["train"] & domains["validation"])
    assert not domains["validation"] & domains["test"]
    for t in types:
        n = {p: sum(files[i]["page_type"] == t for i in ids) for p, ids in parts.items()}
        total = sum(n.values())
        assert abs(n["train"] / total - 0.7) < 0.05 and abs(n["test"] / total - 0.2) < 0.05


# -- the other three ----------------------------------------------------------------------------


def test_scrapinghub_pages_and_a_missing_html_file(tmp_path):
    root = tmp_path / "aeb"
    _gz(root / "html" / "aa.html.gz", _page("<h1>Head</h1><p>One.</p><p>Two.</p>"))
    table = {"aa": {"articleBody": "One.\n\n  Two.", "url": "https://x.org/a"}, "bb": {"articleBody": "x", "url": ""}}
    table["cc"] = {"url": "https://x.org/c"}
    (root / "ground-truth.json").write_text(json.dumps(table))
    pages = ScrapinghubAEB(root=root).load().test
    assert [(p.id, p.gold_text, p.url) for p in pages][0] == ("aa", "One.\nTwo.", "https://x.org/a")
    assert "FileNotFoundError" in pages[1].load_error and "bb.html.gz" in pages[1].load_error
    assert pages[2].load_error.endswith("ground-truth.json[cc]: no articleBody")


def test_cleanportaleval_header_after_empty_line_and_gold_comment(tmp_path):
    root = tmp_path / "cpe"
    (root / "input").mkdir(parents=True)
    (root / "GoldStandard").mkdir()
    page = b'\n<text id="http://s/1"> \n<html><body><p>Story.</p></body></html>\n</text>\n'
    (root / "input" / "s_1.html").write_bytes(page)
    (root / "GoldStandard" / "s_1.txt").write_text("\nURL: http://s/1\n<h>Story.\n")
    (root / "input" / "s_2.html").write_bytes(b'<text id="http://s/2" title="" encoding="utf-8">\n<p>Front</p></text>')
    (root / "GoldStandard" / "s_2.txt").write_text("\nURL: http://s/2\n\n<!-- this page contains no article -->\n")
    (root / "input" / "s_3.html").write_bytes(b"<p>no gold</p>")
    pages = CleanPortalEval(root=root).load().test
    assert [(p.id, p.gold_text, p.url) for p in pages[:2]] == [
        ("s_1", "Story.", "http://s/1"),
        ("s_2", "", "http://s/2"),
    ]
    assert not pages[0].html.lstrip().startswith("<text") and "FileNotFoundError" in pages[2].load_error


def test_readability_gold_is_the_text_of_its_html(tmp_path):
    expected = '<div id="readability-page-1"><p>First <a href="x">link</a>.</p><img src="a"><p>Two</p></div>'
    assert html_to_gold(expected) == "First link.\nTwo"
    root = tmp_path / "rt"
    _gz(root / "test-pages" / "001" / "source.html.gz", _page("<p>First link.</p><p>Two</p><p>ads</p>"))
    _gz(root / "test-pages" / "001" / "expected.html.gz", expected)
    (root / "test-pages" / "001" / "expected-metadata.json").write_text('{"title": "T", "readerable": true}')
    (root / "test-pages" / "002").mkdir()
    pages = ReadabilityTests(root=root).load().test
    assert pages[0].gold_text == "First link.\nTwo" and pages[0].meta["readability"]["title"] == "T"
    assert "source.html.gz" in pages[1].load_error


# -- manifests ----------------------------------------------------------------------------------


def test_manifest_mismatch_is_one_clear_error_naming_the_file(tmp_path, monkeypatch):
    root = _dragnet(tmp_path / "dragnet")
    manifest = tmp_path / "dragnet.sha256"
    manifest.write_text(write_manifest(root))
    calls = []
    real = download.sha256_file
    monkeypatch.setattr(download, "sha256_file", lambda p: calls.append(p) or real(p))
    check_manifest(root, manifest, "dragnet")
    hashed = len(calls)
    check_manifest(root, manifest, "dragnet")  # unchanged folder: the verdict is reused
    assert hashed == 12 and len(calls) == hashed
    (root / "Corrected" / "a2.html.corrected.txt").write_text("edited")
    with pytest.raises(DatasetIntegrityError, match=r"Corrected/a2\.html\.corrected\.txt differs") as err:
        Dragnet(root=root, source={"manifest": str(manifest)}).load()
    assert "dataset.verify=false" in str(err.value)
    assert len(Dragnet(root=root, source={"manifest": str(manifest)}, verify=False).load().test) == 2
    (root / "test.txt").unlink()
    (root / "test.txt").write_text("b1\nb2")
    (root / "HTML" / "b2.html.gz").unlink()
    with pytest.raises(DatasetIntegrityError, match=r"HTML/b2\.html\.gz is missing"):
        check_manifest(root, manifest, "dragnet")


# -- snippets -----------------------------------------------------------------------------------


def test_snippet_counts_by_hand():
    text = "The  quick brown\nfox jumps. Home"
    c = snippet_counts(text, ["quick brown fox", "lazy dog", "fox jumps."], ["Home", "Login", "the quick"])
    # with: "quick brown fox" found (whitespace normalised), "lazy dog" missing, "fox jumps." found
    # without: "Home" found, "Login" absent, "the quick" absent (case-sensitive)
    assert (c.tp, c.fn, c.fp, c.tn) == (2, 1, 1, 2)
    assert c.with_found == pytest.approx(2 / 3) and c.without_absent == pytest.approx(2 / 3)
    assert c.f1 == pytest.approx(4 / 6)  # 2 tp / (2 tp + fp + fn) = 4 / (4 + 1 + 1)
    none = snippet_counts("", [], ["Home"])
    assert math.isnan(none.with_found) and none.without_absent == 1.0 and math.isnan(none.f1)
    summary = snippet_summary([c, none, snippet_counts("Home", ["x"], ["Home"])])
    # third page: tp 0, fn 1, fp 1, tn 0 -> with 0, without 0, f1 0
    assert summary["with_found"] == pytest.approx((2 / 3 + 0) / 2)
    assert summary["without_absent"] == pytest.approx((2 / 3 + 1 + 0) / 3)
    assert summary["f1"] == pytest.approx((4 / 6 + 0) / 2)
    assert summary["micro_f1"] == pytest.approx(4 / (4 + 2 + 2))  # pooled tp 2, fp 2, fn 2
    assert summary["n_pages"] == 3


# -- mixtures -----------------------------------------------------------------------------------


def _pages(source: str, n: int) -> list[Page]:
    return [Page(f"{source}{i}", _page("<p>x</p>"), "x", source=source) for i in range(n)]


def test_mixture_weights():
    big = Split("s", train=_pages("big", 10), validation=_pages("bigv", 2), test=_pages("bigt", 3))
    small = Split("s", train=_pages("small", 3), validation=_pages("smallv", 1))
    nosplit = Split("all", test=_pages("all", 4))
    nosplit.test[1].load_error = "broken"
    prop = mixture({"big": big, "small": small, "nosplit": nosplit}, "proportional")
    assert [p.source for p in prop.train].count("big") == 10 and [p.source for p in prop.train].count("small") == 3
    assert [p.source for p in prop.train].count("all") == 3  # every page of a test-only split, but the broken one
    assert prop.name == "mix(big,small,nosplit)/proportional" and not prop.test
    bal = mixture({"big": big, "small": small, "nosplit": nosplit}, "balanced", seed=0)
    counts = pd.Series([p.source for p in bal.train]).value_counts().to_dict()
    assert counts == {"big": 10, "small": 10, "all": 10}
    per_page = pd.Series([p.id for p in bal.train if p.source == "small"]).value_counts()
    assert sorted(per_page.tolist()) == [3, 3, 4]  # 10 = 3 whole copies + 1 drawn without replacement
    assert [p.source for p in bal.validation].count("smallv") == 2
    same = mixture({"big": big, "small": small, "nosplit": nosplit}, "balanced", seed=0)
    assert [p.id for p in bal.train] == [p.id for p in same.train]  # seeded: the same pages every time
    with pytest.raises(ConfigError, match="balanced, proportional, balanced_types"):
        mixture({"big": big}, "equal")
    drawn = [p.id for p in resample(_pages("r", 4), 6, np.random.default_rng(0))]
    assert len(drawn) == 6 and set(drawn) == {"r0", "r1", "r2", "r3"} and drawn == sorted(drawn)
    assert resample(_pages("r", 4), 0, np.random.default_rng(0)) == []


def test_a_source_with_two_shares_weighs_as_two_sources():
    big = Split("s", train=_pages("big", 10))
    small = Split("s", train=_pages("small", 3), validation=_pages("smallv", 1))
    two = mixture({"big": big, "small": small}, "balanced", seed=0, shares={"small": 2})
    counts = pd.Series([p.source for p in two.train]).value_counts().to_dict()
    assert counts == {"big": 10, "small": 20}  # twice the largest dataset's 10
    assert sorted(pd.Series([p.id for p in two.train if p.source == "small"]).value_counts()) == [6, 7, 7]
    assert two.name == "mix(big,small*2)/balanced" and [p.id for p in two.validation] == ["smallv0"] * 2
    prop = mixture({"big": big, "small": small}, "proportional", shares={"small": 2})
    assert [p.source for p in prop.train].count("small") == 6 and [p.source for p in prop.train].count("big") == 10
    one = mixture({"big": big, "small": small}, "balanced", seed=0, shares={"small": 1})
    assert [p.id for p in one.train] == [p.id for p in mixture({"big": big, "small": small}, "balanced").train]
    with pytest.raises(ValueError, match="whole numbers from 1"):
        mixture({"big": big}, "balanced", shares={"big": 0})


def test_balanced_types_gives_each_page_type_of_a_dataset_the_same_share():
    typed = _pages("w", 8)
    for page, kind in zip(typed, ["article"] * 6 + ["forum", "listing"], strict=True):
        page.page_type = kind
    untyped = Split("s", train=_pages("plain", 5))
    mixed = mixture({"typed": Split("t", train=typed), "plain": untyped}, "balanced_types", seed=0)
    kinds = pd.Series([p.page_type for p in mixed.train if p.id.startswith("w")]).value_counts().to_dict()
    # 8 pages for each dataset (the larger one's count): 3 + 3 + 2 over the three types, in page order
    assert kinds == {"article": 3, "forum": 3, "listing": 2}
    drawn = [p.id for p in mixed.train if p.id.startswith("w")]
    assert drawn[3:] == ["w6", "w6", "w6", "w7", "w7"] and drawn == sorted(drawn)  # the few repeated, in order
    assert len(set(drawn[:3])) == 3 and set(drawn[:3]) < {f"w{i}" for i in range(6)}  # 3 of the 6 articles once
    assert sorted(pd.Series([p.id for p in mixed.train if p.id.startswith("plain")]).value_counts()) == [1, 1, 2, 2, 2]
    assert mixed.name == "mix(typed,plain)/balanced_types"


# -- the runner: page errors, page types, snippets, mixtures --------------------------------------


def _run(tmp_path, *overrides, extractor="oracle"):
    with initialize_config_dir(config_dir=str(CONF_DIR), version_base="1.3"):
        cfg = compose(
            "config",
            overrides=[f"extractor={extractor}", f"paths.root_dir={tmp_path}", "progress=false", *overrides],
        )
    return run(cfg, tmp_path / "out")


def test_runner_records_load_errors_page_types_and_snippets(tmp_path):
    root = _wcxb(tmp_path / "wcxb")
    overrides = ("dataset=wcxb", f"dataset.root={root}", "dataset.verify=false", "dataset.split=all")
    summary = _run(tmp_path, *overrides, "max_error_rate=0.5")
    assert (summary["n_pages"], summary["n_errors"], summary["counts"]["not_loaded"]) == (5, 1, 1)
    assert summary["errors"]["0004"].startswith("load: PageReadError")
    pages = pd.read_csv(tmp_path / "out" / "pages.csv", dtype={"page_id": str})
    broken = pages.set_index("page_id").loc["0004"]
    assert broken["page_type"] == "forum" and math.isnan(broken["token_f1"])
    assert pages["page_type"].tolist() == ["article", "article", "forum", "forum", "product"]
    # the oracle keeps each page's body paragraph: every "with" snippet found, "Login" (nav) absent
    assert summary["metrics"]["token"]["f1"] == 1.0
    assert summary["metrics"]["snippets"] == {
        "with_found": 1.0,
        "with_found_ci95": [1.0, 1.0],
        "without_absent": 1.0,
        "without_absent_ci95": [1.0, 1.0],
        "f1": 1.0,
        "f1_ci95": [1.0, 1.0],
        "micro_f1": 1.0,
        "n_pages": 4,
    }
    assert summary["by_page_type"]["article"]["metrics"]["token"]["f1_ci95"] == [1.0, 1.0]
    by_type = summary["by_page_type"]
    assert sorted(by_type) == ["article", "forum", "product"]
    assert (by_type["forum"]["n_pages"], by_type["forum"]["n_errors"]) == (2, 1)
    assert by_type["article"]["metrics"]["block"]["f1"] == 1.0


def test_runner_trains_on_a_mixture_and_skips_broken_training_pages(tmp_path, monkeypatch):
    data = tmp_path / "data"
    dragnet = _dragnet(data / "dragnet")
    (dragnet / "Corrected" / "a1.html.corrected.txt").unlink()
    _wcxb(data / "wcxb")
    monkeypatch.setenv("BOILERBENCH_DATA", str(data))
    # the hand-made folders are not the data of the shipped manifests
    monkeypatch.setattr("boilerbench.datasets.base.check_manifest", lambda *args: None)
    # wcxb:all: every page of the hand-made WCXB (its ids are not those of the shipped split)
    overrides = ("dataset=dragnet", "train_on=[dragnet,wcxb:all]", "max_error_rate=1")
    with pytest.raises(ConfigError, match="trains on 2 of the test pages of dataset dragnet"):
        _run(tmp_path, *overrides, "dataset.split=all", extractor="crf")
    summary = _run(tmp_path, *overrides, extractor="crf")
    assert summary["trained_on"] == "mix(dragnet,wcxb:all)/balanced" and summary["n_pages"] == 2
    sources = summary["mixture"]["sources"]
    assert sources["dragnet"]["pages"] == 2  # a1 has no gold: left out of training
    assert sources["wcxb:all"]["pages"] == 4  # 0004 has no main_content: left out
    # balanced: dragnet's 2 training pages (10 % of 3 rounds to no validation page) are repeated
    # up to wcxb's 4
    assert sources["dragnet"]["train"] == sources["wcxb:all"]["train"] == 4
    assert summary["metrics"]["block"]["f1"] > 0
    proportional = _run(tmp_path, *overrides, "train_weights=proportional", extractor="crf")
    assert proportional["mixture"]["sources"]["dragnet"]["train"] == 2
    models = sorted(p.name for p in (tmp_path / "models" / "crf").iterdir())
    assert len(models) == 2  # the weights are part of the fitted model's key
    again = _run(tmp_path, *overrides, "dataset=wcxb", "dataset.split=all", "train_on=[dragnet]", extractor="crf")
    assert again["n_pages"] == 5 and again["trained_on"] == "mix(dragnet)/balanced"


def test_cross_validation_within_a_mixture_trains_each_fold_on_the_other_folds_and_the_other_datasets(
    tmp_path, monkeypatch
):
    data = tmp_path / "data"
    _dragnet(data / "dragnet")
    _wcxb(data / "wcxb")
    monkeypatch.setenv("BOILERBENCH_DATA", str(data))
    monkeypatch.setattr("boilerbench.datasets.base.check_manifest", lambda *args: None)
    overrides = (
        "dataset=wcxb",
        "dataset.split=all",
        "train_on=[dragnet,wcxb:all]",
        "cv.folds=2",
        "cv.pool=all",
        "train_weights=proportional",
        "+extractor.min_count=1",
        "extractor._target_=memorising.Memorising",
        "max_error_rate=1",
    )
    summary = _run(tmp_path, *overrides, extractor="bte")
    assert summary["cv"]["folds"] == 2 and summary["n_pages"] == 5 and "trained_on" not in summary
    assert summary["mixture"]["sources"] == ["dragnet", "wcxb:all"]
    folds = summary["cv"]["per_fold"]
    assert [f["n_test"] for f in folds] in ([3, 2], [2, 3])
    # a page's own body paragraph is unique to it: a model that had seen the tested page would
    # keep it; none does, so every tested page's recall comes from its menu alone (0: "Login")
    pages = pd.read_csv(tmp_path / "out" / "pages.csv", dtype={"page_id": str})
    assert (pages["token_recall"].dropna() < 1).all()
    assert len(list((tmp_path / "models" / "memorising").iterdir())) == 2  # one model per fold


def test_a_split_without_training_pages_trains_learned_extractors_on_the_fallback_mixture(tmp_path, monkeypatch):
    data = tmp_path / "data"
    _dragnet(data / "dragnet")
    _wcxb(data / "wcxb")
    monkeypatch.setenv("BOILERBENCH_DATA", str(data))
    monkeypatch.setattr("boilerbench.datasets.base.check_manifest", lambda *args: None)
    # wcxb split all: every page a test page, no training page of its own
    overrides = ("dataset=wcxb", "dataset.split=all", "fallback_train_on=[dragnet]", "max_error_rate=1", "rerun=true")
    learned = _run(tmp_path, *overrides, "cv.auto=true", "cv.folds=2", extractor="crf")
    assert learned["trained_on"] == "mix(dragnet)/balanced" and "cv" not in learned
    assert learned["mixture"]["sources"]["dragnet"]["pages"] == 3 and learned["n_pages"] == 5
    # an extractor that learns nothing is not trained on anything
    heuristic = _run(tmp_path, *overrides, extractor="bte")
    assert "trained_on" not in heuristic and heuristic["n_pages"] == 5
    # explicit cross-validation (without cv.auto) wins over the fallback
    folded = _run(tmp_path, *overrides, "cv.folds=2", extractor="crf")
    assert folded["cv"]["folds"] == 2 and "trained_on" not in folded
    # a split with training pages of its own uses them
    own = _run(tmp_path, "dataset=dragnet", "fallback_train_on=[wcxb:all]", "rerun=true", extractor="crf")
    assert "trained_on" not in own and own["counts"]["train"] + own["counts"]["validation"] == 3


# -- configs ------------------------------------------------------------------------------------


@pytest.mark.parametrize("name", ["cleanportaleval", "dragnet", "scrapinghub", "readability_tests", "wcxb"])
def test_dataset_configs_compose_and_name_a_shipped_manifest(name):
    with initialize_config_dir(config_dir=str(CONF_DIR), version_base="1.3"):
        cfg = compose("config", overrides=[f"dataset={name}", "paths.root_dir=/tmp"])
    dataset = instantiate(cfg.dataset)
    assert dataset.verify and dataset.split == dataset.splits[0]
    assert (download.MANIFEST_DIR / cfg.dataset.source.manifest).is_file()


@pytest.mark.parametrize("source", ["cleaneval", "l3s_gn1", "dragnet", "wcxb", "mixture"])
def test_generalization_sources_compose(source):
    with initialize_config_dir(config_dir=str(CONF_DIR), version_base="1.3"):
        cfg = compose("config", overrides=["experiment=table_generalization", f"+train_source={source}"])
    assert cfg.report == "table_generalization" and cfg.cv.auto
    if source == "mixture":
        assert list(cfg.train_on) == ["cleaneval", "dragnet", "wcxb"] and cfg.get("train_dataset") is None
    else:
        assert cfg.train_dataset._target_.rsplit(".", 1)[0].endswith(source.split("_")[0]) and cfg.train_on is None
