"""The Python API: text, markdown and JSON output, models loaded once and reused (across calls,
threads and a fork), the default model's location, and the warnings a user must see."""

from __future__ import annotations

import json
import os
import stat
import subprocess
import sys
import tracemalloc
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest
from registry import PROJECT

import boilerbench
from boilerbench import api
from boilerbench.configs import extractor_config, make_extractor
from boilerbench.errors import BoilerbenchError
from boilerbench.experiments.model_file import save_model_file

ARTICLE = "The river rose by two metres overnight and the old bridge was closed to traffic until Monday."
PAGE = (
    '<html lang="en"><head><title>Flood | Town News</title></head><body>'
    f"<h1>Flood</h1><p>{ARTICLE}</p><ul><li>Bridge closed</li><li>School open</li></ul></body></html>"
)


def test_import_is_cheap_and_exports_the_api():
    code = (
        "import sys, boilerbench; print('lxml' in sys.modules, 'numpy' in sys.modules, callable(boilerbench.extract))"
    )
    result = subprocess.run([sys.executable, "-c", code], cwd=PROJECT, capture_output=True, text=True, check=True)
    assert result.stdout.split() == ["False", "False", "True"]
    assert boilerbench.load_model is api.load_model
    with pytest.raises(AttributeError):
        boilerbench.no_such_name  # noqa: B018


def test_extracting_with_the_shipped_model_imports_no_training_library():
    # torch (the neural extractors' training) and the runner's statistics cost a second of every
    # command-line run's start-up; the stack's extraction needs neither
    code = (
        "import sys, boilerbench; text = boilerbench.extract(sys.argv[1]);"
        "print(bool(text), 'torch' in sys.modules, 'boilerbench.experiments.runner' in sys.modules)"
    )
    result = subprocess.run([sys.executable, "-c", code, PAGE], cwd=PROJECT, capture_output=True, text=True, check=True)
    assert result.stdout.split() == ["True", "False", "False"]


def test_text_markdown_and_json_outputs():
    assert boilerbench.extract(PAGE, extractor="all_text") == f"Flood\n{ARTICLE}\nBridge closed\nSchool open"
    assert boilerbench.extract(PAGE.encode("utf-16"), extractor="all_text", output="markdown") == (
        f"# Flood\n\n{ARTICLE}\n\n- Bridge closed\n- School open"
    )
    record = json.loads(
        boilerbench.extract(PAGE, "https://www.town.example/flood", extractor="all_text", output="json", metadata=True)
    )
    assert record["text"].startswith("Flood\nThe river") and record["markdown"].startswith("# Flood\n\n")
    assert (record["title"], record["language"], record["sitename"]) == ("Flood", "en", "town.example")
    assert record["canonical_url"] == "https://www.town.example/flood" and record["page_type"] is None


def test_metadata_header_in_text_and_none_for_an_empty_page():
    text = boilerbench.extract(PAGE, extractor="all_text", metadata=True)
    assert text.startswith("---\ntitle: Flood\nlanguage: en\n---\nFlood\n")
    assert boilerbench.extract("<html><body></body></html>", extractor="all_text") is None
    assert json.loads(boilerbench.extract("", extractor="all_text", output="json"))["text"] == ""


def test_bad_arguments_are_user_errors():
    with pytest.raises(BoilerbenchError, match="output='pdf' is not valid"):
        boilerbench.extract(PAGE, extractor="all_text", output="pdf")
    with pytest.raises(BoilerbenchError, match="learns from training pages"):
        boilerbench.extract(PAGE, extractor="stack")
    with pytest.raises(BoilerbenchError, match="not both"):
        boilerbench.extract(PAGE, extractor="all_text", model="x.bbmodel")


def test_missing_default_model_is_one_clear_error(tmp_path, monkeypatch):
    monkeypatch.setattr(api, "DEFAULT_MODEL", tmp_path / "default.bbmodel")
    with pytest.raises(boilerbench.ModelNotFoundError, match="has no default model .*pass model=PATH"):
        boilerbench.extract(PAGE)
    with pytest.raises(boilerbench.ModelNotFoundError, match="no such model file"):
        boilerbench.load_model(tmp_path / "other.bbmodel")


def save_bte(path):
    save_model_file(make_extractor("bte"), path, "bte", extractor_config("bte"), "", {"boilerbench": "test"})


@pytest.mark.parametrize("umask, mode", [(0o022, 0o644), (0o077, 0o600)])
def test_a_saved_model_file_has_the_mode_of_a_new_file_under_the_umask(tmp_path, umask, mode):
    """The atomic write's temporary file is 0600; a saved model keeps that only where the umask
    asks for it, so another user or service can read a model saved under the usual 022."""
    before = os.umask(umask)
    try:
        save_bte(tmp_path / "m.bbmodel")
    finally:
        os.umask(before)
    assert stat.S_IMODE((tmp_path / "m.bbmodel").stat().st_mode) == mode


def test_default_model_is_used_and_loaded_once(tmp_path, monkeypatch):
    save_bte(tmp_path / "default.bbmodel")
    monkeypatch.setattr(api, "DEFAULT_MODEL", tmp_path / "default.bbmodel")
    assert boilerbench.extract(f"<p>{ARTICLE}</p>") == ARTICLE
    model = boilerbench.load_model()
    assert boilerbench.load_model(tmp_path / "default.bbmodel") is model and model.name == "bte"
    assert model.extract(f"<p>{ARTICLE}</p>", output="markdown") == ARTICLE


def test_a_shipped_model_is_loaded_by_its_name_unless_a_file_has_that_name(tmp_path, monkeypatch):
    shipped = tmp_path / "package"
    shipped.mkdir()
    save_bte(shipped / "accurate.bbmodel")
    monkeypatch.setattr(api, "DEFAULT_MODEL", shipped / "default.bbmodel")
    monkeypatch.chdir(tmp_path)
    assert api.model_path(None) == shipped / "default.bbmodel"
    assert api.model_path("accurate") == shipped / "accurate.bbmodel"
    assert api.model_path("default") == api.model_path(None)  # the default by its name too
    assert boilerbench.load_model("accurate").name == "bte"
    (tmp_path / "accurate").write_text("not a model")  # a file of that name is what the user meant
    assert api.model_path("accurate") == Path("accurate")
    with pytest.raises(boilerbench.ModelNotFoundError, match="no such model file"):
        boilerbench.load_model("fast")  # not a shipped name: a path, and no such file


def test_a_model_is_reused_across_1000_calls_with_flat_memory():
    model = api.load_extractor("all_text")
    page = f"<html><body><h2>Title</h2><p>{ARTICLE}</p></body></html>"
    for _ in range(100):  # warm up every cache
        model.extract(page, output="markdown")
    tracemalloc.start()
    try:
        before = tracemalloc.get_traced_memory()[0]
        for _ in range(1000):
            assert model.extract(page, output="markdown") == f"## Title\n\n{ARTICLE}"
        grown = tracemalloc.get_traced_memory()[0] - before
    finally:
        tracemalloc.stop()
    assert grown < 100_000  # a page kept per call (its tree, ~10 KB) would be 10 MB
    assert api.load_extractor("all_text") is model


def test_threads_share_one_model():
    pages = [f"<p>Page {n}: {ARTICLE}</p>" for n in range(40)]
    with ThreadPoolExecutor(4) as pool:
        texts = list(pool.map(lambda html: boilerbench.extract(html, extractor="bte"), pages))
    assert texts == [f"Page {n}: {ARTICLE}" for n in range(40)]


@pytest.mark.skipif(not hasattr(os, "fork"), reason="needs fork")
def test_a_forked_child_uses_the_inherited_model():
    model = api.load_extractor("bte")
    read, write = os.pipe()
    pid = os.fork()
    if pid == 0:  # the child: the lock is new, the model is the parent's
        try:
            ok = (
                api.load_extractor("bte") is model
                and boilerbench.extract(f"<p>{ARTICLE}</p>", extractor="bte") == ARTICLE
            )
            os.write(write, b"ok" if ok else b"no")
        finally:
            os._exit(0)
    os.close(write)
    assert os.read(read, 2) == b"ok"
    os.waitpid(pid, 0)


def test_cjk_page_without_a_justext_stoplist_is_an_error_not_an_empty_text():
    """jusText has no Chinese stoplist: the page is refused with the reason, never silently empty."""
    from boilerbench.extractors.references.justext import NoStoplistError

    html = "<html><body><p>这是一个关于城市河流的中文页面，内容很长，介绍了洪水和桥梁关闭的情况。</p></body></html>"
    with pytest.raises(NoStoplistError, match=r"no stoplist for the page's language \(zh\)"):
        boilerbench.extract(html, extractor="justext", output="json")


def test_ensemble_whose_members_all_refuse_a_large_page_raises(monkeypatch):
    """Extracted whole (pieces off), a page over every member's limit raises; in pieces (the
    default above 2,000,000 characters) the members vote on each piece."""
    huge = "<html><body>" + f"<p>{ARTICLE}</p>" * 25_000 + "</body></html>"  # 2.5 M characters
    record = json.loads(boilerbench.extract(huge, extractor="majority_vote", output="json") or "{}")
    assert record["text"].count(ARTICLE) > 24_900  # the members may drop a paragraph at a piece's edge
    assert record["warnings"] == [
        f"{len(huge):,} characters of HTML: extracted in 3 pieces of at most about 1,000,000, "
        "each without the rest of the page"
    ]
    monkeypatch.setattr(api, "PIECE_ABOVE", len(huge))
    with pytest.raises(api.PageTooLargeForMembersError, match="over the size limit of members trafilatura, "):
        boilerbench.extract(huge, extractor="majority_vote")
