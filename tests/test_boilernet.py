"""BoilerNet: vocabularies from training pages only, leaf encoding, masking, training, persistence."""

import numpy as np
import pytest
import torch

from boilerbench.datasets.blocks import segment
from boilerbench.datasets.page import Page
from boilerbench.errors import ConfigError
from boilerbench.extractors.boilernet import BoilerNet
from boilerbench.extractors.boilernet.features import Vocabulary

SMALL = dict(dense=16, hidden=16, epochs=60, patience=60, lr=0.01)


def _page(k: int, extra: str = "") -> Page:
    story = f"Story {k} tells a long tale of things that happened today in town"
    html = (
        "<body><div><a>Home</a> <a>News</a> <a>Sport</a></div>"
        f"<p>{story}</p><p>It goes on {extra}for a while longer.</p><div>Copyright Example Ltd</div></body>"
    )
    return Page(str(k), html, f"{story} It goes on {extra}for a while longer.")


def test_vocabulary_counts_and_encoding_by_hand():
    blocks = segment("<body><div><a>Home</a></div><p>story story zebra</p></body>")
    vocab = Vocabulary.build([blocks], top_words=2, top_tags=3)
    # words: story (2), then home and zebra tie (1) -> alphabetical; tags: html, body (2 each), then a, div, p tie
    assert vocab.words == ("story", "home") and vocab.tags == ("body", "html", "a")
    assert vocab.size == 2 + 2 + 3
    idx, counts, offsets = vocab.encode(blocks)
    # feature indices: 0 unknown word, 1 story, 2 home, 3 unknown tag, 4 body, 5 html, 6 a
    leaf0 = dict(zip(idx[offsets[0] : offsets[1]].tolist(), counts[offsets[0] : offsets[1]].tolist(), strict=True))
    leaf1 = dict(zip(idx[offsets[1] : offsets[2]].tolist(), counts[offsets[1] : offsets[2]].tolist(), strict=True))
    assert leaf0 == {2: 1.0, 5: 1.0, 4: 1.0, 3: 1.0, 6: 1.0}  # home; html, body, div (unknown), a
    assert leaf1 == {1: 2.0, 0: 1.0, 5: 1.0, 4: 1.0, 3: 1.0}  # story x2, zebra unknown; html, body, p unknown


def test_vocabulary_comes_from_training_pages_only():
    train = [_page(1), _page(2)]
    validation = [_page(3, extra="zanzibar ")]
    test = Page("t", "<body><section><p>quixotic words</p></section></body>", "")
    model = BoilerNet(**{**SMALL, "epochs": 1}).fit(train, validation)
    assert "zanzibar" not in model.vocabulary_.words and "quixotic" not in model.vocabulary_.words
    assert "section" not in model.vocabulary_.tags
    assert "story" in model.vocabulary_.words and "p" in model.vocabulary_.tags
    assert len(model.extract(test).labels) == 1


def test_padding_does_not_change_a_pages_output():
    torch.manual_seed(0)
    model = BoilerNet(**{**SMALL, "epochs": 2}).fit([_page(1), _page(2), _page(3)])
    short = _page(4)
    long_page = Page("long", "<body>" + "".join(f"<p>para {i} words</p>" for i in range(40)) + "</body>", "")
    alone = model.predict_proba([short])[0]
    batched = model.predict_proba([long_page, short])[1]
    assert len(batched) == len(short.blocks)
    np.testing.assert_allclose(alone, batched, rtol=0, atol=1e-6)


def test_tiny_model_overfits_three_pages():
    pages = [_page(1), _page(2), _page(3)]
    model = BoilerNet(**SMALL).fit(pages, pages)
    for page in pages:
        assert list(model.extract(page).labels) == list(page.gold_labels)


def test_training_is_deterministic_and_round_trips(tmp_path):
    pages = [_page(1), _page(2), _page(3)]
    first = BoilerNet(**{**SMALL, "epochs": 3}).fit(pages)
    second = BoilerNet(**{**SMALL, "epochs": 3}).fit(pages)
    for (name, a), (_, b) in zip(first.net_.state_dict().items(), second.net_.state_dict().items(), strict=True):
        assert torch.equal(a, b), name
    first.save(tmp_path)
    loaded = BoilerNet(**{**SMALL, "epochs": 3}).load(tmp_path)
    np.testing.assert_array_equal(loaded.predict_proba([pages[0]])[0], first.predict_proba([pages[0]])[0])
    assert loaded.epochs_run_ == first.epochs_run_ == 3
    with pytest.raises(ValueError, match="other hyperparameters"):
        BoilerNet(**{**SMALL, "epochs": 4}).load(tmp_path)


def test_empty_page_and_bad_options():
    model = BoilerNet(**{**SMALL, "epochs": 1}).fit([_page(1), _page(2)])
    result = model.extract(Page("e", "", ""))
    assert result.text == "" and len(result.labels) == 0
    with pytest.raises(ConfigError, match="layers"):
        BoilerNet(layers=3)
    with pytest.raises(RuntimeError, match="before fit"):
        BoilerNet().extract(_page(1))


def test_long_pages_are_scored_in_pieces():
    model = BoilerNet(**{**SMALL, "epochs": 2}).fit([_page(1), _page(2)])
    page = Page("long", "<body>" + "".join(f"<p>para {i} words</p>" for i in range(25)) + "</body>", "")
    whole = model.predict_proba([page])[0]
    model.max_leaves = 10
    pieces = model.predict_proba([page])[0]
    assert len(pieces) == 25
    # the first piece sees the same left context up to its end; the pieces are independent
    np.testing.assert_allclose(
        pieces[:10],
        model.predict_proba(
            [Page("a", "<body>" + "".join(f"<p>para {i} words</p>" for i in range(10)) + "</body>", "")]
        )[0],
        atol=1e-6,
    )
    assert len(whole) == 25


def test_pieces_batched_a_few_at_a_time_score_as_all_at_once(monkeypatch):
    """A 50 MB page's 400 pieces in one forward pass took 6.4 GB: they go PIECES_PER_BATCH at a
    time. What would fail: a batch's rows given to the wrong piece or page, a last partial batch
    dropped."""
    from boilerbench.extractors.boilernet import model as boilernet_model

    model = BoilerNet(**{**SMALL, "epochs": 2}).fit([_page(1), _page(2)])
    model.max_leaves = 3
    pages = [
        Page(str(n), "<body>" + "".join(f"<p>para {i} of {n} words</p>" for i in range(n)) + "</body>", "")
        for n in (25, 7, 1, 11)
    ]
    together = model.predict_proba(pages)
    monkeypatch.setattr(boilernet_model, "PIECES_PER_BATCH", 2)
    batched = model.predict_proba(pages)
    assert [len(p) for p in batched] == [25, 7, 1, 11]
    for a, b in zip(together, batched, strict=True):
        np.testing.assert_allclose(a, b, atol=1e-6)
