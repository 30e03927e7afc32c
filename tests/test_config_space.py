"""The configuration space is total: every extractor config in conf/extractor, composed with
small fixture datasets (a plaintext folder with no training split, a hand-made Dragnet with
train / validation / test, the same Dragnet's split ``all``, a hand-made WCXB) and each protocol
(``conf/protocol``: in_domain, cv, cross_dataset, mixture, fallback) and each protocol switch of
earlier versions (``cv.folds``, ``cv.auto``, ``train_on``, ``dataset@train_dataset``,
``fallback_train_on``, ``evaluate_on``), ends in results or in one user-facing error line, no
learned extractor is ever fitted on zero pages, and a protocol named by the group gives the same
outcome and records the same protocol as the old switches that name it.

Most combinations run in this process (:func:`boilerbench.experiments.run`; the error is a
:class:`BoilerbenchError` whose message is one line); a few run ``python run.py`` in a subprocess
to check what the user sees: exit status 2 and one line on standard error, no traceback, no signal.
What would fail: the runner fitting CRF, Web2Text or BoilerNet on a split with no training pages
(the segfault / ValueError of issue 35), a switch combination that reaches a traceback, an error
message spread over several lines.
"""

from __future__ import annotations

import json
import subprocess
import sys

import pytest
from conftest import PROJECT, write_pairs
from hydra import compose, initialize_config_dir
from registry import EXTRACTOR_NAMES, QUICK_FIT
from test_new_datasets import _dragnet, _wcxb

from boilerbench.configs import CONF_DIR
from boilerbench.errors import BoilerbenchError, MissingDependencyError
from boilerbench.experiments import run, runner
from boilerbench.extractors.base import tags

PAGES = {
    "p1": ("<body><div><a>Home</a> <a>News</a></div><p>First story text is here today.</p></body>", "First story"),
    "p2": ("<body><ul><li><a>Menu</a></li></ul><h1>Title</h1><p>Second story here.</p></body>", "Title Second story"),
    "p3": ("<body><nav>Login</nav><p>Third page body with words.</p><p>Copyright</p></body>", "Third page body"),
}

#: (name, overrides) of each protocol scenario; the datasets are those of :func:`fixtures`.
SCENARIOS = [
    ("plaintext", ()),
    ("plaintext_cv2", ("cv.folds=2",)),
    ("plaintext_cv_auto", ("cv.folds=2", "cv.auto=true")),
    ("plaintext_cv_too_many", ("cv.folds=9",)),
    ("plaintext_from_dragnet", ("dataset@train_dataset=dragnet",)),
    ("plaintext_train_on", ("train_on=[dragnet]",)),
    ("plaintext_fallback", ("fallback_train_on=[dragnet]",)),
    ("plaintext_fallback_cv_auto", ("fallback_train_on=[dragnet]", "cv.folds=2", "cv.auto=true")),
    ("plaintext_validation", ("evaluate_on=validation",)),
    ("plaintext_train_on_and_cv", ("train_on=[dragnet]", "cv.folds=2")),
    ("dragnet", ("dataset=dragnet",)),
    ("dragnet_cv2", ("dataset=dragnet", "cv.folds=2")),
    ("dragnet_cv_auto", ("dataset=dragnet", "cv.folds=2", "cv.auto=true")),
    ("dragnet_validation", ("dataset=dragnet", "evaluate_on=validation", "dataset.validation_share=0.34")),
    ("dragnet_all", ("dataset=dragnet", "dataset.split=all")),
    ("dragnet_all_cv_auto", ("dataset=dragnet", "dataset.split=all", "cv.folds=2", "cv.auto=true")),
    ("dragnet_both_sources", ("dataset=dragnet", "train_on=[wcxb:all]", "dataset@train_dataset=wcxb")),
    ("dragnet_leaky_train_on", ("dataset=dragnet", "dataset.split=all", "train_on=[dragnet]")),
    ("wcxb_all_from_dragnet", ("dataset=wcxb", "dataset.split=all", "dataset@train_dataset=dragnet")),
    # the protocol group (conf/protocol): the same protocols, named as such
    ("plaintext_protocol_cv2", ("protocol=cv", "protocol.folds=2")),
    ("plaintext_protocol_cross", ("protocol=cross_dataset", "protocol.train=dragnet")),
    ("plaintext_protocol_mixture", ("protocol=mixture", "protocol.train_on=[dragnet]")),
    ("plaintext_protocol_fallback", ("protocol=fallback", "protocol.train_on=[dragnet]")),
    ("plaintext_protocol_and_switch", ("protocol=cv", "protocol.folds=2", "train_on=[dragnet]")),
    (
        "dragnet_protocol_validation",
        ("dataset=dragnet", "protocol.evaluate_on=validation", "dataset.validation_share=0.34"),
    ),
    ("dragnet_protocol_cross_self", ("dataset=dragnet", "protocol=cross_dataset", "protocol.train=dragnet")),
]

#: Scenarios named by the protocol group -> the same run named by the switches of earlier versions.
SAME_AS = {
    "plaintext_protocol_cv2": "plaintext_cv2",
    "plaintext_protocol_cross": "plaintext_from_dragnet",
    "plaintext_protocol_mixture": "plaintext_train_on",
    "plaintext_protocol_fallback": "plaintext_fallback",
    "dragnet_protocol_validation": "dragnet_validation",
    "dragnet_protocol_cross_self": "dragnet",
}

#: Extractors whose 19 scenarios take over 10 s (learned ones whose fit costs seconds even when
#: short, ensembles that run their members, ReadabiliPy's Node.js engine): marked slow.
EXPENSIVE = {
    "boilernet",
    "lm_embedding",
    "majority_vote",
    "readabilipy",
    "stack",
    "tagpath_lstm",
    "web2text",
    "web2text_unary",
    "weighted_vote",
}


@pytest.fixture
def fixtures(tmp_path, monkeypatch):
    """Hand-made datasets: plaintext pages, and Dragnet / WCXB folders found through BOILERBENCH_DATA."""
    data = tmp_path / "data"
    _dragnet(data / "dragnet")
    _wcxb(data / "wcxb")
    monkeypatch.setenv("BOILERBENCH_DATA", str(data))
    # the hand-made folders are not the data of the shipped manifests
    monkeypatch.setattr("boilerbench.datasets.base.check_manifest", lambda *args: None)
    return write_pairs(tmp_path / "pages", PAGES)


def spy_fits(monkeypatch) -> list[tuple[str, int]]:
    """Record (extractor class, training pages) of every fit of an extractor the runner builds."""
    fits: list[tuple[str, int]] = []
    build = runner.build

    def spying(node, *args, **kwargs):
        built = build(node, *args, **kwargs)
        fit = getattr(built, "fit", None)
        if fit is not None and hasattr(built, "extract"):

            def recorded(train, validation=None):
                fits.append((type(built).__name__, len(train)))
                return fit(train, validation)

            built.fit = recorded
        return built

    monkeypatch.setattr(runner, "build", spying)
    return fits


def outcome(tmp_path, pages, extractor: str, scenario: str, overrides: tuple[str, ...]) -> str:
    """Run one combination in this process: ``results`` or ``error: <one line>``."""
    quick = [f"extractor.{o}" for o in QUICK_FIT.get(extractor, ())]
    tested = [o for o in overrides if o.startswith("dataset=")] or ["dataset=plaintext", f"dataset.root={pages}"]
    with initialize_config_dir(config_dir=str(CONF_DIR), version_base="1.3"):
        cfg = compose(
            "config",
            overrides=[
                f"extractor={extractor}",
                *tested,
                f"paths.root_dir={tmp_path}",
                "progress=false",
                "bootstrap_resamples=0",
                "max_error_rate=1",
                *quick,
                *overrides,
            ],
        )
    try:
        summary = run(cfg, tmp_path / "out" / scenario)
    except MissingDependencyError as err:
        pytest.skip(f"{extractor}: {err}")
    except BoilerbenchError as err:
        message = str(err)
        assert message and "\n" not in message, message
        return f"error: {message}"
    assert summary["n_pages"] > 0
    return "results"


def cases() -> list:
    params = []
    for extractor in EXTRACTOR_NAMES:
        slow = [pytest.mark.slow] if extractor in EXPENSIVE else []
        params.append(pytest.param(extractor, marks=slow, id=extractor))
    return params


@pytest.mark.parametrize("extractor", cases())
def test_every_protocol_switch_ends_in_results_or_one_line(extractor, fixtures, tmp_path, monkeypatch):
    fits = spy_fits(monkeypatch)
    outcomes = {name: outcome(tmp_path, fixtures, extractor, name, overrides) for name, overrides in SCENARIOS}
    # no model is ever fitted on nothing
    learned = tags(runner.make_extractor(extractor, ())).learns
    assert all(n > 0 for _, n in fits) if learned else True, fits
    # switches that exclude each other, or ask for pages that are not there, are refused for every extractor
    for name in ("plaintext_cv_too_many", "plaintext_validation", "dragnet_both_sources"):
        assert outcomes[name].startswith("error: "), (name, outcomes[name])
    assert "trains on" in outcomes["dragnet_leaky_train_on"]
    # with training pages from any source, every extractor gives results
    # (train_on with cv.folds: each fold trains on the mixture, boilerbench.experiments.protocols.CV)
    names = ("dragnet", "plaintext_from_dragnet", "plaintext_train_on", "plaintext_train_on_and_cv", "dragnet_cv2")
    for name in (*names, "wcxb_all_from_dragnet"):
        assert outcomes[name] == "results", (name, outcomes[name])
    # a split with no training pages: a heuristic runs; a learned extractor is refused, naming the switches
    for name in ("plaintext", "dragnet_all"):
        if learned:
            assert outcomes[name].startswith("error: extractor ") and "learns from training pages" in outcomes[name]
            assert all(
                s in outcomes[name]
                for s in ("protocol=cross_dataset", "protocol=mixture", "protocol=cv", "protocol.auto")
            )
        else:
            assert outcomes[name] == "results", (name, outcomes[name])
    assert outcomes["plaintext_fallback"] == "results" and outcomes["dragnet_all_cv_auto"] == "results"
    # the protocol group and the old switches name the same runs: same outcome, same recorded protocol
    assert outcomes["plaintext_protocol_and_switch"].startswith("error: protocol=cv and the switches")
    for new, old in SAME_AS.items():
        assert outcomes[new] == outcomes[old], (new, outcomes[new], old, outcomes[old])
        if outcomes[new] == "results":
            assert recorded_protocol(tmp_path, new) == recorded_protocol(tmp_path, old), new
    if outcomes["plaintext_protocol_fallback"] == "results":
        assert recorded_protocol(tmp_path, "plaintext_protocol_fallback")["name"] == (
            "mixture" if learned else "in_domain"
        )
    assert recorded_protocol(tmp_path, "dragnet_protocol_cross_self")["name"] == "in_domain"


def recorded_protocol(tmp_path, scenario: str) -> dict:
    """The protocol a scenario's run followed: the name and the training data of its ``protocol`` section."""
    section = json.loads((tmp_path / "out" / scenario / "summary.json").read_text(encoding="utf-8"))["protocol"]
    return {k: v for k, v in section.items() if k in ("name", "train", "train_on", "folds", "evaluate_on")}


#: Learned extractors a new user may point at a split with no training pages (issue 35's command line).
REFUSED = ["crf", "web2text", "boilernet", "stack", "tagpath_lstm", "fiasco"]


def _cli(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "run.py", *args], cwd=PROJECT, capture_output=True, text=True, timeout=120)


@pytest.mark.parametrize("extractor", REFUSED)
def test_cli_learned_extractor_without_training_pages_exits_2_with_one_line(extractor, tmp_path):
    pages = write_pairs(tmp_path / "pages", PAGES)
    done = _cli(f"extractor={extractor}", "dataset=plaintext", f"dataset.root={pages}", f"paths.root_dir={tmp_path}")
    assert done.returncode == 2, done.stderr[-2000:]
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith(f"error: extractor {extractor} learns from training pages"), lines
    assert not (tmp_path / "models").exists()  # refused before fitting: nothing fitted, nothing cached


def test_cli_cross_validated_crf_gives_results_and_excluded_switches_one_line(tmp_path):
    pages = write_pairs(tmp_path / "pages", PAGES)
    common = ("dataset=plaintext", f"dataset.root={pages}", f"paths.root_dir={tmp_path}", "progress=false")
    done = _cli("extractor=crf", "cv.folds=2", "max_error_rate=1", *common)
    assert done.returncode == 0, done.stderr[-2000:]
    done = _cli("extractor=crf", "cv.folds=2", "evaluate_on=validation", *common)
    assert done.returncode == 2 and len(done.stderr.strip().splitlines()) == 1, done.stderr[-2000:]
    done = _cli("extractor=crf", "protocol=cv", "cv.folds=2", *common)
    assert done.returncode == 2 and len(done.stderr.strip().splitlines()) == 1, done.stderr[-2000:]
    assert "protocol=NAME protocol.KEY=VALUE" in done.stderr
