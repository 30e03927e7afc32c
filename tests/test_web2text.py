"""Web2Text: feature values by hand, the collapsed DOM, Viterbi against brute force, training,
determinism and persistence."""

import itertools

import numpy as np
import pytest
import torch

from boilerbench.datasets.blocks import segment
from boilerbench.datasets.page import Page
from boilerbench.errors import ConfigError
from boilerbench.extractors.web2text import Web2Text
from boilerbench.extractors.web2text.features import (
    BLOCK_FEATURES,
    EDGE_FEATURES,
    STOPWORD_COLUMNS,
    Standardiser,
    compute_features,
    language_rules,
    page_features,
)
from boilerbench.extractors.web2text.model import _windows, viterbi

SMALL = dict(max_steps=400, eval_every=50, patience=100, batch_size=16, dropout=0.0, lr=0.01)

NAV = "<div><a>Home</a> | <a>World</a> | <a>Sport</a></div>"
STORY = (
    "The council said on Monday that the bridge, which was built in 1890, will close for repairs. "
    "Residents were not happy about it."
)


def _page(k: int) -> Page:
    story = f"Story {k}: the people of the town met in the hall, and they talked for a long time about it."
    html = f"<body>{NAV}<p>{story}</p><p>Then it went on, as it does.</p><div>Copyright Example Ltd</div></body>"
    return Page(str(k), html, f"{story} Then it went on, as it does.")


def _column(block: np.ndarray, name: str) -> np.ndarray:
    return block[:, BLOCK_FEATURES.index(name)]


def test_feature_counts_are_the_papers():
    assert len(BLOCK_FEATURES) == 128 and len(EDGE_FEATURES) == 25
    assert len(set(BLOCK_FEATURES)) == 128 and len(set(EDGE_FEATURES)) == 25


def test_navigation_link_and_paragraph_features_by_hand():
    blocks = segment(f"<body>{NAV}<p>{STORY}</p></body>")
    assert blocks.texts == ["Home", "|", "World", "|", "Sport", STORY]
    block, edge = compute_features(blocks)
    assert block.shape == (6, 128) and edge.shape == (5, 25)
    home, story = 0, 5
    # leaf link density: the link text is all link; the paragraph has none
    assert _column(block, "link_density")[[home, story]].tolist() == [1.0, 0.0]
    # stopwords (The, on, that, the, which, was, in, for, were, not, about, it): 12 of 23 words
    assert _column(block, "stopword_ratio")[story] == pytest.approx(12 / 23)
    assert _column(block, "stopword_ratio")[home] == 0.0
    # punctuation: ", , . ." in the story (4 of its characters), none in "Home"
    assert _column(block, "n_punctuation")[[home, story]].tolist() == [0.0, 4.0]
    assert _column(block, "has_punctuation")[[home, story]].tolist() == [-1.0, 1.0]
    assert _column(block, "log_punctuation_ratio")[story] == pytest.approx(np.log(4 / len(STORY)))
    assert _column(block, "has_multiple_sentences")[[home, story]].tolist() == [-1.0, 1.0]
    assert _column(block, "ends_with_punctuation")[[home, story]].tolist() == [-1.0, 1.0]
    assert _column(block, "contains_year")[[home, story]].tolist() == [-1.0, 1.0]
    assert _column(block, "log_n_words")[story] == pytest.approx(np.log(23))
    # the navigation div is the links' CDOM parent: 14 of its 16 characters are links (not the bars)
    assert _column(block, "parent_link_density")[home] == pytest.approx(14 / 16)
    assert _column(block, "parent_tag_div")[home] == 1.0 and _column(block, "leaf_tag_a")[home] == 1.0
    # the paragraph's text node is merged with <p> (its only child); its parent is body
    assert _column(block, "leaf_tag_p")[story] == 1.0 and _column(block, "parent_tag_body")[story] == 1.0
    assert _column(block, "has_duplicate")[[1, 3, story]].tolist() == [1.0, 1.0, -1.0]
    # edges: siblings in the nav are 2 apart; Sport -> div -> body -> story is 3, with a block break
    distance = edge[:, :4]
    assert distance[0].tolist() == [1.0, -1.0, -1.0, -1.0]
    assert distance[4].tolist() == [-1.0, 1.0, -1.0, -1.0]
    assert edge[:, EDGE_FEATURES.index("block_break")].tolist() == [-1.0, -1.0, -1.0, -1.0, 1.0]


def test_empty_and_single_block_pages_have_well_formed_features():
    block, edge = compute_features(segment(""))
    assert block.shape == (0, 128) and edge.shape == (0, 25)
    block, edge = compute_features(segment("<p>Only text.</p>"))
    assert block.shape == (1, 128) and edge.shape == (0, 25) and np.isfinite(block).all()


def test_block_features_without_edges_are_the_same_rows_cached_apart(tmp_path):
    """The stack reads ``page_features(..., edges=False)``: the same block rows, no edge rows,
    stopword columns NaN for a language without a stoplist, and a cache entry of its own. What
    would fail: edges skipped by slicing the wrong columns, the NaN columns shifted, or the
    block-only entry read back as the full one (or the reverse)."""
    from boilerbench.cache import set_cache_dir

    html = f"<body>{NAV}<p>{STORY}</p></body>"
    set_cache_dir(tmp_path)
    try:
        for rules in (language_rules("en"), language_rules("xx")):
            for _ in range(2):  # computed, then read back from the cache
                block, edge = page_features(segment(html), html, rules)
                alone, none = page_features(segment(html), html, rules, edges=False)
                assert block.shape == (6, 128) and edge.shape == (5, 25) and none.shape == (0, 25)
                np.testing.assert_array_equal(alone, block)
        stopword_block_columns = STOPWORD_COLUMNS[STOPWORD_COLUMNS < 128]
        assert len(stopword_block_columns) and np.isnan(alone[:, stopword_block_columns]).all()
        assert not np.isnan(np.delete(alone, stopword_block_columns, axis=1)).any()
    finally:
        set_cache_dir(None)


def test_standardiser_uses_training_rows_only():
    scaler = Standardiser.fit(np.array([[1.0, 5.0], [3.0, 5.0]]))
    assert scaler.transform(np.array([[2.0, 5.0], [5.0, 7.0]])).tolist() == [[0.0, 0.0], [3.0, 2.0]]


def test_viterbi_matches_brute_force_on_four_blocks():
    rng = np.random.default_rng(3)
    unary = np.log(rng.dirichlet([1, 1], size=4))
    pairwise = np.log(rng.dirichlet([1, 1, 1, 1], size=3)).reshape(3, 2, 2)
    for weight in (0.0, 0.1, 1.0, 5.0):

        def score(labels, weight=weight):
            return sum(unary[i, label] for i, label in enumerate(labels)) + weight * sum(
                pairwise[i, labels[i], labels[i + 1]] for i in range(3)
            )

        best = max(itertools.product((0, 1), repeat=4), key=score)
        assert tuple(viterbi(unary, pairwise, weight)) == best
    assert viterbi(np.zeros((0, 2)), np.zeros((0, 2, 2)), 1.0).shape == (0,)


def test_viterbi_pairwise_term_can_overturn_a_weak_unary_vote():
    unary = np.log(np.array([[0.1, 0.9], [0.6, 0.4], [0.1, 0.9]]))
    # neighbours strongly prefer equal labels
    pairwise = np.log(np.tile(np.array([[0.45, 0.05], [0.05, 0.45]]), (2, 1, 1)))
    assert viterbi(unary, pairwise, 0.0).tolist() == [1, 0, 1]
    assert viterbi(unary, pairwise, 1.0).tolist() == [1, 1, 1]


def test_windows_cover_each_sequence_and_pad_short_ones():
    rows = _windows([3, 1], window=2)
    # sequence 0 is rows 0..2, sequence 1 is row 3, padding is row 4
    assert rows.tolist() == [[0, 1], [1, 2], [3, 4]]


def test_tiny_model_overfits_three_pages():
    pages = [_page(1), _page(2), _page(3)]
    model = Web2Text(**SMALL).fit(pages, pages)
    for page in pages:
        assert model.labels(page).tolist() == page.gold_labels.tolist()
    unary_only = Web2Text(**{**SMALL, "lambda_pairwise": 0.0}).fit(pages, pages)
    assert unary_only.pairwise_ is None
    assert unary_only.labels(pages[0]).tolist() == pages[0].gold_labels.tolist()


def test_training_is_deterministic_and_round_trips(tmp_path):
    pages = [_page(1), _page(2), _page(3)]
    first = Web2Text(**{**SMALL, "max_steps": 60}).fit(pages)
    second = Web2Text(**{**SMALL, "max_steps": 60}).fit(pages)
    for net in ("unary_", "pairwise_"):
        for (name, a), (_, b) in zip(
            getattr(first, net).state_dict().items(), getattr(second, net).state_dict().items(), strict=True
        ):
            assert torch.equal(a, b), name
    first.save(tmp_path)
    loaded = Web2Text(**{**SMALL, "max_steps": 60}).load(tmp_path)
    page = _page(4)
    assert loaded.labels(page).tolist() == first.labels(page).tolist()
    with pytest.raises(ValueError, match="other hyperparameters"):
        Web2Text(**{**SMALL, "max_steps": 61}).load(tmp_path)


def test_bad_hyperparameters_are_config_errors():
    with pytest.raises(ConfigError, match="widths"):
        Web2Text(widths=(1, 1, 2, 3, 3))
    with pytest.raises(ConfigError, match="lambda_pairwise"):
        Web2Text(lambda_pairwise=-1)
