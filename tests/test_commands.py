"""The ``boilerbench`` command: its subcommands, ``boilerbench run`` composing from the package's
configs outside the checkout, renamed config options failing with one line naming the new name,
and the experiment list that ``make reports`` runs, read from ``conf/experiment``.

What would fail: a subcommand that is not dispatched, ``boilerbench run`` finding its configs
only through the checkout's folder (run from another folder), the job's log renamed, a renamed
extractor run under its old name, an experiment config that no artefact reads, or the list of
experiments drifting from what the tables need."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest
from conftest import PROJECT, write_pairs

from boilerbench import commands
from boilerbench.commands.run import option_error
from boilerbench.reports.artefacts import ARTEFACTS, experiment_tags, experiments_to_run

PAGES = {
    "a": ("<body><nav><a>Home</a> <a>News</a></nav><p>The first story is told here.</p></body>", "The first story"),
    "b": ("<body><ul><li><a>Menu</a></li></ul><h1>Title</h1><p>Second story body.</p></body>", "Title Second story"),
}


def test_help_lists_every_subcommand(capsys):
    assert commands.main(["--help"]) == 0
    out = capsys.readouterr().out
    assert [line.split()[0] for line in out.splitlines() if line.startswith("  ") and "--" not in line] == [
        "run", "extract", "report", "compare", "inspect", "cache"
    ]  # fmt: skip


@pytest.mark.parametrize(
    ("argv", "expected"),
    [
        ([], "usage: boilerbench COMMAND"),
        (["frobnicate"], "error: boilerbench: unknown command 'frobnicate'; choose one of: run, extract, report"),
        (["page.html"], "error: boilerbench: 'page.html' is not a command; to extract pages: boilerbench extract"),
    ],
)
def test_no_or_unknown_subcommand_exits_two(argv, expected, capsys):
    assert commands.main(argv) == 2
    err = capsys.readouterr().err
    assert err.startswith(expected)
    assert argv == [] or len(err.splitlines()) == 1


def test_report_lists_the_experiments(capsys):
    assert commands.main(["report", "--list-experiments"]) == 0
    assert capsys.readouterr().out.split() == experiments_to_run()


def test_the_experiment_list_is_what_the_artefacts_need():
    tags = experiment_tags()
    read = {tag for artefact in ARTEFACTS for tag in artefact.experiments}
    assert set(tags.values()) <= read  # every experiment's runs feed some table or figure
    assert {tag for artefact in ARTEFACTS for tag in artefact.needs} <= set(tags.values())  # and each has runs
    # the figures drawn from the table runs leave their own experiments out; the CleanEval 2007
    # table's three experiments, each languages table's two and the speed-quality figure's two share one tag
    assert experiments_to_run() == [
        "fig_scedd_coefficients", "fig_speed_quality", "fig_speed_quality_extractors", "fig_web2text_lambda",
        "table_cleaneval", "table_cleaneval2007",
        "table_cleaneval2007_fiasco", "table_cleaneval2007_wcc", "table_comments", "table_cross", "table_datasets",
        "table_generalization", "table_headline", "table_l3s", "table_language_ablation",
        "table_language_ablation_headline", "table_language_ablation_headline_stack",
        "table_language_ablation_stoplist", "table_languages", "table_languages_arbiter_stack",
        "table_languages_arbiter_stack_seeds", "table_languages_cv",
        "table_languages_cv_arbiter_stack", "table_languages_cv_arbiter_stack_seeds", "table_languages_cv_indomain",
        "table_languages_cv_stack",
        "table_languages_cv_teaser_rails", "table_languages_cv_weights", "table_languages_stack",
        "table_languages_teaser_rails", "table_multilingual_cost",
        "table_multilingual_cost_seeds", "table_multilingual_cost_seeds_arbiter_stack",
        "table_multilingual_cost_seeds_english", "table_multilingual_cost_teaser_rails", "table_page_type_ablation",
        "table_training_weights",
    ]  # fmt: skip


@pytest.mark.parametrize(
    ("overrides", "message"),
    [
        (["extractor=html_to_text"], "extractor=html_to_text was renamed: use extractor=inscriptis"),
        (["-m", "dataset=cleaneval", "extractor=bte,html_to_text"], "extractor=html_to_text was renamed"),
        (["-m", "extractor=choice(bte, html_to_text)"], "extractor=html_to_text was renamed"),
        (["extractor=inscriptis", "dataset.root=html_to_text"], None),
        (["extractor=html_text"], None),
        (["extractor=nope", "dataset=cleaneval"], "extractor=nope: no such option (choose from all_text, "),
        (["-m", "dataset=cleaneval,nope"], "dataset=nope: no such option"),
        (["+headline=stack", "dataset@train_dataset=dragnet", "hydra/launcher=dask"], None),
        (["-m", "protocol=choice(cv,nope)"], "protocol=nope: no such option"),
    ],
)
def test_renamed_and_unknown_options_are_found_in_overrides(overrides, message):
    found = option_error(overrides)
    assert found == message if message is None else found.startswith(message)


def test_extract_names_the_new_extractor(tmp_path, capsys):
    (tmp_path / "a.html").write_text(PAGES["a"][0])
    assert commands.main(["extract", "--extractor", "html_to_text", "--quiet", str(tmp_path / "a.html")]) == 2
    assert capsys.readouterr().err == "error: extractor=html_to_text was renamed: use extractor=inscriptis\n"


def _boilerbench(*args: str, cwd) -> subprocess.CompletedProcess:
    env = {**os.environ, "PYTHONPATH": str(PROJECT)}
    command = [sys.executable, "-m", "boilerbench", *args]
    return subprocess.run(command, cwd=cwd, env=env, capture_output=True, text=True, timeout=120)


@pytest.mark.slow
def test_run_composes_from_the_package_outside_the_checkout(tmp_path):
    pages = write_pairs(tmp_path / "pages", PAGES)
    out = tmp_path / "out"
    done = _boilerbench(
        "run", "extractor=bte", "dataset=plaintext", f"dataset.root={pages}", "progress=false", f"hydra.run.dir={out}",
        cwd=tmp_path,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr[-2000:]
    files = sorted(p.name for p in out.iterdir() if p.name != ".hydra")
    assert files == ["pages.csv", "predictions.jsonl", "run.log", "summary.json"]
    renamed = _boilerbench("run", "extractor=html_to_text", "dataset=plaintext", cwd=tmp_path)
    assert renamed.returncode == 2
    assert renamed.stderr == "error: extractor=html_to_text was renamed: use extractor=inscriptis\n"
