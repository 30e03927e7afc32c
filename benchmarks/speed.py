"""Per-page speed of the hot path and of every extractor against trafilatura's, one process, and
of the command-line tools against trafilatura's own, in one run.

1. Mean and p95 milliseconds per page for loading (read + decode), segmentation (lxml parse +
   canonical blocks) and gold labelling (token LCS alignment) of a dataset's pages.
2. Each extractor end to end as a user calls it on raw HTML (a fresh page each time, so our
   extractors pay for parsing and segmentation; the disk cache is off, so a stack's members run
   on every page), the extractors taking turns page by page so that a busy machine slows them
   alike; each one's time as a ratio of trafilatura's, one ratio per round (``--repeats``), their
   median and spread. Learned extractors named by config are first fitted on the split's
   training and validation pages; ``--model PATH`` adds a fitted model file (``python run.py ...
   save_model=PATH``). A stack's time is split by stage (segmentation, each member, features,
   trees, decoding: :meth:`boilerbench.extractors.stack.Stack.extract`'s ``info``); with
   ``--trees`` also its trees stage by LightGBM's predict and by the compiled build, same rows.
   The timing runs with the heap frozen after set-up (:func:`boilerbench.page_rows.frozen_heap`),
   as ``boilerbench extract`` runs: else every full collection would traverse the pages, blocks
   and models loaded here, a cost of this harness that each extractor pays in proportion to
   what it allocates, and that no user pays.
3. With ``--cli``, pages per second of the command-line tools on the same files, each a fresh
   process (start-up included, as a user runs them), for each ``--jobs`` count:
   ``boilerbench extract --model PATH -j J`` (each model), ``boilerbench extract --extractor
   trafilatura -j J`` and ``trafilatura --input-dir --parallel J`` (the library's own tool; its
   default is one process per core), as ratios of the last, and each tool's speed-up from
   ``-j 1`` to ``-j J``; and each tool's seconds on the first file alone (its start-up). The
   project's bytecode is compiled first, as an installed package's is. Each round runs the
   commands in another order (:func:`rotated`).

    BOILERBENCH_DATA=../shared/datasets python -m benchmarks.speed [--dataset cleaneval] [--part test]
        [--limit N] [--extractors bte,cetd,trafilatura,...] [--model stack.model ...] [--repeats 3]
        [--trees] [--cli --jobs 1,2] [--threads 1]

``--threads`` sets torch's intra-op threads (the neural extractors' "one core" figures).
Reference extractors that are not installed are skipped with a note. For an extractor with a
sentence encoder (``lm_embedding``) the embedding cost per block is printed on its own.
"""

from __future__ import annotations

import argparse
import compileall
import math
import shutil
import subprocess
import sys
import tempfile
from collections.abc import Sequence
from pathlib import Path

import numpy as np
import torch
from omegaconf import OmegaConf

from benchmarks.common import ms_each, record, run_main, timed
from boilerbench.cache import set_cache_dir
from boilerbench.datasets.align import align_labels
from boilerbench.datasets.blocks import segment
from boilerbench.datasets.page import Page
from boilerbench.errors import ConfigError, MissingDependencyError, check_choice
from boilerbench.experiments.model_file import load_model_file
from boilerbench.experiments.runner import build, make_extractor
from boilerbench.extractors import base as contract
from boilerbench.page_rows import frozen_heap

PROJECT = Path(__file__).resolve().parents[1]
CONF = PROJECT / "boilerbench" / "conf"
DEFAULT_EXTRACTORS = "bte,cetd,scedd,crf,trafilatura,readability,justext,boilerpipe,inscriptis"
REFERENCE = "trafilatura"
PARTS = ("test", "validation", "train", "all")
#: The harness's sizes (``python -m benchmarks [--full]``).
QUICK = ["--limit", "20", "--extractors", "bte,scedd,trafilatura,inscriptis"]
FULL = ["--repeats", "3"]


def report(name: str, ms: np.ndarray) -> None:
    """Print (and record) the mean and p95 milliseconds per page of step ``name``."""
    record(f"{name.split(' (')[0].replace(' ', '_')}_ms", ms.mean())
    record(f"{name.split(' (')[0].replace(' ', '_')}_p95_ms", np.percentile(ms, 95))
    print(
        f"  {name:<34} mean {ms.mean():7.2f} ms   p95 {np.percentile(ms, 95):7.2f} ms   total {ms.sum() / 1000:6.2f} s"
    )


def median_interval(values: Sequence[float], confidence: float = 0.95) -> tuple[float, float, float]:
    """(low, high, coverage): the distribution-free interval for the median of ``values`` between
    the order statistics k and n + 1 - k, k the largest whose binomial tail P(Bin(n, 1/2) < k)
    stays within (1 - ``confidence``) / 2; its exact coverage is 1 - 2 P(Bin(n, 1/2) < k). Rounds
    of a timing on a shared machine are not normal, so no mean and standard error. With too few
    values for the confidence asked (5 give at most 93.75 %), it is the range, at its coverage."""
    ordered = sorted(values)
    n = len(ordered)
    tail = [math.comb(n, i) / 2**n for i in range(n)]
    k = 1
    while k < n // 2 and sum(tail[: k + 1]) <= (1 - confidence) / 2:
        k += 1
    return ordered[k - 1], ordered[n - k], 1 - 2 * sum(tail[:k])


def spread(ratios: Sequence[float]) -> str:
    """Median of per-round ratios, its distribution-free interval (:func:`median_interval`) and the rounds."""
    low, high, coverage = median_interval(ratios)
    rounds = ", ".join(f"{r:.3f}" for r in ratios)
    return f"{np.median(ratios):6.3f}x [{low:.3f}, {high:.3f}] ({100 * coverage:.1f} %; rounds {rounds})"


def embedding_cost(name: str, encoder, blocks: Sequence) -> None:
    """A language-model extractor's embedding cost alone: a fresh encoder (empty caches, model
    loaded beforehand) embeds every block text of the pages, each distinct text once."""
    fresh = type(encoder)(encoder.model, encoder.max_tokens, encoder.batch_size)
    load_s = timed(lambda: fresh.dimension)[1]  # loads the model, so that its load time is not counted as embedding
    texts = [t for b in blocks for t in b.texts]
    seconds = timed(lambda: fresh.encode(texts))[1]
    print(
        f"  {name} embedding: {1000 * seconds / max(fresh.texts_encoded, 1):.2f} ms per block text "
        f"({fresh.texts_encoded} distinct of {len(texts)} blocks, {seconds:.1f} s; model load "
        f"{load_s:.1f} s)"
    )


def load_pages(name: str, part: str):
    """The dataset's default split (manifest check off) and the pages of its ``part``."""
    check_choice("--dataset", name, sorted(p.stem for p in (CONF / "dataset").glob("*.yaml")))
    node = OmegaConf.load(CONF / "dataset" / f"{name}.yaml")
    node.data_dir = "data"
    node.verify = False
    node.download = False
    split = build(node).load()
    parts = {"test": split.test, "validation": split.validation, "train": split.train}
    pages = [*split.train, *split.validation, *split.test] if part == "all" else parts[part]
    return split, [page for page in pages if not page.load_error]


def stage_table(name: str, extractor, infos: list[dict], n_pages: int) -> None:
    """A stack's mean ms per page by stage (and by member), from its extractions' ``info``."""
    stages = [k for k in infos[0] if k.endswith("_ms") and k != "stack_ms"] if infos else []
    total = sum(np.mean([i[k] for i in infos]) for k in stages)
    print(f"  {name}: stages (ms/page, share of its time)")
    for stage in stages:
        ms = float(np.mean([i[stage] for i in infos]))
        print(f"    {stage[:-3]:<28} {ms:8.2f}  {ms / total:6.1%}")
        if stage == "members_ms":
            for member in contract.members(extractor):
                share = 1000 * member.seconds / n_pages
                print(f"      member {member.name:<19} {share:8.2f}  {share / total:6.1%}")


def extract_info(extractor, page: Page) -> dict | None:
    """The ``info`` of ``extractor`` on a fresh copy of ``page`` (nothing parsed is shared), None
    where it fails on it (a page over a reference's size limit)."""
    try:
        return extractor.extract(Page(page.id, page.html, "", page.url)).info
    except Exception:  # a per-page error: its time still counts
        return None


def time_extractors(extractors: dict, pages: Sequence[Page], repeats: int) -> dict[str, list[np.ndarray]]:
    """Per round, each extractor's ms on each page; the extractors take turns page by page (a
    fresh :class:`Page` each time, so nothing parsed is shared), the stage ``info`` of a stack's
    last round printed by stage; each extractor first extracts one page untimed (lazy imports). A
    page an extractor fails on counts its time."""
    rounds: dict[str, list[np.ndarray]] = {name: [] for name in extractors}
    infos: dict[str, list[dict]] = {}
    for extractor in extractors.values():  # warm-up, not timed: lazy imports and first-call set-up
        for page in pages[:1]:
            extractor.extract(Page(page.id, page.html, "", page.url))
    for _ in range(repeats):
        ms = {name: np.empty(len(pages)) for name in extractors}
        infos = {name: [] for name in extractors}
        for extractor in extractors.values():
            for member in contract.members(extractor):
                member.seconds = 0.0
        for k, page in enumerate(pages):
            for name, extractor in extractors.items():
                info, seconds = timed(lambda e=extractor, p=page: extract_info(e, p))
                if info is not None:
                    infos[name].append(info)
                ms[name][k] = 1000 * seconds
        for name in extractors:
            rounds[name].append(ms[name])
    for name, extractor in extractors.items():
        if contract.tags(extractor).has_members:
            stage_table(name, extractor, [i for i in infos[name] if "members_ms" in i], len(pages))
    return rounds


def compare_trees(name: str, stack, pages: Sequence[Page]) -> None:
    """A stack's trees stage (both stages and the context columns) on the same feature rows by
    LightGBM's predict and by the lleaves build (:mod:`boilerbench.extractors.stack.compiled_trees`),
    and the largest difference between their probabilities."""
    fresh = [Page(p.id, p.html, "", p.url) for p in pages]
    rows = [stack._rows(page) for page in fresh]
    setting = stack.compiled_trees
    ms, out = {}, {}
    for compiled in (False, True):
        stack.compiled_trees = compiled
        out[compiled], seconds = timed(
            lambda: [stack.probabilities(r, page) for r, page in zip(rows, fresh, strict=True)]
        )
        ms[compiled] = 1000 * seconds / max(len(pages), 1)
    stack.compiled_trees = setting
    diff = max((abs(a - b).max() for a, b in zip(out[False], out[True], strict=True) if len(a)), default=0.0)
    print(
        f"  {name}: trees by LightGBM {ms[False]:.2f} ms/page, compiled {ms[True]:.2f} ({ms[True] / ms[False]:.2f}x), "
        f"largest difference {diff:.1e}"
    )


#: Exit statuses of a timed command that still time it: ``boilerbench extract`` exits 1 when a page
#: failed (real pages do: over a reference's size limit), having extracted every other page.
TIMED_STATUSES = (0, 1)


def quietly(command: list[str]) -> None:
    """Run ``command`` in the project folder, its output discarded; fail when it fails
    otherwise than by some of its pages (:data:`TIMED_STATUSES`)."""
    done = subprocess.run(command, cwd=PROJECT, check=False, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    if done.returncode not in TIMED_STATUSES:
        raise subprocess.CalledProcessError(done.returncode, command, stderr=done.stderr)


def rotated(items: Sequence, turn: int) -> list:
    """``items`` in the order of round ``turn``: started ``turn`` places further on, so that over
    as many rounds as items each runs once in every position and a drift of the machine within a
    round (another load, the page cache, the clock) weighs on every tool alike."""
    shift = turn % len(items) if items else 0
    return [*items[shift:], *items[:shift]]


def cli_speeds(pages: Sequence[Page], models: Sequence[str], jobs: Sequence[int], repeats: int) -> None:
    """Pages per second of each command-line tool on the pages written as files, as ratios of
    ``trafilatura --parallel J``'s in the same round, and each tool's speed-up over ``-j 1``."""
    # the project's bytecode, as pip compiles it when it installs a package: an editable checkout
    # run under PYTHONDONTWRITEBYTECODE would compile every module of ours at every start-up (a
    # second of each run), while trafilatura's installed modules start from their bytecode
    compileall.compile_dir(PROJECT / "boilerbench", quiet=1)
    folder = Path(tempfile.mkdtemp(prefix="speed-cli-"))
    try:
        source = folder / "pages"
        source.mkdir()
        for k, page in enumerate(pages):
            (source / f"{k:05d}.html").write_text(page.html, encoding="utf-8")
        first = folder / "first"  # one page: the start-up of each tool, and little else
        first.mkdir()
        shutil.copy(source / "00000.html", first)
        python = [sys.executable, "-m", "boilerbench", "extract", "--quiet", "--format", "jsonl"]
        tool = shutil.which(REFERENCE) or str(Path(sys.executable).with_name(REFERENCE))
        commands: dict[tuple[str, int], list[str]] = {}
        for j in (0, *jobs):  # 0: the one page, one process
            inputs, workers = (str(source), str(j)) if j else (str(first), "1")
            out = ["-j", workers, "-o", str(folder / "out.jsonl"), inputs]
            for model in models:
                commands[(f"boilerbench extract --model {Path(model).name}", j)] = [*python, "--model", model, *out]
            commands[("boilerbench extract --extractor trafilatura", j)] = [*python, "--extractor", REFERENCE, *out]
            commands[("trafilatura --input-dir", j)] = [
                *(tool, "--input-dir", inputs, "--output-dir", str(folder / "trafilatura"), "--parallel", workers),
            ]
        seconds: dict[tuple[str, int], list[float]] = {key: [] for key in commands}
        for turn in range(repeats):
            for key in rotated(list(commands), turn):
                shutil.rmtree(folder / "trafilatura", ignore_errors=True)
                seconds[key].append(timed(lambda c=commands[key]: quietly(c))[1])
    finally:
        shutil.rmtree(folder, ignore_errors=True)
    print(f"command-line tools on one file (start-up), {repeats} round(s), seconds:")
    for (name, j), runs in seconds.items():
        if not j:
            print(f"  {name:<48} {np.median(runs):6.2f} s (" + ", ".join(f"{s:.2f}" for s in runs) + ")")
    seconds = {key: runs for key, runs in seconds.items() if key[1]}
    print(f"command-line tools on the same {len(pages)} files (start-up included), {repeats} round(s):")
    for (name, j), runs in seconds.items():
        rate = [len(pages) / s for s in runs]
        reference = seconds[("trafilatura --input-dir", j)]
        versus = [r / s for r, s in zip(reference, runs, strict=True)]
        line = f"  {name} -j {j:<3} {np.median(rate):7.1f} pages/s; vs trafilatura --parallel {j}: {spread(versus)}"
        if j != 1 and (name, 1) in seconds:
            line += f"; speed-up over -j 1: {spread([a / b for a, b in zip(seconds[(name, 1)], runs, strict=True)])}"
        print(line)


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--dataset", default="cleaneval", help="a config in conf/dataset (its default split)")
    parser.add_argument("--part", default="test", choices=PARTS, help="which of the split's pages are timed")
    parser.add_argument("--limit", type=int, default=None)
    parser.add_argument("--extractors", default=DEFAULT_EXTRACTORS, help="configs in conf/extractor, comma-separated")
    parser.add_argument("--model", action="append", default=[], help="a fitted model file (repeatable)")
    parser.add_argument("--repeats", type=int, default=1, help="rounds over the pages (ratios per round)")
    parser.add_argument("--trees", action="store_true", help="also time each model's trees by LightGBM and compiled")
    parser.add_argument("--cli", action="store_true", help="also time the command-line tools on the same files")
    parser.add_argument("--jobs", default="1,2", help="worker counts of the command-line runs")
    parser.add_argument("--threads", type=int, default=None, help="torch intra-op threads (default: torch's)")
    args = parser.parse_args(argv)
    if args.repeats < 1:
        raise ConfigError(f"--repeats must be at least 1, got {args.repeats}")
    if args.threads:
        torch.set_num_threads(args.threads)
    set_cache_dir(None)

    split, pages = load_pages(args.dataset, args.part)
    pages = pages[: args.limit]
    print(f"{args.dataset} split {split.name}, {args.part} pages: {len(pages)}")
    blocks = []
    segment_ms = ms_each(pages, lambda p: blocks.append(segment(p.html)))
    label_ms = ms_each(range(len(pages)), lambda k: align_labels(blocks[k], pages[k].gold_text))
    report("segment (parse + blocks)", segment_ms)
    report("gold labels (alignment)", label_ms)
    report("segment + gold labels", segment_ms + label_ms)

    names = [n for n in args.extractors.split(",") if n]
    for name in names:
        check_choice("--extractors", name, sorted(p.stem for p in (CONF / "extractor").glob("*.yaml")))
    if REFERENCE not in names:
        names.insert(0, REFERENCE)
    extractors: dict[str, object] = {}
    for name in names:
        try:
            extractor = make_extractor(name)
        except MissingDependencyError as err:
            print(f"  {name}: skipped ({err})")
            continue
        if contract.tags(extractor).learns:
            fit_s = timed(lambda e=extractor: e.fit(split.train, split.validation))[1]
            done = getattr(extractor, "fit_summary", lambda: "")()
            print(
                f"  {name}: fitted on {len(split.train)} + {len(split.validation)} pages in "
                f"{fit_s:.2f} s{f' ({done})' if done else ''}"
            )
        extractors[name] = extractor
    for path in args.model:
        extractors[Path(path).name] = load_model_file(path)[0]

    with frozen_heap():  # as `boilerbench extract` extracts: the pages and models set up here are not traversed
        rounds = time_extractors(extractors, pages, args.repeats)
    reference = rounds.get(REFERENCE)
    for name, runs in rounds.items():
        report(f"{name} (end to end)", np.concatenate(runs))
        if reference is not None:
            ratios = [ms.mean() / ref.mean() for ms, ref in zip(runs, reference, strict=True)]
            print(f"  {'':<34} time / trafilatura's: {spread(ratios)}")
            record(f"{name}_vs_trafilatura", float(np.median(ratios)))
        if hasattr(extractors[name], "encoder"):
            embedding_cost(name, extractors[name].encoder, blocks)  # type: ignore[attr-defined]
    if args.trees:
        for path in args.model:
            compare_trees(Path(path).name, extractors[Path(path).name], pages)
    if args.cli:
        cli_speeds(pages, args.model, [int(j) for j in args.jobs.split(",")], args.repeats)
    return 0


if __name__ == "__main__":
    run_main(main)
