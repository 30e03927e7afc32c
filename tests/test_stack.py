"""The stacked extractor: it learns from block features and member votes, and a saved model file
gives identical predictions."""

from __future__ import annotations

import copy
import io
import json
import tarfile

import lightgbm
import numpy as np
import pytest
from test_ensembles import Fixed

from boilerbench.datasets.page import Page
from boilerbench.errors import ConfigError
from boilerbench.experiments.model_file import ModelFileError, feature_schema, load_model_file, save_model_file
from boilerbench.extractors import members
from boilerbench.extractors.all_text import AllText
from boilerbench.extractors.stack import Stack, page_types
from boilerbench.extractors.stack import model as stack_model
from boilerbench.extractors.stack.class_names import FAMILY_NAMES, container_shares, gated_share_names
from boilerbench.extractors.stack.compiled_trees import SavedTrees
from boilerbench.extractors.stack.features import context_features, feature_names, page_matrix, vote_features

WORDS = "alpha bravo charlie delta echo foxtrot golf hotel india juliet kilo lima mike november oscar papa".split()


def make_page(i: int) -> Page:
    """A page with a menu, a long article paragraph or two, and a footer; gold = the paragraphs."""
    rng = np.random.default_rng(i)
    paragraphs = [" ".join(rng.choice(WORDS, 25 + 5 * k)) + "." for k in range(1 + i % 2)]
    menu = "".join(f"<li><a href='/{k}'>Link {k}</a></li>" for k in range(3 + i % 3))
    html = (
        f"<html><body><ul>{menu}</ul><div class='story'>"
        + "".join(f"<p>{p}</p>" for p in paragraphs)
        + "</div><div class='foot'><a href='/c'>Contact us</a> | Copyright</div></body></html>"
    )
    return Page(f"p{i}", html, "\n".join(paragraphs))


class FirstParagraph(Fixed):
    """A member that keeps the first paragraph only (the gold text's first line)."""

    def __init__(self) -> None:
        super().__init__("")

    def extract(self, page):
        return Fixed(page.gold_text.split("\n")[0]).extract(page)


def file_config(stack: Stack) -> dict:
    """The model-file config of ``stack`` with ``AllText`` members (a model file rebuilds only this
    project's extractors, so the test members cannot be in one)."""
    members = {name: {"_target_": "boilerbench.extractors.all_text.AllText"} for name in stack.members or ()}
    return {
        "_target_": "boilerbench.extractors.stack.Stack",
        "_convert_": "all",
        **stack.get_params(),
        "members": members,
    }


def small(**kw) -> Stack:
    params = {
        "members": {"first": FirstParagraph()},
        "n_estimators": 40,
        "min_child_samples": 2,
        "num_leaves": 7,
        "n_jobs": 1,
    }
    return Stack(**{**params, **kw})


def test_vote_features_by_hand():
    votes = np.array([[1, -1], [0, -1], [1, -1]], dtype=np.int8)
    words = np.array([1.0, 2.0, 3.0])
    rows = vote_features(votes, words)
    first = rows[:, :7]
    assert first[:, 0].tolist() == [1, 0, 1]  # vote
    assert first[:, 1].tolist() == [0, 1, 0] and first[:, 2].tolist() == [0, 1, 0]  # previous, next
    np.testing.assert_allclose(first[:, 3], [2 / 5, 2 / 5, 2 / 5])  # blocks i-2..i+2, padded with 0
    np.testing.assert_allclose(first[:, 4], 2 / 3)
    np.testing.assert_allclose(first[:, 5], 4 / 6)
    assert first[:, 6].tolist() == [0, 0, 0]
    assert rows[:, 7:14][:, 0].tolist() == [0, 0, 0] and rows[:, 13].tolist() == [1, 1, 1]  # failed member
    np.testing.assert_allclose(rows[:, 14], [0.5, 0, 0.5])  # share of members keeping the block


def test_feature_names_match_the_columns():
    page = make_page(0)
    stack = small(second_stage=False).fit([make_page(i) for i in range(1, 9)])
    rows = page_matrix(page, "all", members.vote_matrix(stack.built_members(), page), stack.vocabulary_)
    assert rows.shape[1] == len(stack.feature_names()) == len(feature_names("all", ["first"], stack.vocabulary_))
    stack.second_stage = True  # the second stage's rows: the same columns and the context
    assert stack.feature_names()[: rows.shape[1]] == feature_names("all", ["first"], stack.vocabulary_)


@pytest.mark.parametrize("features", ["all", "blocks", "votes"])
def test_stack_learns_the_paragraphs(features):
    stack = small(features=features).fit([make_page(i) for i in range(12)], [make_page(i) for i in range(12, 16)])
    for page in (make_page(i) for i in range(20, 24)):
        assert stack.extract(page).labels.tolist() == page.gold_labels.tolist()


def test_context_features_by_hand():
    paths = ["b/ul/li", "b/p", "b/ul/li", "b/ul/li"]
    p = np.array([0.9, 0.5, 0.3, 0.0])
    words = np.array([1.0, 2.0, 1.0, 0.0])
    rows = context_features(paths, words, p)
    assert rows[:, 0].tolist() == p.tolist()
    np.testing.assert_allclose(rows[:, 1], [0.4, 0.5, 0.4, 0.4])  # mean over the same path
    np.testing.assert_allclose(rows[:, 2], [0.9, 0.5, 0.9, 0.9])  # max over the same path
    np.testing.assert_allclose(rows[:, 3], np.log([3, 1, 3, 3]))
    np.testing.assert_allclose(rows[:, 4], [1.7 / 5, 1.7 / 5, 1.7 / 5, 0.8 / 5])  # blocks i-2..i+2, 0 outside
    np.testing.assert_allclose(rows[:, 5], (0.9 + 1.0 + 0.3) / 4)  # word-weighted page mean
    assert context_features([], np.zeros(0), np.zeros(0)).shape == (0, 6)


def test_expected_f1_decoding_by_hand():
    words = np.full(3, 10)
    # expected content 17 words; prefixes by p: 18/27, 30/37 (best), 34/47
    assert stack_model.expected_f1_labels(np.array([0.9, 0.2, 0.6]), words).tolist() == [1, 0, 1]
    # four blocks at 0.45: a 0.5 threshold keeps none; keeping all has expected F1 3.6/5.8, the best prefix
    assert stack_model.expected_f1_labels(np.full(4, 0.45), np.ones(4)).tolist() == [1, 1, 1, 1]
    assert stack_model.expected_f1_labels(np.array([0.9, 0.3]), np.array([10, 10])).tolist() == [1, 0]  # 18/22 > 24/32
    assert stack_model.expected_f1_labels(np.zeros(3), np.ones(3)).tolist() == [0, 0, 0]
    assert stack_model.expected_f1_labels(np.zeros(0), np.zeros(0)).tolist() == []


def test_stack_with_expected_f1_decoding_learns_the_paragraphs():
    stack = small(decoding="expected_f1").fit([make_page(i) for i in range(12)], [make_page(i) for i in range(12, 16)])
    for page in (make_page(i) for i in range(20, 24)):
        assert stack.extract(page).labels.tolist() == page.gold_labels.tolist()


def test_expected_f1_decoding_excludes_smoothing():
    with pytest.raises(ConfigError, match="smoothing"):
        Stack(decoding="expected_f1", smoothing=1.0)
    with pytest.raises(ConfigError, match="decoding"):
        Stack(decoding="argmax")


def test_page_summary_and_word_f1_by_hand():
    summary = page_types.page_summary(np.array([[1.0, 0.0], [3.0, 2.0]]), np.array([1, 3]))
    np.testing.assert_allclose(summary, [2.0, 1.0, 2.5, 1.5, np.log(3), np.log(5)])  # means, word-weighted means
    # kept words 2 + 3, gold words 2 + 5, both 2: P 0.4, R 2/7
    assert page_types.word_f1(np.array([1, 1, 0]), np.array([1, 0, 1]), np.array([2, 3, 5])) == pytest.approx(1 / 3)


def _gate() -> page_types.TypeGate:
    """Summaries of one column: positive is a forum, negative an article."""
    return page_types.TypeGate(
        ["article", "forum"], np.zeros(1), np.ones(1), np.array([[-1.0], [1.0]]), np.zeros(2), {}
    )


def test_a_type_leaves_the_threshold_only_where_expected_f1_wins_beyond_its_interval():
    gate = _gate()
    pages = [("forum", 0.4), ("forum", 0.3), ("forum", 0.5), ("listing", 0.4), ("listing", -0.3)]
    pages += [("article", -0.1), ("article", 0.0), ("product", 0.5)]
    scores = [{"threshold": 0.4, "expected_f1": 0.4 + gain}.get for _, gain in pages]
    gains = page_types.decoding_gains([t for t, _ in pages], scores)
    assert gains["forum"][:2] == [3, pytest.approx(0.4)]
    assert gains["forum"][2] == pytest.approx(1.96 * 0.1 / np.sqrt(3))  # sd 0.1 over 3 pages
    assert gains["listing"][1] == pytest.approx(0.05) and gains["listing"][2] > 0.05  # positive, within noise
    assert gains["product"][2] == float("inf")  # one page: no interval
    classes = ["article", "forum", "listing", "product", "service"]
    assert page_types.choose_decodings(classes, gains) == {
        "article": "threshold",
        "forum": "expected_f1",
        "listing": "threshold",
        "product": "threshold",
        "service": "threshold",  # no page predicted of that type
    }
    gate.decoding = {"forum": "expected_f1"}
    assert gate.decoding_of(np.array([3.0])) == "expected_f1" and gate.decoding_of(np.array([-3.0])) == "threshold"
    again = page_types.TypeGate.from_json(json.loads(json.dumps(gate.to_json())))
    assert again.page_type(np.array([0.5])) == "forum" and again.decoding == gate.decoding


def _typed(i: int) -> Page:
    page = make_page(i)
    page.page_type = "forum" if i % 2 else "article"  # odd pages have two paragraphs
    return page


def test_by_page_type_learns_the_types_and_a_model_file_keeps_the_choice(tmp_path):
    stack = small(decoding="by_page_type").fit([_typed(i) for i in range(16)], [_typed(i) for i in range(16, 24)])
    assert stack.gate_ is not None and stack.gate_.classes == ["article", "forum"]
    assert set(stack.fit_info_["page_type_decoding"]) == {"article", "forum"}
    for page in (_typed(i) for i in range(30, 36)):
        rows = stack._rows(page)
        assert stack.gate_.page_type(page_types.page_summary(rows, page.blocks.word_counts)) == page.page_type
        assert stack.extract(page).labels.tolist() == page.gold_labels.tolist()
    path = tmp_path / "stack.model"
    save_model_file(stack, path, "stack", file_config(stack), "hand-made", {})
    loaded, _ = load_model_file(path)
    assert loaded.gate_.decoding == stack.gate_.decoding
    np.testing.assert_array_equal(loaded.gate_.coef, stack.gate_.coef)


def assert_model_file_keeps_probabilities(stack: Stack, page: Page, tmp_path) -> None:
    """A model file of ``stack`` loads as a stack that gives ``page`` the same probabilities."""
    path = tmp_path / "stack.model"
    save_model_file(stack, path, "stack", file_config(stack), "hand-made", {})
    loaded, _ = load_model_file(path)
    rows = stack._rows(page)
    np.testing.assert_array_equal(loaded.probabilities(rows, page), stack.probabilities(rows, page))


def test_type_features_give_the_second_stage_each_pages_type_probabilities(tmp_path):
    stack = small(type_features=True).fit([_typed(i) for i in range(16)], [_typed(i) for i in range(16, 24)])
    assert stack.gate_ is not None and stack.gate_.classes == ["article", "forum"]
    assert stack.feature_names()[-2:] == ["page_type.article", "page_type.forum"]
    assert stack.fit_info_["page_type_decoding"] is None  # the decoding stays the threshold
    page = _typed(31)
    rows, layout = stack._rows(page), stack._layout(page)
    q = stack.gate_.probabilities(stack._summary(rows, layout))
    context = stack._context([layout], stack._predict(stack.model_, rows), q[None, :])
    assert context.shape == (len(rows), len(stack.feature_names()) - rows.shape[1])
    np.testing.assert_array_equal(context[:, -2:], np.tile(q, (len(rows), 1)))  # the page's, on every block
    assert stack.extract(page).labels.tolist() == page.gold_labels.tolist()
    assert_model_file_keeps_probabilities(stack, page, tmp_path)
    with pytest.raises(ConfigError, match="page types"):
        small(type_features=True).fit([make_page(i) for i in range(12)], [make_page(i) for i in range(12, 16)])


def _named(i: int) -> Page:
    """A typed page whose article sits in a ``post-body`` container and whose menu in a ``site-nav`` one."""
    page = _typed(i)
    html = page.html.replace("<ul>", "<ul class='site-nav'>").replace("class='story'", "class='post-body'")
    return Page(page.id, html, page.gold_text, page_type=page.page_type)


def test_class_names_reach_the_second_stage_through_the_pages_type(tmp_path):
    stack = small(type_features=True, class_names=True).fit(
        [_named(i) for i in range(16)], [_named(i) for i in range(16, 24)]
    )
    assert stack.feature_names()[-12:] == gated_share_names()
    assert stack.feature_names()[-14:-12] == ["page_type.article", "page_type.forum"]
    page = _named(31)
    rows, layout = stack._rows(page), stack._layout(page)
    shares = container_shares(page.blocks)
    np.testing.assert_array_equal(layout.names, shares)
    # the menu's links are in the navigation container, the paragraphs in the body one (by hand)
    family = {name: k for k, name in enumerate(FAMILY_NAMES)}
    nav, body = shares[:, family["navigation"]], shares[:, family["body"]]
    assert np.all((nav > 0) == np.array([t.startswith("Link") for t in page.blocks.texts]))
    assert np.all((body > 0) == page.gold_labels.astype(bool))
    p = stack._predict(stack.model_, rows)
    for q_article, q_forum in ((1.0, 0.0), (0.25, 0.75), (0.0, 0.0)):
        q = np.array([q_article, q_forum])
        context = stack._context([layout], p, q[None, :])
        np.testing.assert_array_equal(context[:, -12:-6], shares * q_article)
        np.testing.assert_array_equal(context[:, -6:], shares * q_forum)
        np.testing.assert_array_equal(context[:, -14:-12], np.tile(q, (len(rows), 1)))
    assert stack.extract(page).labels.tolist() == page.gold_labels.tolist()
    assert_model_file_keeps_probabilities(stack, page, tmp_path)
    with pytest.raises(ConfigError, match="type_features"):
        small(class_names=True)


def test_consent_drops_the_blocks_of_a_consent_dialog_after_decoding():
    stack = small().fit([make_page(i) for i in range(12)], [make_page(i) for i in range(12, 16)])
    page = make_page(40)
    dialog = "<p>" + " ".join(WORDS[:12]) + " cookies.</p>"
    html = page.html.replace("</body>", f"<div id='onetrust-banner-sdk'><div>{dialog}</div></div></body>")
    page = Page("consent", html, page.gold_text)
    inside = np.array([t.endswith("cookies.") for t in page.blocks.texts])
    assert inside.sum() == 1
    kept = stack.extract(page).labels
    assert kept[inside].tolist() == [1]  # prose to the trees, whatever its container
    stack.consent = True
    dropped = stack.extract(page).labels
    assert dropped[inside].tolist() == [0]
    assert dropped[~inside].tolist() == kept[~inside].tolist()


def test_out_of_fold_probabilities_come_from_classifiers_that_did_not_see_the_page():
    summaries = np.concatenate([-2 - np.arange(10) / 100, 2 + np.arange(10) / 100])[:, None]  # two tight clusters
    types = ["article"] * 10 + ["forum"] * 10
    gate = page_types.fit_classifier(summaries, types, 0)
    p = page_types.out_of_fold_probabilities(gate, summaries, types, folds=4, seed=0)
    np.testing.assert_allclose(p.sum(axis=1), 1.0)
    assert [gate.classes[k] for k in p.argmax(axis=1)] == types  # separable: all right
    flipped = ["forum", *types[1:]]  # page 0 labelled against its neighbours: its held-out type disagrees
    gate = page_types.fit_classifier(summaries, flipped, 0)
    p = page_types.out_of_fold_probabilities(gate, summaries, flipped, folds=4, seed=0)
    assert [gate.classes[k] for k in p.argmax(axis=1)] == types
    gate.temperature = 4.0  # a higher temperature, flatter probabilities
    assert page_types.out_of_fold_probabilities(gate, summaries, flipped, folds=4, seed=0).max() < p.max()


def test_out_of_fold_probabilities_fall_back_to_the_gate_where_the_other_folds_hold_one_type():
    summaries = np.array([[-1.0], [-0.9], [1.0]])
    types = ["article", "article", "forum"]  # folds of one page: without page 2 the others are all articles
    gate = page_types.fit_classifier(summaries, types, 0)
    p = page_types.out_of_fold_probabilities(gate, summaries, types, folds=3, seed=0)
    np.testing.assert_allclose(p[2], gate.probabilities(summaries[2]))
    assert p[0][gate.classes.index("forum")] > 0  # page 0's fold classifier saw both types


def test_by_page_type_needs_typed_training_pages():
    with pytest.raises(ConfigError, match="page types"):
        small(decoding="by_page_type").fit([make_page(i) for i in range(12)], [make_page(i) for i in range(12, 16)])


def test_second_stage_learns_from_out_of_fold_probabilities(tmp_path):
    train, validation = [make_page(i) for i in range(12)], [make_page(i) for i in range(12, 16)]
    stack = small(second_stage=True, stage_folds=2).fit(train + train[:4], validation)  # repeated pages: one fold
    assert stack.stage_two_ is not None and stack.fit_info_["n_trees_stage_two"] >= 1
    assert stack.feature_names()[-6:] == [
        f"context.{f}" for f in ("p", "path_mean", "path_max", "log_path_blocks", "window5_mean", "page_mean")
    ]
    for page in (make_page(i) for i in range(20, 24)):
        assert stack.extract(page).labels.tolist() == page.gold_labels.tolist()
    stack.save(tmp_path)  # loading both stages back: test_model_file_round_trip_gives_identical_predictions
    assert sorted(p.name for p in tmp_path.iterdir()) == ["stack.json", "stack.lgb.txt", "stack.stage2.lgb.txt"]
    first_only = small(second_stage=False).fit(train, validation)
    assert first_only.stage_two_ is None and first_only.fit_info_["n_trees_stage_two"] == 0
    with pytest.raises(ConfigError, match="stage_folds >= 2"):
        small(stage_folds=1)


def test_transitions_are_counted_with_add_one():
    counts = np.exp(stack_model.transition_log_probs([np.array([0, 1, 1, 0])]))
    np.testing.assert_allclose(counts, [[1 / 3, 2 / 3], [2 / 4, 2 / 4]])


def test_smoothing_decodes_the_viterbi_path():
    stack = small(smoothing=1.0).fit([make_page(i) for i in range(10)])
    stack.transitions_ = np.log(np.array([[0.9, 0.1], [0.1, 0.9]]))
    p = np.array([0.9, 0.45, 0.9, 0.1, 0.1])
    # staying costs 2 log 0.9 = -0.21, switching twice 2 log 0.1 = -4.6, against log(0.45 / 0.55) = -0.2
    words = np.ones(5)
    assert stack.decode(p, words).tolist() == [1, 1, 1, 0, 0]
    stack.smoothing = 0.0
    assert stack.decode(p, words).tolist() == [1, 0, 1, 0, 0]


@pytest.mark.parametrize("backend", ["lightgbm", "sklearn"])
def test_model_file_round_trip_gives_identical_predictions(tmp_path, backend):
    stack = small(backend=backend, members={"first": AllText()}).fit(
        [make_page(i) for i in range(10)], [make_page(i) for i in range(10, 12)]
    )
    path = tmp_path / "stack.model"
    if backend == "sklearn":  # its trees are pickled: a model file, made to be shared, holds no pickle
        with pytest.raises(ModelFileError, match="as a pickle"):
            save_model_file(stack, path, "stack", {}, "hand-made", {})
        return
    save_model_file(stack, path, "stack", file_config(stack), "hand-made", {"boilerbench": "0.1.0"})
    loaded, manifest = load_model_file(path)
    assert manifest["extractor"] == "stack" and manifest["trained_on"] == "hand-made"
    assert set(manifest["requires"]) == {"lightgbm" if backend == "lightgbm" else "scikit-learn"}
    for page in (make_page(i) for i in range(30, 36)):
        rows = stack._rows(page)
        np.testing.assert_array_equal(loaded.probabilities(rows, page), stack.probabilities(rows, page))
        assert loaded.extract(page).text == stack.extract(page).text


def test_loaded_trees_stay_text_until_lightgbm_is_needed(tmp_path, monkeypatch):
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    page = make_page(0)
    for compiled in (False, True):
        if compiled:
            pytest.importorskip("lleaves")
        stack = small(n_estimators=5, compiled_trees=compiled).fit([make_page(i) for i in range(1, 9)])
        stack.save(tmp_path / str(compiled))
        loaded = small(n_estimators=5, compiled_trees=compiled).load(tmp_path / str(compiled))
        trees = loaded.model_
        assert isinstance(trees, SavedTrees) and trees.model_to_string() == stack.model_.model_to_string()
        # the plain stack reads the Booster made at load; the compiled one never makes one
        assert ("booster" in vars(trees)) is not compiled and ("booster" in vars(loaded.stage_two_)) is not compiled
        rows = stack._rows(page)
        np.testing.assert_allclose(loaded.probabilities(rows, page), stack.probabilities(rows, page), atol=1e-9)
        assert ("booster" in vars(trees)) is not compiled
    assert trees.num_trees() == stack.model_.num_trees() and "booster" in vars(trees)  # made when asked
    copied = copy.deepcopy(SavedTrees("tree text"))
    assert copied.text == "tree text" and "booster" not in vars(copied)


def _rewrite_manifest(path, change):
    with tarfile.open(path, "r:gz") as tar:
        files = {m.name: (m, tar.extractfile(m).read() if m.isfile() else None) for m in tar.getmembers()}
    manifest = json.loads(files["manifest.json"][1])
    change(manifest)
    data = json.dumps(manifest).encode()
    with tarfile.open(path, "w:gz") as tar:
        for name, (member, content) in files.items():
            if name == "manifest.json":
                member.size = len(data)
                content = data
            tar.addfile(member, io.BytesIO(content) if content is not None else None)


def test_incompatible_model_file_is_one_clear_error(tmp_path):
    stack = small(members={"first": AllText()}).fit([make_page(i) for i in range(8)])
    path = tmp_path / "stack.model"
    save_model_file(stack, path, "stack", file_config(stack), "hand-made", {"boilerbench": "0.1.0"})
    _rewrite_manifest(path, lambda m: m["requires"].update(lightgbm="3.0.0"))
    with pytest.raises(ModelFileError, match=r"incompatible versions .*lightgbm 3\.0\.0 then, 4\.\d+\.\d+ now"):
        load_model_file(path)
    _rewrite_manifest(path, lambda m: m["requires"].update(lightgbm=lightgbm.__version__))
    # an edit of the source alone (another code version) changes no prediction: the model loads
    _rewrite_manifest(path, lambda m: m.update(code_version="0" * 16))
    loaded, _ = load_model_file(path)
    page = make_page(9)
    assert loaded.extract(page).text == stack.extract(page).text
    # what changes predictions does refuse it: the features its trees read, or another output on a golden page
    _rewrite_manifest(path, lambda m: m.update(feature_schema="0" * 16))
    with pytest.raises(ModelFileError, match="features of boilerbench.extractors.stack.model have changed"):
        load_model_file(path)
    _rewrite_manifest(path, lambda m: m.update(feature_schema=feature_schema(stack)))
    _rewrite_manifest(path, lambda m: m["golden"].update(ru_article="0" * 64))
    with pytest.raises(ModelFileError, match="other outputs than when it was made on golden pages ru_article"):
        load_model_file(path)
    (tmp_path / "junk.model").write_bytes(b"not a model")
    with pytest.raises(ModelFileError, match="cannot read the model file"):
        load_model_file(tmp_path / "junk.model")


def test_bad_hyperparameters_are_config_errors():
    with pytest.raises(ConfigError, match="extractor.features"):
        Stack(members={"first": FirstParagraph()}, features="everything")
    with pytest.raises(ConfigError, match="threshold"):
        Stack(members={"first": FirstParagraph()}, threshold=1.5)


def test_a_member_code_change_makes_a_new_model_key(monkeypatch):
    """A stack fitted on the votes of one version of a member is not reused after the member's code
    or library changes: the model cache's version of the stack includes its members' versions."""
    from boilerbench.experiments.model_cache import extractor_version

    before = extractor_version(small())
    assert extractor_version(small()) == before

    monkeypatch.setattr(members, "member_version", lambda extractor: "new member code")
    assert extractor_version(small()) != before
    other = {"x": FirstParagraph()}
    assert extractor_version(small(features="blocks")) == extractor_version(small(features="blocks", members=other))


def test_without_crf_features_the_rows_have_no_crf_column():
    stack = small(second_stage=False, crf=False).fit([make_page(i) for i in range(1, 9)])
    assert stack.vocabulary_ == []
    assert not any(name.startswith("crf.") for name in stack.feature_names())
    assert small(second_stage=False).fit([make_page(i) for i in range(1, 9)]).vocabulary_  # the default has them


def test_extraction_reports_its_stages():
    stack = small().fit([make_page(i) for i in range(1, 9)])
    info = stack.extract(make_page(0)).info
    stages = ("segment_ms", "members_ms", "features_ms", "trees_ms", "decode_ms")
    assert list(info) == [*stages, "stack_ms", "doubt"] and all(info[s] >= 0 for s in stages)
    assert info["stack_ms"] == pytest.approx(sum(info[s] for s in stages) - info["members_ms"])
    # the page's doubt from the probabilities the labels were decoded from (threshold 0.5)
    page = make_page(0)
    p = stack.probabilities(stack._rows(page), page)
    words = page.blocks.word_counts.astype(float)
    assert info["doubt"] == pytest.approx((words * np.minimum(p, 1 - p)).sum() / words.sum())
    assert 0 <= info["doubt"] <= 0.5


def test_compiled_trees_predict_as_lightgbm(tmp_path, monkeypatch):
    pytest.importorskip("lleaves")
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    pages = [make_page(i) for i in range(1, 9)]
    plain = small(n_estimators=5).fit(pages)
    compiled = small(n_estimators=5, compiled_trees=True).fit(pages)
    page = make_page(0)
    rows = plain._rows(page)
    np.testing.assert_allclose(compiled.probabilities(rows, page), plain.probabilities(rows, page), atol=1e-9)
    assert len(list((tmp_path / "boilerbench" / "compiled_trees").glob("*.so"))) == 2  # both stages, kept on disk
