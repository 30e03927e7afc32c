"""The neural extractors' shared training helpers."""

import random

import pytest
import torch
from torch import nn

from boilerbench.datasets.page import Page
from boilerbench.extractors.training import EarlyStopping, balanced_class_weights, hold_out


def test_balanced_class_weights_make_both_classes_weigh_the_same():
    content, boilerplate = balanced_class_weights(25.0, 100.0)
    assert (content, boilerplate) == (2.0, pytest.approx(100 / 150))
    assert 25 * content == pytest.approx(75 * boilerplate)
    assert balanced_class_weights(0.0, 10.0) == (5.0, 0.5)  # no positives counts as one


def test_hold_out_uses_the_split_or_a_share_of_training_pages():
    pages = [Page(f"p{k}", f"<p>text {k}</p>", "") for k in range(10)] + [Page("empty", "", "")]
    train, validation = hold_out(pages, None, 0.2, random.Random(0))
    assert len(train) == 8 and len(validation) == 2  # the empty page is dropped
    assert not {p.id for p in train} & {p.id for p in validation}
    given = [Page("v", "<p>held</p>", "")]
    assert hold_out(pages, given, 0.2, random.Random(0)) == (pages[:10], given)


def test_early_stopping_keeps_the_best_weights():
    net = nn.Linear(1, 1)
    stopping = EarlyStopping(patience=2)
    nn.init.constant_(net.weight, 1.0)
    assert not stopping.update(0.5, net)
    nn.init.constant_(net.weight, 2.0)
    assert not stopping.update(0.4, net)
    assert stopping.update(0.3, net)  # two evaluations without improvement
    assert stopping.restore(net).weight.item() == 1.0 and not net.training
    assert torch.equal(stopping.state["weight"], torch.ones(1, 1))
