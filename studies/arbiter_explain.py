"""Why an arbiter's selector chose as it did on some pages: each page's selector features, its
probability against the fit's threshold, and each feature's share of the decision (the trees'
SHAP values in log-odds, LightGBM's ``pred_contrib``), then their mean over the pages.

The model is a run's fit as the runner keys it, loaded from the model cache (or fitted into it):
``OVERRIDES`` as ``python run.py`` takes them. Of the run's fits, the one whose test pages hold
the pages whose id contains ``--pages`` (a cross-validated run: the fold that tests them, by a
model that saw none of their site), else the first. The fits of three seeds set side by side say
whether a choice on a site is the features' or one fit's luck (``docs/extractors/arbiter_stack.md``:
DANIEL's Greek site www.iatronet.gr).

    BOILERBENCH_DATA=../shared/datasets python -m studies.arbiter_explain --pages 20120105_www.iatronet.gr \\
        +headline=arbiter_stack dataset=daniel dataset.split=all cv.folds=5 cv.pool=all \\
        'train_on=[cleaneval,dragnet,wcxb,daniel:all,magic_html]' seed=1 ++extractor.seed=1 extractor.base.seed=1
"""

from __future__ import annotations

import argparse
from collections.abc import Sequence

import numpy as np
import pandas as pd

from benchmarks.common import run_main
from boilerbench.datasets.page import Page
from boilerbench.errors import ConfigError, import_optional
from boilerbench.extractors.arbiter import FEATURES, Arbiter, Selector, arbiter_features, extract_or_empty
from boilerbench.extractors.sharing import sharing
from boilerbench.reports.tables import Table
from studies.model_validation import planned_model


def contributions(selector: Selector, X: np.ndarray) -> np.ndarray:
    """Per row, each feature's SHAP value in log-odds, then the bias (the trees' ``pred_contrib``);
    zeros but a bias of the constant's log-odds for a selector that learnt a constant."""
    X = np.atleast_2d(X)
    if selector.text is None:
        constant = np.clip(selector.constant, 1e-6, 1 - 1e-6)
        out = np.zeros((len(X), X.shape[1] + 1))
        out[:, -1] = np.log(constant / (1 - constant))
        return out
    lgb = import_optional("lightgbm", "lightgbm", 'install it with: pip install -e ".[stack]"')
    return np.asarray(lgb.Booster(model_str=selector.text).predict(X, pred_contrib=True))


def explain(arbiter: Arbiter, pages: Sequence[Page]) -> tuple[pd.DataFrame, pd.DataFrame]:
    """Per page: its probability, the side chosen and each feature's value and contribution; and
    per feature: its mean value, its mean contribution (signed: towards the alternative above 0)
    and its mean magnitude over the pages, by which they are ranked."""
    rows = []
    for page in pages:
        with sharing(page):
            ours, theirs = arbiter.base.extract(page), extract_or_empty(arbiter.alternative, page)
        rows.append(arbiter_features(page, ours, theirs))
        page.release()
    X = np.array(rows).reshape(len(rows), len(FEATURES))
    probability = arbiter.selector_.probability(X)
    contribution = contributions(arbiter.selector_, X)
    per_page = pd.DataFrame(
        {
            "page": [p.id for p in pages],
            "probability": probability,
            "choice": np.where(probability > arbiter.threshold_, "alternative", "base"),
            **{f"{f} value": X[:, i] for i, f in enumerate(FEATURES)},
            **{f"{f} share": contribution[:, i] for i, f in enumerate(FEATURES)},
        }
    )
    shares = contribution[:, : len(FEATURES)]
    per_feature = pd.DataFrame(
        {
            "feature": FEATURES,
            "mean value": pd.DataFrame(X).mean().to_numpy(),
            "mean share": shares.mean(axis=0),
            "mean |share|": np.abs(shares).mean(axis=0),
        }
    )
    return per_page, per_feature.sort_values("mean |share|", ascending=False, kind="stable").reset_index(drop=True)


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--pages", required=True, help="the test pages whose id contains this text")
    parser.add_argument("overrides", nargs="+", help="the run's overrides, as python run.py takes them")
    args = parser.parse_args(argv)
    model, fit = planned_model(args.overrides, args.pages)
    if not isinstance(model, Arbiter):
        raise ConfigError(f"the overrides choose {type(model).__name__}, not an arbiter")
    pages = [p for p in fit.test if args.pages in str(p.id) and not p.load_error]
    if not pages:
        raise ConfigError(f"no test page of the run holds {args.pages!r} in its id")
    per_page, per_feature = explain(model, pages)
    print(f"fold {fit.fold}: {len(pages)} pages, threshold {model.threshold_}")
    shown = per_page[["page", "probability", "choice"]].assign(probability=per_page["probability"].round(3))
    print(Table("pages", "The selector on each page", shown, "").markdown())
    rounded = per_feature.assign(**{c: per_feature[c].round(3) for c in ("mean value", "mean share", "mean |share|")})
    note = "mean share: the feature's mean SHAP value over the pages, in log-odds of the alternative; |share|: its size"
    print(Table("features", "What drove the choice", rounded, note).markdown())
    return 0


if __name__ == "__main__":
    run_main(main)
