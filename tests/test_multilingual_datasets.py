"""The four multilingual loaders (DANIEL, magic-html, Chinese WCE, trafilatura's evaluation set)
on hand-made folders, the site-grouped splits and cross-validation folds, and a snippet-only
run (real-data counts are in test_real_datasets.py)."""

from __future__ import annotations

import gzip
import json
import math
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from hydra import compose, initialize_config_dir

from boilerbench.configs import CONF_DIR
from boilerbench.datasets.base import kfold
from boilerbench.datasets.chinese_wce import ChineseWCE
from boilerbench.datasets.daniel import Daniel, reference_text
from boilerbench.datasets.grouping import grouped_split, url_host
from boilerbench.datasets.magic_html import MagicHTML
from boilerbench.datasets.page import Page
from boilerbench.datasets.trafilatura_eval import TrafilaturaEval
from boilerbench.errors import DatasetNotFoundError
from boilerbench.experiments import run
from boilerbench.experiments.results import format_summary
from boilerbench.reports.datasets import table_datasets, table_datasets_token_f1

CHINESE = "中国的报纸说了很多话，朱镕基说"  # 镕: GBK, not GB2312 (a detector guessing GB2312 fails)


def _gz(path: Path, data: str | bytes) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(gzip.compress(data.encode("utf-8") if isinstance(data, str) else data))


def _page(body: str, head: str = "") -> str:
    return f"<html><head>{head}</head><body>{body}</body></html>"


# -- DANIEL -------------------------------------------------------------------------------------


def test_daniel_reference_markers_become_lines():
    text = "<p>One</p><p>Two</p>\n<p>Three\ncontinued</p>\n\n<p堅果 four</p>\n"
    assert reference_text(text) == "One\nTwo\nThree\ncontinued\n堅果 four"


def _daniel(root: Path) -> Path:
    pages = {
        "20120101_a.com_1": ("English", "<p>Alpha text.</p>"),
        "20120101_a.com_2": ("English", "<p>Beta text.</p>"),
        "20120101_b.cn_1": ("Chinese", f"<p>{CHINESE}</p>"),
    }
    for page_id, (_, gold) in pages.items():
        # declaring gbk but stored as UTF-8, as two Chinese DANIEL pages are
        _gz(root / "html" / f"{page_id}.gz", _page(f"{gold}<div>menu</div>", '<meta charset="gbk">'))
        (root / "reference").mkdir(parents=True, exist_ok=True)
        (root / "reference" / page_id).write_text(gold, encoding="utf-8")
    (root / "reference" / "20120101_b.cn_1").unlink()
    (root / "doc_lg.json").write_text(json.dumps({i: lg for i, (lg, _) in pages.items()}))
    sites = {"a.com": ["20120101_a.com_1", "20120101_a.com_2"], "b.cn": ["20120101_b.cn_1"]}
    (root / "sites.json").write_text(json.dumps({"rule": "host", "sites": sites}))
    return root


def test_daniel_pages_language_site_and_a_missing_reference(tmp_path):
    pages = Daniel(root=_daniel(tmp_path / "daniel"), split="all").load().test
    assert [(p.id, p.meta["language"], p.meta["group"]) for p in pages] == [
        ("20120101_a.com_1", "en", "a.com"),
        ("20120101_a.com_2", "en", "a.com"),
        ("20120101_b.cn_1", "zh", "b.cn"),
    ]
    assert pages[0].gold_text == "Alpha text." and "<div>menu</div>" in pages[0].html and not pages[0].load_error
    assert pages[2].load_error.startswith("FileNotFoundError") and pages[2].source == "daniel"


def test_daniel_shipped_split_needs_the_real_ids(tmp_path):
    with pytest.raises(DatasetNotFoundError, match="lacks .* daniel.json"):
        Daniel(root=_daniel(tmp_path / "daniel")).load()


# -- magic-html ---------------------------------------------------------------------------------


def _magic(root: Path) -> Path:
    data = root / "benchmark" / "data"
    articles = {
        "a1": {"url": "https://www.news.com/x", "content": f"{CHINESE}\nSecond line.", "remark": "article"},
        "a2": {"url": "http://list.org/", "content": "", "remark": "列表页"},
        "a3": {"url": "https://news.com/y", "content": "Gone."},
    }
    forums = {"f1": {"url": "https://bbs.example.net/t/1", "content": "Question?\nAnswer.", "remark": "forum"}}
    for kind, table in (("article", articles), ("forum", forums)):
        (data / kind).mkdir(parents=True, exist_ok=True)
        (data / kind / "base.json").write_text(json.dumps(table, ensure_ascii=False), encoding="utf-8")
        for page_id, entry in table.items():
            if page_id != "a3":
                # UTF-8 bytes under a wrong gb2312 declaration, as 6 magic-html articles are
                _gz(data / kind / "htmls" / f"{page_id}.html.gz", _page(entry["content"], '<meta charset="gb2312">'))
    return root


def test_magic_html_kinds_hosts_empty_gold_and_a_missing_page(tmp_path):
    pages = {p.id: p for p in MagicHTML(root=_magic(tmp_path / "magic"), split="all").load().test}
    assert sorted(pages) == ["a1", "a2", "a3", "f1"]
    a1 = pages["a1"]
    assert (a1.page_type, a1.meta, a1.url) == ("article", {"group": "news.com"}, "https://www.news.com/x")
    assert a1.gold_text == f"{CHINESE}\nSecond line." and CHINESE in a1.html and "language" not in a1.meta
    assert pages["a2"].gold_text == "" and not pages["a2"].load_error and pages["a2"].meta["remark"] == "列表页"
    assert "FileNotFoundError" in pages["a3"].load_error
    assert (pages["a3"].page_type, pages["a3"].meta["group"]) == ("article", "news.com")
    assert (pages["f1"].page_type, pages["f1"].meta["group"]) == ("forum", "bbs.example.net")


# -- Chinese WCE --------------------------------------------------------------------------------


def _chinese(root: Path) -> Path:
    gbk = _page(f"<p>{CHINESE}</p>").encode("gbk")  # no charset declared anywhere
    user_area = _page("<p>A\ue000B</p>").encode("gb18030")  # GBK user-defined area: valid only as GB18030
    pages = {
        "gbk": (gbk, CHINESE, "张三", "2005-5-7 21:23"),
        "pua": (user_area, "A\ue000B", "UNKNOWN", "UNKNWON"),
        "bad": (gbk.replace(b"</p>", b"\x81</p>"), CHINESE, "", ""),  # a cut two-byte sequence
        "bom": (b"\xef\xbb\xbf" + _page(f"<p>{CHINESE}</p>").encode("utf-8"), CHINESE, "李四", "2022"),
        "wrap": (
            b'<text id="http://www.sohu.com/a/1" title="t" encoding="gb2312">\n' + gbk + b"\n</text>\n",
            "x",
            "a",
            "b",
        ),
    }
    for page_id, (html, gold, author, date) in pages.items():
        _gz(root / "original" / f"{page_id}.html.gz", html)
        for folder, text in (("cleaned", gold), ("author", author), ("date", date)):
            (root / folder).mkdir(parents=True, exist_ok=True)
            (root / folder / f"{page_id}.txt").write_text(text, encoding="utf-8")
    (root / "cleaned" / "nohtml.txt").write_text("orphan", encoding="utf-8")
    return root


def test_chinese_wce_gbk_without_charset_private_use_damage_bom_and_wrapper(tmp_path):
    pages = {p.id: p for p in ChineseWCE(root=_chinese(tmp_path / "cwce")).load().test}
    assert sorted(pages) == ["bad", "bom", "gbk", "nohtml", "pua", "wrap"]
    assert CHINESE in pages["gbk"].html and pages["gbk"].meta == {
        "language": "zh",
        "author": "张三",
        "date": "2005-5-7 21:23",
    }
    assert "A\ue000B" in pages["pua"].html and pages["pua"].meta == {"language": "zh"}  # UNKNOWN, UNKNWON dropped
    assert CHINESE in pages["bad"].html and "\ufffd" in pages["bad"].html
    assert pages["bom"].html.startswith("<html>") and CHINESE in pages["bom"].html
    wrap = pages["wrap"]
    assert (wrap.url, wrap.meta["group"]) == ("http://www.sohu.com/a/1", "sohu.com")
    assert wrap.html.startswith("\n<html>") and "</text>" not in wrap.html and CHINESE in wrap.html
    assert "url" not in pages["gbk"].meta and pages["gbk"].url is None and "group" not in pages["gbk"].meta
    assert "FileNotFoundError" in pages["nohtml"].load_error and pages["nohtml"].meta == {"language": "zh"}


# -- trafilatura's evaluation set ---------------------------------------------------------------


def _trafilatura(root: Path) -> Path:
    tests = root / "tests"
    entries = {
        "https://www.blog.de/post/": {"file": "blog.de.post.html", "with": ["Ganz  wichtig", " "], "without": ["Menü"]},
        "hard::odd.html": {"file": "odd.html", "with": ["über"], "without": ["Impressum"]},
        "https://web.archive.org/web/2019/http://www.old.at/x": {
            "file": "old.html",
            "with": ["a"],
            "without": ["b"],
            "author": ["Ann", "Bo"],
            "title": "T",
            "date": "",
        },
        "https://gone.ch/": {"file": "gone.html", "with": ["c"], "without": ["d"]},
    }
    (tests).mkdir(parents=True, exist_ok=True)
    (tests / "evaldata.json").write_text(json.dumps(entries), encoding="ascii")
    _gz(tests / "cache" / "blog.de.post.html.gz", _page("<p>Ganz wichtig</p><nav>Menü</nav>", '<meta charset="utf-8">'))
    _gz(tests / "eval" / "blog.de.post.html.gz", _page("<p>the cache/ copy wins</p>"))
    # declared UTF-8, UTF-8 text, one stray Latin-1 byte in an attribute (as 4 pages of the set)
    stray = (
        _page('<p title="caf\xe9">über</p>', '<meta charset="UTF-8">')
        .encode("utf-8")
        .replace(b"caf\xc3\xa9", b"caf\xe9")
    )
    _gz(tests / "eval" / "odd.html.gz", stray)
    _gz(tests / "eval" / "old.html.gz", _page("<p>a</p>"))
    return root


def test_trafilatura_eval_snippets_urls_sites_and_decoding(tmp_path):
    pages = {p.id: p for p in TrafilaturaEval(root=_trafilatura(tmp_path / "te")).load().test}
    assert sorted(pages) == ["blog.de.post", "gone", "odd", "old"]
    blog = pages["blog.de.post"]
    assert blog.snippets.with_ == ("Ganz  wichtig",) and blog.snippets.without == ("Menü",)
    assert (blog.gold_text, blog.meta, blog.url) == (
        "",
        {"gold": "snippets", "group": "blog.de"},
        "https://www.blog.de/post/",
    )
    assert "Ganz wichtig" in blog.html  # tests/cache/ before tests/eval/, as upstream looks
    odd = pages["odd"]
    assert "über" in odd.html and "caf\ufffd" in odd.html and odd.url is None and "group" not in odd.meta
    assert pages["old"].meta == {"gold": "snippets", "group": "old.at", "author": "Ann; Bo", "title": "T"}
    gone = pages["gone"]
    assert "FileNotFoundError" in gone.load_error and gone.snippets.with_ == ("c",) and gone.meta["group"] == "gone.ch"


def test_a_snippet_only_run_reports_the_snippet_figures(tmp_path):
    root = _trafilatura(tmp_path / "te")
    with initialize_config_dir(config_dir=str(CONF_DIR), version_base="1.3"):
        cfg = compose(
            config_name="config",
            overrides=[
                "extractor=all_text",
                f"paths.root_dir={tmp_path}",
                "progress=false",
                "dataset=trafilatura_eval",
                f"dataset.root={root}",
                "dataset.verify=false",
                "max_error_rate=0.5",
            ],
        )
    summary = run(cfg, tmp_path / "out")
    snippets = summary["metrics"]["snippets"]
    # all_text keeps every text: blog 1 with found, Menü found; odd 1 found, Impressum absent; old 1 found, b absent
    assert (snippets["n_pages"], summary["n_errors"]) == (3, 1)
    assert snippets["micro_f1"] == pytest.approx(2 * 3 / (2 * 3 + 1 + 0))
    assert snippets["with_found"] == 1.0 and snippets["without_absent"] == pytest.approx(2 / 3)
    assert "snippets          with found 1.000  without absent 0.667  F1 0.889   micro F1 0.857" in format_summary(
        summary
    )


# -- grouping: sites, splits, folds -------------------------------------------------------------


@pytest.mark.parametrize(
    ("url", "host"),
    [
        ("https://www.Spiegel.de/a b", "spiegel.de"),
        ("http://bbs.zol.com.cn/x", "bbs.zol.com.cn"),
        ("https://web.archive.org/web/20130307194448/the-pain.net/x", "the-pain.net"),
        ("https://web.archive.org/web/2019/https://www.modabot.de/p", "modabot.de"),
        ("xhttps://www.zoo-berlin.de/", None),
        ("hard::file.html", None),
        ("", None),
        (None, None),
    ],
)
def test_url_host(url, host):
    assert url_host(url) == host


def test_grouped_split_keeps_sites_whole_and_cuts_each_stratum():
    group_of = {f"p{i}": f"s{i // 2}" for i in range(40)}  # 20 sites of 2 pages
    stratum_of = {f"p{i}": "zh" if i < 20 else "en" for i in range(40)}
    parts = grouped_split(group_of, stratum_of, (0.6, 0.1, 0.3), seed=0)
    assert parts == grouped_split(group_of, stratum_of, (0.6, 0.1, 0.3), seed=0)
    assert sorted(sum(parts.values(), [])) == sorted(group_of)
    sites = {p: {group_of[i] for i in ids} for p, ids in parts.items()}
    assert not (
        sites["train"] & sites["validation"] or sites["train"] & sites["test"] or sites["validation"] & sites["test"]
    )
    for language in ("zh", "en"):  # 10 sites each: 6 / 1 / 3 of them
        counts = [sum(stratum_of[i] == language for i in parts[p]) for p in ("train", "validation", "test")]
        assert counts == [12, 2, 6]


def _pages(groups: list[str | None]) -> list[Page]:
    return [Page(id=str(i), html="", gold_text="", meta={"group": g} if g else {}) for i, g in enumerate(groups)]


def test_kfold_without_groups_is_the_seeded_permutation_cut():
    pages = _pages([None] * 11)
    order = np.random.default_rng(3).permutation(11)
    folds = kfold(pages, k=3, seed=3)
    for fold, part in zip(folds, np.array_split(order, 3), strict=True):
        assert [p.id for p in fold.test] == [str(j) for j in part]
        assert [p.id for p in fold.train] == [str(j) for j in order if j not in set(part.tolist())]


def test_kfold_cuts_by_group_when_pages_carry_one():
    # sites: a 4 pages, b 3, c 2, d 2, e 1; one page without a site (its own group)
    groups = ["a", "b", "a", "c", "b", "a", "d", "c", "b", "e", "a", "d", None]
    pages = _pages(groups)
    folds = kfold(pages, k=3, seed=0)
    assert sorted(p.id for f in folds for p in f.test) == sorted(p.id for p in pages)
    for fold in folds:
        tested = {p.meta.get("group", p.id) for p in fold.test}
        trained = {p.meta.get("group", p.id) for p in fold.train}
        assert not tested & trained and len(fold.test) + len(fold.train) == len(pages)
    # largest group first to the fold with the fewest pages: a (4) -> 1st, b (3) -> 2nd, c and d (2 each)
    # -> 3rd, 3rd; then e and the site-less page (1 each) -> 2nd, then 1st: sizes 5 / 4 / 4
    of = {g: i for i, f in enumerate(folds) for p in f.test if (g := p.meta.get("group"))}
    assert [len(f.test) for f in folds] == [5, 4, 4] and (of["a"], of["b"], of["c"], of["d"]) == (0, 1, 2, 2)
    assert [[p.id for p in f.test] for f in kfold(pages, k=3, seed=0)] == [[p.id for p in f.test] for f in folds]
    with pytest.raises(ValueError, match="number of groups"):
        kfold(_pages(["a", "a", "b", "b"]), k=3)


def test_kfold_by_group_changes_with_the_seed():
    pages = _pages([f"s{i % 10}" for i in range(30)])  # 10 equal sites: only the seeded order decides
    cuts = {s: tuple(frozenset(p.meta["group"] for p in f.test) for f in kfold(pages, k=5, seed=s)) for s in range(4)}
    assert len(set(cuts.values())) > 1
    assert all(len(fold) == 2 for cut in cuts.values() for fold in cut)


# -- reports: a snippet-only dataset ------------------------------------------------------------


def test_table_datasets_shows_a_snippet_only_dataset_by_its_snippet_f1():
    def run_row(extractor: str, dataset: str, token: float, snippet: float) -> dict:
        figures = {"token.f1": token, "word.f1": token, "block.f1": token, "cleaneval.mean": 100 * token}
        return {
            "extractor": extractor,
            "dataset": dataset,
            "finished_at": "t",
            "protocol": "test",
            "trained_on": "",
        } | {
            **figures,
            "snippets.f1": snippet,
            "ms_per_page": 1.0,
            "n_pages": 2,
            "n_errors": 0,
        }

    runs = pd.DataFrame(
        [
            run_row("x", "trafilatura_eval", 0.0, 0.5),
            run_row("y", "trafilatura_eval", 0.0, 0.9),
            run_row("x", "daniel", 0.8, math.nan),
            run_row("y", "daniel", 0.6, math.nan),
        ]
    )
    table = table_datasets(runs).frame
    assert list(zip(table["dataset"], table["extractor"], strict=True)) == [
        ("daniel", "x"),
        ("daniel", "y"),
        ("trafilatura_eval", "y"),  # ranked by snippet F1: its token F1 (0 on an empty gold) measures nothing
        ("trafilatura_eval", "x"),
    ]
    assert list(table["token F1"]) == ["0.800", "0.600", "–", "–"] and table["snippet F1"][2] == "0.900"
    matrix = table_datasets_token_f1(runs).numbers
    assert list(matrix.columns) == ["extractor", "daniel", "mean"] and list(matrix["mean"]) == [0.8, 0.6]
