"""One parse per page shared by a stack's members: are their outputs unchanged, and what does it save?

For each page and each member (trafilatura, readability, jusText, boilerpipe), the member's text
as its adapter computed it before sharing (the library's own string entry point: trafilatura's
``extract(html)``, readability's ``Document(html, url=url)``, ``justext.justext(html)``,
boilerpy3 on lxml's serialisation of the page's tree) against the adapter's text inside a shared
scope (:func:`boilerbench.extractors.sharing.sharing`, as a stack's vote runs them): every page
whose text differs is listed. Then the time of both ways, in the same run, page by page in turns
(which way goes first alternates from page to page: the second meets the page in the CPU's
caches), ``--repeats`` rounds, the minimum round kept; the shared tree's parse is timed on its own (it is
paid once per page, by whichever member asks first), and every figure is also a ratio of
trafilatura's own time on the same pages (``trafilatura.extract(html)``).

With ``--stack``, the whole stack (the shipped model) with issue 37's changes on and off in the
same process, page by page in ABBA order: off is the shared tree not shared (each member parses
the string), boilerpy3 given lxml's serialisation, readability always given the URL and LightGBM
on OpenMP's default threads, as before them. Separate processes cannot compare them on the
shared machine: the same run's time moved from 144 to 252 ms a page from one minute to the next.

    BOILERBENCH_DATA=/work/shared/datasets PYTHONPATH=. python studies/speed_shared_parse.py
        [--dataset wcxb] [--part all] [--limit 400] [--timed 60] [--repeats 3] [--stack]
"""

from __future__ import annotations

import argparse
import time
from collections.abc import Callable

import numpy as np
from lxml import etree
from speed_pages import fresh, load_pages

from boilerbench.datasets.page import Page
from boilerbench.extractors.references import Boilerpipe, JusText, Readability, Trafilatura
from boilerbench.extractors.references.lxml_tree import html_tree
from boilerbench.extractors.sharing import sharing


def before(members: dict) -> dict[str, Callable[[Page], str]]:
    """Each member's text as its adapter computed it before the shared parse."""
    traf, read, just, boil = (members[k] for k in ("trafilatura", "readability", "justext", "boilerpipe"))

    def trafilatura(page: Page) -> str:
        return traf._lib.extract(page.html, url=page.url, include_comments=False, include_tables=True) or ""

    def readability(page: Page) -> str:
        from boilerbench.datasets.blocks import segment

        return segment(read._lib.Document(page.html, url=page.url).summary(html_partial=True)).join()

    def justext(page: Page) -> str:
        name = just.stoplist_for(page)
        lib = just._lib
        if name == "none":
            paragraphs = lib.justext(page.html, frozenset(), stopwords_low=0, stopwords_high=0)
        else:
            paragraphs = lib.justext(page.html, lib.get_stoplist(name))
        return "\n".join(p.text for p in paragraphs if not p.is_boilerplate)

    def boilerpipe(page: Page) -> str:
        root = page.blocks.root
        html = etree.tostring(root, method="html", encoding="unicode") if root is not None else ""
        return boil._lib.ArticleExtractor(raise_on_failure=True).get_content(html)

    return {"trafilatura": trafilatura, "readability": readability, "justext": justext, "boilerpipe": boilerpipe}


def outcome(fn: Callable[[Page], str], page: Page) -> str:
    """The text, or the error's type (a failure must stay a failure)."""
    try:
        return fn(page) or ""
    except Exception as err:  # noqa: BLE001 - compared, not hidden
        return f"<error {type(err).__name__}>"


def check(members: dict, old: dict, pages: list[Page]) -> None:
    """Pages whose text differs between the two ways, per member."""
    differ: dict[str, list[str]] = {name: [] for name in members}
    for page in pages:
        page = fresh(page)
        _ = page.blocks
        with sharing(page):
            now = {name: outcome(m._text, page) for name, m in members.items()}
        for name in members:
            if outcome(old[name], page) != now[name]:
                differ[name].append(page.id)
        page.release()
    print(f"identical text on {len(pages)} pages:")
    for name, ids in differ.items():
        print(f"  {name:<12} {len(pages) - len(ids)} of {len(pages)}{f'; differ: {ids[:10]}' if ids else ''}")


def clock(total: dict[str, float], key: str, fn: Callable[[Page], object], page: Page) -> None:
    """Add the seconds of ``fn(page)`` to ``total[key]`` (a failing page counts its time)."""
    start = time.perf_counter()
    try:
        fn(page)
    except Exception:  # noqa: BLE001, S110 - timed, not hidden: check() lists failures
        pass
    total[key] = total.get(key, 0.0) + time.perf_counter() - start


def timing(members: dict, old: dict, pages: list[Page], repeats: int) -> None:
    """Milliseconds per page of each member both ways (min over rounds), and of the shared parse."""
    rounds: dict[str, list[float]] = {}
    for _ in range(repeats):
        total: dict[str, float] = {}
        for k, page in enumerate(pages):
            page = fresh(page)
            _ = page.blocks, page.blocks.detected_language
            for shared_first in (k % 2 == 1, k % 2 == 0):  # ABBA: neither way always runs on a warm cache
                if shared_first:
                    with sharing(page):
                        clock(total, "shared parse", html_tree, page)
                        for name, member in members.items():
                            clock(total, f"{name} shared", member._text, page)
                else:
                    for name in members:
                        clock(total, f"{name} before", old[name], page)
        for key, seconds in total.items():
            rounds.setdefault(key, []).append(1000 * seconds / len(pages))
    best = {key: min(values) for key, values in rounds.items()}
    reference = best["trafilatura before"]
    print(f"ms per page on {len(pages)} pages (min of {repeats} rounds; x = share of trafilatura's own time):")
    for name in members:
        a, b = best[f"{name} before"], best[f"{name} shared"]
        print(
            f"  {name:<12} before {a:7.2f} ({a / reference:.3f}x)  shared {b:7.2f} ({b / reference:.3f}x)  "
            f"saves {a - b:6.2f}"
        )
    parse = best["shared parse"]
    saved = sum(best[f"{n} before"] - best[f"{n} shared"] for n in members) - parse
    print(f"  shared parse {parse:7.2f} ({parse / reference:.3f}x), paid once per page")
    print(f"  net saving per page {saved:.2f} ms ({saved / reference:.3f}x trafilatura's time)")
    print(f"  rounds: { {k: [round(v, 2) for v in vs] for k, vs in rounds.items()} }")


def switch(stack, on: bool) -> None:
    """Issue 37's changes on, or off (as before them: see the module docstring)."""
    import contextlib
    import re

    import boilerbench.extractors.members as members_module
    import boilerbench.extractors.references.boilerpipe as boilerpipe_module
    import boilerbench.extractors.references.readability as readability_module

    saved = switch.__dict__.setdefault(
        "saved",
        (members_module.sharing, boilerpipe_module.replay_tree, readability_module._IFRAME, type(stack)._predict),
    )

    def not_replayed(*_):
        raise boilerpipe_module.TreeNotReplayable("off")

    def default_threads(self, model, rows, compiled=False):
        return model.predict(rows, num_iteration=model.best_iteration or None) if len(rows) else np.zeros(0)

    if on:
        members_module.sharing, boilerpipe_module.replay_tree, readability_module._IFRAME, type(stack)._predict = saved
    else:
        members_module.sharing = lambda page: contextlib.nullcontext()
        boilerpipe_module.replay_tree = not_replayed
        readability_module._IFRAME = re.compile("")
        type(stack)._predict = default_threads


def stack_ab(pages: list[Page]) -> None:
    """The stack's ms per page with the changes on and off, ABBA, and trafilatura's."""
    from boilerbench.api import load_model

    stack, reference = load_model().extractor, Trafilatura()
    pages = [p for p in pages if len(p.html) <= reference.max_html_chars]
    total = {"on": 0.0, "off": 0.0, "trafilatura": 0.0}
    for on in (True, False):  # warm-up of both
        switch(stack, on)
        stack.extract(fresh(pages[0]))
    for k, page in enumerate(pages):
        for on in (True, False) if k % 2 == 0 else (False, True):
            switch(stack, on)
            clock(total, "on" if on else "off", stack.extract, fresh(page))
        clock(total, "trafilatura", reference.extract, fresh(page))
    switch(stack, True)
    n, ref = len(pages), total["trafilatura"]
    on, off = total["on"], total["off"]
    print(
        f"{n} pages, stack with the changes {1000 * on / n:.1f} ms/page ({on / ref:.2f}x trafilatura), "
        f"without {1000 * off / n:.1f} ({off / ref:.2f}x), trafilatura {1000 * ref / n:.1f}; "
        f"saving {1000 * (off - on) / n:.1f} ms/page = {(off - on) / ref:.3f}x trafilatura"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--dataset", default="wcxb")
    parser.add_argument("--part", default="all")
    parser.add_argument("--limit", type=int, default=400, help="pages whose outputs are compared")
    parser.add_argument("--timed", type=int, default=60, help="of those, pages timed")
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--no-check", action="store_true")
    parser.add_argument("--stack", action="store_true", help="the whole stack with the changes on and off")
    args = parser.parse_args()
    pages = load_pages(args.dataset, args.part, args.limit)
    if args.stack:
        stack_ab(pages)
        return
    members = {
        "trafilatura": Trafilatura(),
        "readability": Readability(),
        "justext": JusText(),
        "boilerpipe": Boilerpipe(),
    }
    old = before(members)
    if not args.no_check:
        check(members, old, pages)
    if args.timed:
        timing(members, old, pages[: args.timed], args.repeats)


if __name__ == "__main__":
    main()
