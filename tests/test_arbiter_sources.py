"""The arbiter's selector scored on a source left out (studies/arbiter_sources.py): which row stands
for a page, what the choices gain, and that a held-out source's pages never train its selector."""

import numpy as np
import pytest

from boilerbench.extractors.arbiter import FEATURES
from studies import arbiter_sources
from studies.arbiter_sources import VARIANTS, chosen_gain, distinct, held_out_gain


def row(source: str, page: str, base: float, alternative: float, part: str = "oof", **extra) -> dict:
    return {
        "source": source,
        "id": page,
        "group": f"{source}/{page}",
        "part": part,
        "count": 1,
        "f1_base": base,
        "f1_alternative": alternative,
        "alternative_empty": False,
        **extra,
    }


def test_a_page_with_two_rows_is_counted_once_by_its_out_of_fold_row():
    rows = [row("a", "1", 0.5, 0.9, part="validation"), row("a", "1", 0.4, 0.9), row("a", "2", 0.7, 0.6)]
    kept = distinct(rows)
    assert [(r["id"], r["part"], r["f1_base"]) for r in kept] == [("1", "oof", 0.4), ("2", "oof", 0.7)]


def test_the_choices_gain_what_the_pages_sent_on_gain_and_nothing_where_the_alternative_is_empty():
    rows = [
        row("a", "1", 0.5, 0.9),  # sent: +0.4
        row("a", "2", 0.8, 0.6),  # sent: -0.2
        row("a", "3", 0.5, 1.0),  # kept: 0
        row("a", "4", 0.2, 0.0, alternative_empty=True),  # above the cut, but empty: kept, 0
    ]
    gain = chosen_gain(rows, np.array([0.9, 0.7, 0.5, 0.99]), 0.6, VARIANTS["shipped"])
    assert gain.tolist() == pytest.approx([0.4, -0.2, 0.0, 0.0])


def test_the_held_out_sources_pages_never_reach_its_selector(monkeypatch):
    seen: list[set[str]] = []
    real = arbiter_sources.training

    def spy(rows, setting):
        seen.append({r["source"] for r in rows})
        return real(rows, setting)

    monkeypatch.setattr(arbiter_sources, "training", spy)
    monkeypatch.setattr(arbiter_sources, "structure_row", lambda r: np.full(len(FEATURES), r["f1_base"]))
    rng = np.random.default_rng(0)
    bases = np.concatenate([rng.uniform(0.1, 0.4, 30), rng.uniform(0.6, 0.9, 30)])  # low: sent; high: kept
    rows = [
        row(source, f"{source}{i}", base, base + (0.2 if base < 0.5 else -0.2))
        for source in ("a", "b", "c")
        for i, base in enumerate(bases)
    ]
    gain, cut = held_out_gain(rows, "c", VARIANTS["shipped"], 0)
    assert seen == [{"a", "b"}]
    assert len(gain) == 60 and cut in (0.5, 0.55, 0.6, 0.65, 0.7, 0.75, 0.8)
    # the rule the other sources teach (send a page whose base is low) holds on c: its 30 low pages
    assert gain.tolist() == pytest.approx([0.2] * 30 + [0.0] * 30)


def test_the_no_loss_threshold_is_the_best_one_at_which_no_source_loses():
    probability = np.array([0.6, 0.9, 0.6, 0.6, 0.9, 0.75])
    gain = np.array([0.5, 0.3, -0.2, -0.2, 0.1, 0.2])
    sources = np.array(["a", "a", "b", "b", "b", "b"])
    # above 0.5 or 0.55 every row is sent: the largest pooled gain (0.7 / 6; the higher cut on the
    # tie), but b loses there (-0.1); above 0.6 to 0.7 its two losing rows stay behind (0.6 / 6,
    # b +0.3), above 0.75 its best row too (0.4 / 6)
    rows = (np.zeros((6, 1)), gain, [f"{s}{i}" for i, s in enumerate(sources)], sources)
    assert VARIANTS["shipped"].threshold(probability, rows) == 0.55
    assert VARIANTS["no source loses"].threshold(probability, rows) == 0.7
    # where every candidate makes a source lose, the highest candidate: the base kept nearly everywhere
    losing = (rows[0], -np.abs(gain), rows[2], sources)
    assert VARIANTS["no source loses"].threshold(probability, losing) == 0.8
