"""Kohlschütter et al.'s shallow-feature rules on hand-computed lines and a hand-made page."""

from __future__ import annotations

import numpy as np
import pytest

from boilerbench.datasets.page import Page
from boilerbench.errors import ConfigError
from boilerbench.extractors.numwords_rules import NumWordsRules, line_features, numwords_rules


def test_the_decision_tree_by_hand():
    # a menu (all links), 5 words before a 20-word line, the 20-word line, a 10-word line after it
    words, density = np.array([3.0, 5, 20, 10]), np.array([1.0, 0, 0, 0])
    # menu: too many links; 5 words after the menu: kept for its 20-word successor (> 17);
    # 20 words: over 16; 10 words after 20: the previous line has over 4
    assert numwords_rules(words, density, 0.333333).tolist() == [0, 1, 1, 1]
    # short lines without links: kept only after a line of over 4 words
    assert numwords_rules(np.array([10.0, 3, 2]), np.zeros(3), 0.333333).tolist() == [0, 1, 0]
    # after a menu, a 35-word line followed by a short one is dropped; over 40 words it is kept
    assert numwords_rules(np.array([3.0, 35, 3]), np.array([1.0, 0, 1]), 0.333333).tolist() == [0, 0, 0]
    assert numwords_rules(np.array([3.0, 41, 3]), np.array([1.0, 0, 1]), 0.333333).tolist() == [0, 1, 0]


def test_lines_words_and_link_density_of_a_page():
    words = " ".join(["word"] * 45)
    page = Page("p", f"<div><a href='/'>Home</a> | <a href='/n'>News</a></div><p>{words}</p><p>Bye now</p>", "")
    line_of, per_line, density = line_features(page)
    assert line_of.tolist() == [0, 0, 0, 1, 2]  # Home, |, News on the menu's line
    assert per_line.tolist() == [3, 45, 2]
    np.testing.assert_allclose(density, [2 / 3, 0, 0])
    # the menu is dropped, the paragraph kept (over 40 words), "Bye now" kept after it (over 4 words)
    assert NumWordsRules().extract(page).labels.tolist() == [0, 0, 0, 1, 1]


def test_a_bad_threshold_is_a_config_error():
    with pytest.raises(ConfigError, match="max_link_density"):
        NumWordsRules(max_link_density=0)
