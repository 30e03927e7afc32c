"""The tag-path LSTM: fastText n-grams and skip-gram pairs, unseen tags, learning on hand-made pages."""

import os
import subprocess
import sys

import numpy as np
import pytest

from boilerbench.datasets.page import Page
from boilerbench.errors import ConfigError
from boilerbench.extractors.tagpath_lstm import TagPathLSTM
from boilerbench.extractors.tagpath_lstm.fasttext import char_ngrams, ngram_bucket, skipgram_pairs, train_tag_embeddings
from boilerbench.extractors.tagpath_lstm.model import text_features

ARTICLE = "The council said that it will close the old bridge for the whole summer."


def _page(k: int) -> Page:
    """Navigation in nav/ul/li/a, content in article/p."""
    html = (
        f"<body><nav><ul><li><a>Home {k}</a></li><li><a>News</a></li></ul></nav>"
        f"<article><p>{ARTICLE} Page {k}.</p><p>Second paragraph of page {k}.</p></article>"
        f"<div><span>Copyright {k}</span></div></body>"
    )
    return Page(f"p{k}", html, f"{ARTICLE} Page {k}. Second paragraph of page {k}.")


def test_char_ngrams_and_skipgram_pairs():
    assert char_ngrams("p", 2, 4) == ["<p", "p>", "<p>"]
    assert char_ngrams("div", 3, 3) == ["<di", "div", "iv>"]
    # the bucket is stable across processes (Python's salted hash() would not be) and spreads n-grams
    script = "from boilerbench.extractors.tagpath_lstm.fasttext import ngram_bucket; print(ngram_bucket('<di', 7))"
    seen = {
        subprocess.run(
            [sys.executable, "-c", script], capture_output=True, text=True, env={**os.environ, "PYTHONHASHSEED": seed}
        ).stdout.strip()
        for seed in ("1", "2")
    }
    assert seen == {str(ngram_bucket("<di", 7))}
    assert {ngram_bucket(g, 7) for tag in ("div", "span", "table", "section") for g in char_ngrams(tag, 2, 4)} == set(
        range(7)
    )
    # paths 0-1-2 (twice) and 0-1, window 1: (0,1) x3, (1,0) x3, (1,2) x2, (2,1) x2
    centres, contexts, counts = skipgram_pairs([[0, 1, 2], [0, 1, 2], [0, 1]], window=1)
    pairs = {(int(c), int(x)): float(n) for c, x, n in zip(centres, contexts, counts, strict=True)}
    assert pairs == {(0, 1): 3, (1, 0): 3, (1, 2): 2, (2, 1): 2}
    assert len(skipgram_pairs([], 2)[0]) == 0


def test_tag_embeddings_cover_unseen_tags_and_repeat_with_the_seed():
    paths = [["html", "body", "div", "p"], ["html", "body", "ul", "li", "a"]] * 5
    first = train_tag_embeddings(paths, dim=8, epochs=5, seed=3)
    again = train_tag_embeddings(paths, dim=8, epochs=5, seed=3)
    assert first.tags[:2] == ("body", "html")  # the most frequent first, ties alphabetical
    np.testing.assert_array_equal(first.vectors, again.vectors)
    # an unseen tag is the mean of its n-gram rows
    rows = [ngram_bucket(g, 2048) for g in char_ngrams("h5", 2, 4)]
    np.testing.assert_allclose(first.vector("h5"), first.ngram_vectors[rows].mean(axis=0))
    np.testing.assert_array_equal(first.vector("div"), first.vectors[first.tags.index("div")])


def test_text_features():
    features = text_features(_page(1))
    # blocks: Home 1, News, the article's two paragraphs, Copyright 1
    assert features.shape == (5, 2)
    assert features[:, 1].tolist() == [0.0, 0.25, 0.5, 0.75, 1.0]
    assert features[1, 0] == pytest.approx(np.log1p(4))


def test_tagpath_lstm_learns_the_paths_and_round_trips(tmp_path):
    pages = [_page(k) for k in range(6)]
    model = TagPathLSTM(dim=8, hidden=16, embedding_epochs=5, epochs=60, patience=60, lr=0.01, seed=1)
    model.fit(pages[:4], pages[4:])
    for page in pages:
        assert model.extract(page).labels.tolist() == page.gold_labels.tolist() == [0, 0, 1, 1, 0]
    assert model.extract(_page(9)).text == f"{ARTICLE} Page 9.\nSecond paragraph of page 9."
    model.save(tmp_path)
    loaded = TagPathLSTM(dim=8, hidden=16, embedding_epochs=5, epochs=60, patience=60, lr=0.01, seed=1).load(tmp_path)
    np.testing.assert_allclose(loaded.predict_proba([pages[0]])[0], model.predict_proba([pages[0]])[0], rtol=1e-6)
    same = TagPathLSTM(dim=8, hidden=16, embedding_epochs=5, epochs=60, patience=60, lr=0.01, seed=1).fit(
        pages[:4], pages[4:]
    )
    np.testing.assert_array_equal(same.predict_proba([pages[5]])[0], model.predict_proba([pages[5]])[0])
    with pytest.raises(ValueError, match="other hyperparameters"):
        TagPathLSTM(dim=8, hidden=32).load(tmp_path)
    assert model.extract(Page("e", "", "")).labels.tolist() == []


def test_tagpath_lstm_config_errors():
    with pytest.raises(ConfigError):
        TagPathLSTM(hidden=0)
    with pytest.raises(ConfigError):
        TagPathLSTM(min_n=4, max_n=3)
