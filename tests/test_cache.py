"""The on-disk artefact cache: hits, misses, corrupt entries."""

import numpy as np

from boilerbench.cache import cached_array, cached_text, content_key, set_cache_dir
from boilerbench.datasets.page import Page


def test_cache_hits_misses_and_corruption(tmp_path):
    set_cache_dir(tmp_path)
    calls = []

    def compute():
        calls.append(1)
        return np.array([1, 0, 1], dtype=np.int8)

    first = cached_array("step", "v1", ("html", "gold"), compute)
    again = cached_array("step", "v1", ("html", "gold"), compute)
    assert len(calls) == 1 and again.tolist() == first.tolist() == [1, 0, 1]
    cached_array("step", "v2", ("html", "gold"), compute)  # a new code version misses
    cached_array("step", "v1", ("html", "other"), compute)  # other inputs miss
    assert len(calls) == 3
    key = content_key("html", "gold")
    entry = tmp_path / "step" / "v1" / key[:2] / f"{key}.npy"
    entry.write_bytes(b"not an array")
    assert cached_array("step", "v1", ("html", "gold"), compute).tolist() == [1, 0, 1]
    assert len(calls) == 4


def test_gold_labels_are_shared_through_the_cache(tmp_path):
    set_cache_dir(tmp_path)
    html, gold = "<p>menu</p><p>the article text</p>", "the article text"
    assert Page("a", html, gold).gold_labels.tolist() == [0, 1]
    assert len(list((tmp_path / "gold_labels").rglob("*.npy"))) == 1
    assert Page("b", html, gold).gold_labels.tolist() == [0, 1]
    assert len(list((tmp_path / "gold_labels").rglob("*.npy"))) == 1


def test_cache_info_and_clear(tmp_path, capsys):
    from boilerbench.cache import cache_report
    from boilerbench.commands.cache import main

    set_cache_dir(tmp_path)
    try:
        cached_array("feats", "v1", ("page a",), lambda: np.zeros(10))
        cached_array("feats", "v1", ("page b",), lambda: np.zeros(10))
        cached_text("enc", "v2", ("page a",), lambda: "utf-8")
    finally:
        set_cache_dir(None)
    report = {(step, version): files for step, version, files, _ in cache_report(tmp_path)}
    assert report == {("enc", "v2"): 1, ("feats", "v1"): 2}
    assert main(["info", "--dir", str(tmp_path)]) == 0
    assert "feats" in capsys.readouterr().out
    assert main(["clear", "feats", "--dir", str(tmp_path)]) == 0
    assert [r[0] for r in cache_report(tmp_path)] == ["enc"]
    assert "removed 2 files" in capsys.readouterr().out
