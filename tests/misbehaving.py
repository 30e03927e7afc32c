"""A test-only extractor that misbehaves on chosen pages: it kills its own process with SIGKILL
(a segfault in a C parser, the out-of-memory killer) or sleeps (a page that takes too long); on
the other pages it returns the page's text. Built directly, or from a command line with
``extractor._target_=misbehaving.Misbehaving`` (``tests/`` on ``PYTHONPATH``)."""

from __future__ import annotations

import os
import signal
import time

from boilerbench.datasets.page import Page
from boilerbench.extractors.base import BaseExtractor, Extraction


class Misbehaving(BaseExtractor):
    """Dies on the pages whose id contains ``die_on``, sleeps ``sleep_s`` seconds on those whose
    id contains ``sleep_on`` (an empty marker matches nothing)."""

    def __init__(self, die_on: str = "", sleep_on: str = "", sleep_s: float = 0.0) -> None:
        self.die_on = die_on
        self.sleep_on = sleep_on
        self.sleep_s = sleep_s

    def extract(self, page: Page) -> Extraction:
        if self.die_on and self.die_on in page.id:
            os.kill(os.getpid(), signal.SIGKILL)
        if self.sleep_on and self.sleep_on in page.id:
            time.sleep(self.sleep_s)
        return Extraction("\n".join(page.blocks.texts))
