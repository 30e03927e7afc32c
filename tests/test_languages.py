"""Language as a column: each page's language in pages.csv and per language in summary.json,
the language-balanced mixture, table_languages, and jusText's stoplist picked by the page's
language (a page in a language jusText has no stoplist for: a missing vote, not boilerplate)."""

from __future__ import annotations

import json
import math
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from conftest import scored_run
from hydra import compose, initialize_config_dir

from boilerbench.configs import CONF_DIR
from boilerbench.datasets.base import Split
from boilerbench.datasets.mixture import mixture
from boilerbench.datasets.page import Page
from boilerbench.experiments import run
from boilerbench.extractors.base import BaseExtractor, Extraction
from boilerbench.extractors.members import FAILED, build_members
from boilerbench.extractors.references.justext import JusText, NoStoplistError
from boilerbench.reports.build import build_all
from boilerbench.reports.languages import (
    MIN_PAGES,
    cv_labelled,
    daniel_site,
    language_columns,
    language_difference,
    site_points,
    table_languages,
    table_languages_cv,
    table_languages_cv_sites,
    training_entries,
)
from boilerbench.reports.significance import cluster_rows

RUSSIAN = (
    "Городской совет во вторник вечером обсудил новый бюджет для школ и публичных библиотек. "
    "Депутаты решили, что в следующем году на образование будет выделено больше денег, чем в этом, "
    "и что все они будут там, где это нужно."
)
CHINESE = "市议会星期二晚上开会，讨论了学校和公共图书馆的新预算，并决定明年增加教育经费。这是一个很长的句子。"
ENGLISH = (
    "The city council met on Tuesday evening to discuss the new budget for schools and public libraries. "
    "It decided that more money would go to education next year than this year, and that it would be so."
)


def _html(paragraph: str) -> str:
    return f"<html><body><div><a href='/'>Home</a> <a href='/news'>News</a></div><p>{paragraph}</p></body></html>"


def test_justext_picks_the_stoplist_of_the_pages_language():
    page = Page(id="ru", html=_html(RUSSIAN), gold_text="")
    auto = JusText()
    assert auto.stoplist_for(page) == "Russian"
    assert auto.extract(page).text == RUSSIAN
    # the English stoplist finds no stopword in Russian: the paragraph is boilerplate
    assert JusText(stoplist="English").extract(page).text == ""


def test_justext_without_a_stoplist_for_the_language_is_an_error_and_a_missing_vote():
    page = Page(id="zh", html=_html(CHINESE * 6), gold_text="")
    with pytest.raises(NoStoplistError, match=r"no stoplist for the page's language \(zh\)"):
        JusText().extract(page)
    # jusText's language-independent mode still answers
    assert CHINESE in JusText(stoplist="none").extract(page).text
    (member,) = build_members({"justext": JusText()})
    assert member.labels(page).tolist() == [FAILED] * len(page.blocks)


def _dataset(tmp_path):
    """A JSONL dataset: two Russian pages (one labelled, one identified), one English page, and a
    Chinese page whose language label is given."""
    rows = [
        {"id": "r1", "html": _html(RUSSIAN), "text": RUSSIAN, "language": "ru"},
        {"id": "r2", "html": _html(RUSSIAN), "text": RUSSIAN},
        {"id": "e1", "html": _html(ENGLISH), "text": ENGLISH},
        {"id": "z1", "html": _html(CHINESE), "text": CHINESE, "language": "zh"},
    ]
    path = tmp_path / "pages.jsonl"
    path.write_text("\n".join(json.dumps(r, ensure_ascii=False) for r in rows), encoding="utf-8")
    return path


def test_runner_records_each_pages_language_and_figures_per_language(tmp_path):
    path = _dataset(tmp_path)
    with initialize_config_dir(config_dir=str(CONF_DIR), version_base="1.3"):
        cfg = compose(
            "config",
            overrides=[
                "extractor=justext",
                "dataset=plaintext",
                f"dataset.root={path}",
                f"paths.root_dir={tmp_path}",
                "progress=false",
                "max_error_rate=1",
                "bootstrap_resamples=50",
            ],
        )
    summary = run(cfg, tmp_path / "out")
    pages = pd.read_csv(tmp_path / "out" / "pages.csv").set_index("page_id")
    assert pages["language"].to_dict() == {"r1": "ru", "r2": "ru", "e1": "en", "z1": "zh"}
    assert pages.loc["z1", "error"].startswith("NoStoplistError")
    by_language = summary["by_language"]
    assert sorted(by_language) == ["en", "ru", "zh"]
    assert (by_language["ru"]["n_pages"], by_language["zh"]["n_errors"]) == (2, 1)
    assert by_language["ru"]["metrics"]["token"]["f1"] == pytest.approx(1.0)
    assert by_language["ru"]["metrics"]["token"]["f1_ci95"] == [pytest.approx(1.0), pytest.approx(1.0)]
    assert by_language["zh"]["metrics"]["token"]["f1"] == 0.0


def _pages(prefix: str, languages: list[str | None]) -> list[Page]:
    return [
        Page(id=f"{prefix}{i}", html="<p>x</p>", gold_text="x", meta={"language": lang} if lang else {})
        for i, lang in enumerate(languages)
    ]


def test_balanced_languages_gives_each_language_of_a_dataset_the_same_share():
    labelled = _pages("d", ["en"] * 6 + ["ru", "el"])
    plain = _pages("p", [None] * 4)
    mixed = mixture({"daniel": Split("s", train=labelled), "plain": Split("s", train=plain)}, "balanced_languages")
    drawn = [p for p in mixed.train if p.id.startswith("d")]
    shares = pd.Series([p.meta["language"] for p in drawn]).value_counts().to_dict()
    assert shares == {"en": 3, "ru": 3, "el": 2}  # 8 pages (the larger dataset's count) over three languages
    assert sorted(pd.Series([p.id for p in mixed.train if p.id.startswith("p")]).value_counts()) == [2, 2, 2, 2]
    assert mixed.name == "mix(daniel,plain)/balanced_languages"


def _summary(extractor: str, dataset: str, languages: dict[str, tuple[int, float]], group: str = "token") -> dict:
    return {
        "extractor": extractor,
        "dataset": dataset,
        "split": "all",
        "n_pages": sum(n for n, _ in languages.values()),
        "n_errors": 0,
        "metrics": {"token": {"f1": 0.5}},
        "timing": {"extract_ms_per_page": 1.0},
        "config": {"report": "table_languages", "extractor": {"_target_": "x"}, "dataset": {"split": "all"}},
        "finished_at": "2026-01-01T00:00:00",
        "by_language": {
            lang: {"n_pages": n, "n_errors": 0, "metrics": {group: {"f1": f1, "f1_ci95": [f1 - 0.02, f1 + 0.04]}}}
            for lang, (n, f1) in languages.items()
        },
    }


def test_table_languages_has_a_column_per_dataset_and_language_with_enough_pages(tmp_path):
    runs = [
        _summary("stack", "daniel", {"en": (50, 0.9), "ru": (30, 0.8), "xx": (MIN_PAGES - 1, 0.1)}),
        _summary("readability", "daniel", {"en": (50, 0.7), "ru": (30, 0.9)}),
        _summary("stack", "magic_html", {"pt": (25, 0.6)}),
        _summary("readability", "trafilatura_eval", {"de": (40, 0.5)}, group="snippets"),
    ]
    for n, summary in enumerate(runs):
        folder = tmp_path / "runs" / str(n)
        folder.mkdir(parents=True)
        (folder / "summary.json").write_text(json.dumps(summary))
    status = build_all([str(tmp_path / "runs")], tmp_path / "out")
    assert status["table_languages"] == "written"
    numbers = pd.read_csv(tmp_path / "out" / "table_languages.csv").set_index("extractor")
    columns = [c for c in numbers.columns if c.count(":") == 1]
    assert columns == ["daniel:en", "daniel:ru", "magic_html:pt", "trafilatura_eval:de"]
    assert numbers.loc["readability", "trafilatura_eval:de"] == 0.5  # its snippet F1: it has no full-text gold
    assert numbers.loc["stack", "daniel:ru"] == 0.8 and math.isnan(numbers.loc["stack", "mean"])
    assert math.isnan(numbers.loc["readability", "magic_html:pt"])
    assert numbers.loc["readability", "daniel:en:lo"] == pytest.approx(0.68)
    text = (tmp_path / "out" / "table_languages.md").read_text()
    assert "| readability | 0.700 ±0.030 | 0.900 ±0.030 | – | 0.500 ±0.030 | – |" in text
    assert "xx" not in text.split("\n\n")[1]  # the 19-page language has no column
    table = table_languages(pd.read_csv(tmp_path / "out" / "runs.csv"))  # intervals read back from runs.csv
    assert table.numbers is not None
    assert table.numbers.set_index("extractor").loc["stack", "daniel:en:hi"] == pytest.approx(0.94)


def test_page_language_of_an_unlabelled_page_comes_from_its_gold_text():
    page = Page(id="p", html=_html(ENGLISH), gold_text=RUSSIAN)
    assert page.language == "ru"
    assert Page(id="q", html=_html(ENGLISH), gold_text="").language == "en"
    assert np.asarray(page.blocks.word_counts).sum() > 0


class _Fixed(BaseExtractor):
    """An extractor that returns a fixed text (what the scorer does with it is under test)."""

    def __init__(self, text: str) -> None:
        self.text = text

    def extract(self, page):
        return Extraction(self.text)


@pytest.mark.parametrize(
    ("gold", "kept", "tokenizer", "recall"),
    [
        # PyThaiNLP's newmm: แมว กิน ปลา ("cat eats fish"); two of three words kept
        ("แมวกินปลา", "แมวกิน", "th", 2 / 3),
        # jieba: 我 爱 北京 天安门; three of four words kept
        ("我爱北京天安门", "我爱北京", "zh", 3 / 4),
    ],
)
def test_thai_and_chinese_pages_are_scored_by_words_not_by_whitespace(gold, kept, tokenizer, recall):
    """Whitespace tokens would make each page one token, and the partial extraction score 0."""
    from boilerbench.experiments.scoring import evaluate_page

    page = Page(id="p", html=f"<html><body><p>{gold}</p></body></html>", gold_text=gold)
    assert page.tokenizer == tokenizer
    row = evaluate_page(_Fixed(kept), page, 1_000_000).row
    assert row["token_precision"] == 1.0 and row["token_recall"] == pytest.approx(recall)
    assert row["token_f1"] == pytest.approx(2 * recall / (1 + recall))


def test_table_chinese_reads_the_chinese_pages_of_each_run(tmp_path):
    runs = [
        _summary("scedd", "daniel", {"zh": (63, 0.7), "en": (77, 0.5)}),
        _summary("cetd", "chinese_wce", {"zh": (69, 0.6)}),
    ]
    runs[0]["by_language"]["zh"]["metrics"]["lcs_error"] = {"mean": 0.25, "wrong_rate": 0.4}
    for n, summary in enumerate(runs):
        folder = tmp_path / "runs" / str(n)
        folder.mkdir(parents=True)
        (folder / "summary.json").write_text(json.dumps(summary))
    build_all([str(tmp_path / "runs")], tmp_path / "out")
    text = (tmp_path / "out" / "table_chinese.md").read_text()
    # columns: chinese_wce (pages, token F1, SCEDD error, wrong), then daniel's, then the published rate
    assert "| scedd | – | – | – | – | 63 | 0.700 ±0.030 | 0.250 | 0.400 | 0.200 |" in text
    assert "| cetd | 69 | 0.600 ±0.030 | – | – | – | – | – | – |  |" in text


def _cv_run(tmp_path, extractor: str, scores: dict[str, list[float]]) -> dict:
    """A runs.csv row of a DANIEL run whose pages.csv gives each language's pages those token F1s."""
    return scored_run(tmp_path / extractor, "language", scores, extractor=extractor, dataset="daniel")


def test_table_languages_cv_gives_the_stacks_paired_differences_per_language(tmp_path):
    n = MIN_PAGES
    ramp = [0.5 + 0.4 * k / n for k in range(n)]  # varied scores, so that intervals are not points
    runs = pd.DataFrame(
        [
            _cv_run(tmp_path, "stack", {"en": [s + 0.1 for s in ramp], "el": ramp}),
            _cv_run(tmp_path, "trafilatura", {"en": ramp, "el": ramp}),
            _cv_run(tmp_path, "readability", {"en": [s + 0.1 for s in ramp], "el": [s + 0.05 for s in ramp]}),
        ]
    )
    table = table_languages_cv(runs)
    shown = table.frame.set_index("extractor")
    assert list(shown.columns) == ["daniel:el", "daniel:en", "mean"]  # same page counts: by language name
    # every page 0.1 above trafilatura in English: the difference and its whole interval are +0.100
    assert shown.loc["stack − trafilatura, pages resampled", "daniel:en"].startswith("+0.100 [+0.100, +0.100], p ")
    assert shown.loc["stack − trafilatura, pages resampled", "daniel:el"].startswith("+0.000 [+0.000, +0.000], p 1")
    assert shown.loc["stack − readability, pages resampled", "daniel:el"].startswith("-0.050 [-0.050, -0.050], p ")
    # these ids ("el3") name no site: each page is its own, and the site rows equal the page rows
    assert (
        shown.loc["stack − readability, sites resampled", "daniel:el"]
        == shown.loc["stack − readability, pages resampled", "daniel:el"]
    )
    assert not any(row.startswith("stack_fast − ") for row in shown.index)  # no stack_fast run: no rows of it
    assert table.numbers is not None
    assert table.numbers.set_index("extractor").loc["readability", "daniel:el"] == pytest.approx(np.mean(ramp) + 0.05)


def test_language_difference_pairs_pages_by_id_within_the_language():
    learned = pd.DataFrame({"page_id": ["a", "b", "c"], "language": ["en", "el", "en"], "token_f1": [0.9, 0.1, 0.7]})
    reference = pd.DataFrame({"page_id": ["c", "b", "a"], "language": ["en", "el", "en"], "token_f1": [0.6, 0.9, 0.8]})
    difference = language_difference(learned, reference, "en")  # a: +0.1, c: +0.1; b (Greek) left out
    assert difference.difference == pytest.approx(0.1)
    assert (difference.lo, difference.hi) == pytest.approx((0.1, 0.1))


def test_daniel_site_is_the_host_in_the_page_id():
    assert daniel_site("20120105_www.iatronet.gr_a7fac937931bd32d79c8a") == "www.iatronet.gr"
    assert daniel_site("20111121_www.we-dwoje.pl_012ae8") == "www.we-dwoje.pl"


def _two_sites(learned: list[float]) -> tuple[pd.DataFrame, pd.DataFrame]:
    """Greek page rows: three pages of site a, one of site b; the reference scores 0.5 on each."""
    ids = ["20120101_a.gr_1", "20120101_a.gr_2", "20120101_a.gr_3", "20120101_b.gr_1"]
    frame = pd.DataFrame({"page_id": ids, "language": "el", "token_f1": learned})
    return frame, frame.assign(token_f1=0.5)


def test_site_resampling_draws_whole_sites():
    # site a: +0.1 on each of its three pages, site b: -0.3 on its one page; mean difference 0.
    # By site, a draw is aa (+0.1), ab or ba (0) or bb (-0.3), each bb a quarter of the draws:
    # the 95 % interval runs from -0.3 to +0.1. By page, four draws of the one b page are 1 in 256
    # and three of them (-0.2) 3 in 64: the interval starts at -0.2.
    learned, reference = _two_sites([0.6, 0.6, 0.6, 0.2])
    by_site = language_difference(learned, reference, "el", daniel_site)
    by_page = language_difference(learned, reference, "el")
    assert by_site.difference == by_page.difference == pytest.approx(0.0)
    assert (by_site.lo, by_site.hi) == pytest.approx((-0.3, 0.1))
    assert by_page.lo == pytest.approx(-0.2)


def test_site_randomization_swaps_whole_sites():
    # +0.1 on every page. Swapping sites, 2 of the 4 patterns reach |0.1| (both kept, both swapped):
    # p = 1/2; swapping pages, 2 of the 16 patterns do: p = 1/8.
    learned, reference = _two_sites([0.6, 0.6, 0.6, 0.6])
    assert language_difference(learned, reference, "el", daniel_site).pvalue == pytest.approx(0.5, abs=0.02)
    assert language_difference(learned, reference, "el").pvalue == pytest.approx(0.125, abs=0.01)


def test_site_points_sum_each_sites_differences_most_lost_first():
    learned, reference = _two_sites([0.6, 0.6, 0.7, 0.2])  # site a: +0.1, +0.1, +0.2; site b: -0.3
    sites = site_points(learned, reference, "el", daniel_site)
    assert sites["site"].tolist() == ["b.gr", "a.gr"]
    assert sites["pages"].tolist() == [1, 3]
    assert sites["points"].tolist() == pytest.approx([-0.3, 0.4])


def test_table_languages_cv_sites_names_the_sites_that_lose_and_gain(tmp_path):
    ids = [f"20120101_{site}_{k}" for site, n in (("a.gr", 20), ("b.gr", 2)) for k in range(n)]

    def run(extractor: str, scores: list[float]) -> dict:
        folder = tmp_path / extractor
        folder.mkdir()
        pd.DataFrame({"page_id": ids, "language": "el", "token_f1": scores}).to_csv(folder / "pages.csv", index=False)
        return {
            "run_dir": str(folder),
            "extractor": extractor,
            "dataset": "daniel",
            "finished_at": "2026-12-03T00:00:00",
            "lang.el.n_pages": len(ids),
            "lang.el.token.f1": float(np.mean(scores)),
        }

    # the stack gains 0.05 on each of a.gr's 20 pages (+1.0) and loses 0.4 on each of b.gr's 2 (-0.8)
    runs = pd.DataFrame(
        [
            run("stack", [0.85] * 20 + [0.3] * 2),
            run("readability", [0.8] * 20 + [0.7] * 2),
            run("trafilatura", [0.2] * 22),
        ]
    )
    frame = table_languages_cv_sites(runs).frame.set_index("comparison")
    row = frame.loc["stack − readability"]
    assert (row["pages"], row["sites"], row["page-points"]) == (22, 2, "+0.2")
    assert row["lost most"] == "b.gr (2) -0.8"
    assert row["gained most"] == "a.gr (20) +1.0"
    assert frame.loc["stack − trafilatura", "lost most"] == ""  # better on every site
    assert "stack_fast − readability" not in frame.index  # no stack_fast run


def test_cluster_rows_sum_the_rows_of_each_cluster_in_sorted_order():
    matrix = np.array([[1.0, 1.0], [2.0, 1.0], [4.0, 1.0]])
    assert cluster_rows(matrix, ["b", "a", "b"]).tolist() == [[2.0, 1.0], [5.0, 2.0]]
    with pytest.raises(ValueError, match="2 cluster labels for 3 page rows"):
        cluster_rows(matrix, ["a", "b"])


def test_language_columns_rank_by_pages_whatever_languages_other_datasets_bring():
    # languages only magic_html's runs have are NaN in daniel's rows, between daniel's own columns
    nan = float("nan")
    runs = pd.DataFrame(
        {
            "dataset": ["daniel", "magic_html"],
            "lang.en.n_pages": [257, 40],
            "lang.bg.n_pages": [nan, 1],
            "lang.ru.n_pages": [134, nan],
            "lang.pt.n_pages": [nan, 30],
            "lang.zh.n_pages": [209, 25],
            "lang.el.n_pages": [161, nan],
            "lang.pl.n_pages": [144, nan],
        }
    )
    assert language_columns(runs) == [
        ("daniel", "en"), ("daniel", "zh"), ("daniel", "el"), ("daniel", "pl"), ("daniel", "ru"),
        ("magic_html", "en"), ("magic_html", "pt"), ("magic_html", "zh"),
    ]  # fmt: skip


def test_a_difference_over_no_page_is_an_error_not_a_figure():
    learned, reference = _two_sites([0.6, 0.6, 0.6, 0.6])
    with pytest.raises(ValueError, match="no page has language 'ru'"):
        language_difference(learned, reference, "ru")


def test_a_stack_trained_on_daniel_alone_is_its_own_row_and_is_paired_with_the_mixtures(tmp_path):
    # what would fail: the DANIEL-only run taken for the stack (the latest run of the extractor)
    n = MIN_PAGES
    ramp = [0.5 + 0.4 * k / n for k in range(n)]
    mixture = _cv_run(tmp_path, "stack", {"el": ramp}) | {"cv.train_on": "cleaneval,daniel:all"}
    folder = tmp_path / "alone"
    alone = scored_run(folder, "language", {"el": [s + 0.05 for s in ramp]}, extractor="stack", dataset="daniel")
    alone |= {"cv.train_on": "daniel:all", "finished_at": "2026-12-04T00:00:00"}
    runs = pd.DataFrame([mixture, alone, _cv_run(tmp_path, "readability", {"el": [s + 0.1 for s in ramp]})])
    assert list(cv_labelled(runs)["extractor"]) == ["stack", "stack, DANIEL only", "readability"]
    shown = table_languages_cv(runs).frame.set_index("extractor")
    assert shown.loc["stack − readability, pages resampled", "daniel:el"].startswith("-0.100 [-0.100, -0.100]")
    assert shown.loc["stack, DANIEL only − stack, pages resampled", "daniel:el"].startswith("+0.050 [+0.050, +0.050]")
    assert "stack_fast, DANIEL only − stack_fast, sites resampled" not in shown.index  # no such run: no row


def test_a_stack_whose_mixture_weighs_daniel_twice_is_its_own_row():
    # what would fail: the weighted run taken for the shipped stack, or one entry of daniel:all counted as two
    runs = pd.DataFrame(
        {
            "extractor": ["stack", "stack", "stack_fast", "readability"],
            "cv.train_on": [
                "cleaneval,daniel:all,magic_html",
                "cleaneval,daniel:all,daniel:all,magic_html",
                "daniel:all,daniel:all",
                "",
            ],
        }
    )
    assert list(cv_labelled(runs)["extractor"]) == ["stack", "stack, DANIEL ×2", "stack_fast, DANIEL ×2", "readability"]
    alone = pd.DataFrame({"extractor": ["stack", "readability"], "cv.train_on": ["daniel:all", "daniel:all"]})
    assert list(cv_labelled(alone)["extractor"]) == ["stack, DANIEL only", "readability"]


def test_refits_with_other_seeds_are_rows_of_their_own_and_their_average_with_seed_0_is_paired_too(tmp_path):
    # what would fail: a refit taken for the extractor (the latest run), the averaged row not
    # averaging each page over every fit (seeds 0 and 1 only: -0.020), or a row per refit's average
    n = MIN_PAGES
    ramp = [0.5 + 0.4 * k / n for k in range(n)]
    first = _cv_run(tmp_path, "arbiter_stack", {"el": [s + 0.02 for s in ramp]})
    refits = []
    for seed, shift in ((1, -0.06), (2, +0.07)):
        refit = scored_run(
            tmp_path / f"seed{seed}",
            "language",
            {"el": [s + shift for s in ramp]},
            extractor="arbiter_stack",
            dataset="daniel",
        )
        refits.append(refit | {"param.seed": seed, "finished_at": f"2026-12-0{6 + seed}T00:00:00"})
    runs = pd.DataFrame([first, *refits, _cv_run(tmp_path, "readability", {"el": ramp})])
    assert list(cv_labelled(runs)["extractor"]) == [
        "arbiter_stack",
        "arbiter_stack, seed 1",
        "arbiter_stack, seed 2",
        "readability",
    ]
    shown = table_languages_cv(runs).frame.set_index("extractor")
    assert shown.loc["arbiter_stack − readability, pages resampled", "daniel:el"].startswith("+0.020 [+0.020, +0.020]")
    refitted = shown.loc["arbiter_stack, seed 1 − readability, pages resampled", "daniel:el"]
    assert refitted.startswith("-0.060 [-0.060, -0.060]")
    assert shown.loc["arbiter_stack, seed 2 − readability, pages resampled", "daniel:el"].startswith("+0.070")
    averaged = shown.loc["arbiter_stack, seeds 0, 1, 2 averaged − readability, sites resampled", "daniel:el"]
    assert averaged.startswith("+0.010 [+0.010, +0.010]")  # (0.02 - 0.06 + 0.07) / 3
    assert not any("seeds 0, 1 averaged" in row or "seeds 0, 2 averaged" in row for row in shown.index)
    assert not any(row.startswith("readability, seed") for row in shown.index)  # references have no seeds


def test_table_languages_gives_a_refit_with_another_seed_a_row_of_its_own(tmp_path):
    # what would fail: the seed-1 refit, the latest run, taken for the extractor's row
    n = MIN_PAGES
    first = _cv_run(tmp_path, "arbiter_stack", {"el": [0.9] * n})
    refit = scored_run(tmp_path / "seed1", "language", {"el": [0.7] * n}, extractor="arbiter_stack", dataset="daniel")
    refit |= {"param.seed": 1, "finished_at": "2026-12-07T00:00:00"}
    runs = pd.DataFrame([first, refit]).assign(report="table_languages")
    shown = table_languages(runs).frame.set_index("extractor")
    assert shown.loc["arbiter_stack", "daniel:el"].startswith("0.900")
    assert shown.loc["arbiter_stack, seed 1", "daniel:el"].startswith("0.700")


def test_runs_trained_with_teaser_rails_are_rows_of_their_own_set_against_the_references(tmp_path):
    # what would fail: the teaser-rail run (the latest) taken for arbiter_stack's row, or it set
    # against arbiter_stack only and not against the references
    n = MIN_PAGES
    ramp = [0.5 + 0.4 * k / n for k in range(n)]
    first = _cv_run(tmp_path, "arbiter_stack", {"el": ramp}) | {"cv.train_on": "cleaneval,daniel:all"}
    rails = scored_run(tmp_path / "rails", "language", {"el": [s + 0.03 for s in ramp]}, extractor="arbiter_stack")
    rails |= {"dataset": "daniel", "cv.train_on": "cleaneval,daniel:all,teaser_rails", "finished_at": "2026-12-08"}
    runs = pd.DataFrame([first, rails, _cv_run(tmp_path, "readability", {"el": [s + 0.01 for s in ramp]})])
    assert list(cv_labelled(runs)["extractor"]) == ["arbiter_stack", "arbiter_stack, teaser rails", "readability"]
    shown = table_languages_cv(runs).frame.set_index("extractor")
    assert shown.loc["arbiter_stack − readability, pages resampled", "daniel:el"].startswith("-0.010 [-0.010, -0.010]")
    rails_row = "arbiter_stack, teaser rails − readability, sites resampled"
    assert shown.loc[rails_row, "daniel:el"].startswith("+0.020 [+0.020, +0.020]")
    own = "arbiter_stack, teaser rails − arbiter_stack, pages resampled"
    assert shown.loc[own, "daniel:el"].startswith("+0.030 [+0.030, +0.030]")


def test_a_run_without_folds_is_labelled_by_its_mixtures_entries():
    # what would fail: table_languages' runs (no cv.train_on) read as trained on the shipped mixture
    assert training_entries("", "mix(cleaneval,daniel,teaser_rails)/balanced_languages") == [
        "cleaneval",
        "daniel",
        "teaser_rails",
    ]
    assert training_entries("daniel:all", "mix(cleaneval)/balanced") == ["daniel:all"]
    assert training_entries("", "wcxb") == []
    runs = pd.DataFrame(
        {
            "extractor": ["arbiter_stack", "arbiter_stack", "stack"],
            "trained_on": [
                "mix(cleaneval,daniel,magic_html)/balanced_languages",
                "mix(cleaneval,daniel,magic_html,teaser_rails)/balanced_languages",
                "mix(daniel)/balanced",
            ],
        }
    )
    assert list(cv_labelled(runs)["extractor"]) == ["arbiter_stack", "arbiter_stack, teaser rails", "stack"]


def test_each_labelled_row_names_the_runs_that_made_it_in_the_csv(tmp_path):
    # what would fail: provenance read from the runs as recorded, where the seed-0 row named the
    # latest run of the extractor (a refit, or a run trained with teaser rails) and the labelled rows none
    from boilerbench.reports.artefacts import ARTEFACTS
    from boilerbench.reports.provenance import with_provenance

    n = MIN_PAGES
    first = _cv_run(tmp_path, "arbiter_stack", {"el": [0.9] * n}) | {"run_key": "k0"}
    refit = scored_run(tmp_path / "seed1", "language", {"el": [0.8] * n}, extractor="arbiter_stack", dataset="daniel")
    refit |= {"param.seed": 1, "run_key": "k1", "finished_at": "2026-12-07T00:00:00"}
    rails = scored_run(tmp_path / "rails", "language", {"el": [0.7] * n}, extractor="arbiter_stack", dataset="daniel")
    rails |= {"cv.train_on": "daniel:all,teaser_rails", "run_key": "k2", "finished_at": "2026-12-08T00:00:00"}
    reference = _cv_run(tmp_path, "readability", {"el": [0.85] * n}) | {"run_key": "k3"}
    runs = pd.DataFrame([first, refit, rails, reference]).assign(split="all", trained_on="")
    for folder, key in zip(runs["run_dir"], runs["run_key"], strict=True):
        (Path(folder) / "summary.json").write_text(json.dumps({"run_key": key}), encoding="utf-8")
    (artefact,) = [a for a in ARTEFACTS if a.name == "table_languages_cv"]
    assert artefact.labels is not None
    rows = with_provenance(artefact.build(runs).rows(), artefact.labels(runs)).set_index("extractor")
    assert rows.loc["arbiter_stack", "run_key"] == "k0"
    assert rows.loc["arbiter_stack, seed 1", "run_key"] == "k1"
    assert rows.loc["arbiter_stack, teaser rails", "run_key"] == "k2"
    assert rows.loc["readability", "run_key"] == "k3"
