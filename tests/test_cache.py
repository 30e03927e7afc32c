"""The on-disk artefact cache: hits, misses, corrupt entries."""

import numpy as np

from boilerbench.cache import cached_array, content_key, set_cache_dir
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
