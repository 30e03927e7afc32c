"""Render a page in headless Chromium and read back each element's box and font (the ``render`` extra).

FIASCO's visual features came from a modified Firefox that drew the minimal bounding rectangle
of every block (papers/002); here Debian's ``chromium`` lays the page out and a JavaScript
snippet returns, for every element, its bounding box (x, y, width, height in CSS pixels, at a
1280 x 1024 window), computed font size (px) and weight, and whether it is rendered at all.

Elements are matched by construction, not by guessing: the page's own lxml tree is copied, each
element gets a ``data-bb`` attribute holding its index in document order (``root.iter()``), and
that serialisation is what Chromium parses. A layout is a float array of shape
``(n_elements, 7)`` indexed like ``root.iter()``; rows of elements Chromium did not lay out
(dropped or re-parented by its parser, inside ``head``) are NaN.

Offline and deterministic: the page is loaded from a temporary file with JavaScript disabled
(``Emulation.setScriptExecutionDisabled``), every http(s)/ws request is blocked
(``Network.setBlockedURLs``) and every host name resolves to nothing
(``--host-resolver-rules``), so nothing leaves the machine and a page renders the same twice.
One browser per process is started on first use (Selenium with the system chromedriver, never
a downloaded driver) and restarted after a failure. Layouts are cached on disk
(:func:`boilerbench.cache.cached_array`) keyed by the annotated HTML, this module's code version
and the Chromium version, so each page is rendered once. A page that cannot be rendered (no
browser, a timeout, a crash) raises :class:`RenderError`; callers fall back and record it.
"""

from __future__ import annotations

import atexit
import copy
import logging
import os
import shutil
import subprocess
import tempfile
import threading
from pathlib import Path

import numpy as np
from lxml import etree

from boilerbench.cache import cached_array, code_version, content_key
from boilerbench.errors import import_optional

log = logging.getLogger(__name__)

#: columns of a layout row: the bounding box, font, whether rendered, and the line boxes of the
#: element's content (``Range.getClientRects``): their summed area, how many, and the mean
#: distance of their corners from the box centre
COLUMNS = ("x", "y", "width", "height", "font_size", "font_weight", "visible", "rect_area", "n_rects", "corner_dist")
WINDOW = (1280, 1024)
CHROMIUM = "/usr/bin/chromium"
CHROMEDRIVER = "/usr/bin/chromedriver"
FLAGS = (
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--disable-extensions",
    "--disable-dev-shm-usage",
    "--host-resolver-rules=MAP * ~NOTFOUND",
    f"--window-size={WINDOW[0]},{WINDOW[1]}",
)

_JS = """
const out = [];
const range = document.createRange();
for (const el of document.querySelectorAll('[data-bb]')) {
  const r = el.getBoundingClientRect();
  const s = window.getComputedStyle(el);
  const shown = s.display !== 'none' && s.visibility !== 'hidden' && (r.width > 0 || r.height > 0);
  range.selectNodeContents(el);
  let area = 0, n = 0, dist = 0;
  const cx = r.left + r.width / 2, cy = r.top + r.height / 2;
  for (const q of range.getClientRects()) {
    if (q.width <= 0 || q.height <= 0) continue;
    area += q.width * q.height; n += 1;
    for (const [x, y] of [[q.left, q.top], [q.right, q.top], [q.left, q.bottom], [q.right, q.bottom]]) {
      dist += Math.hypot(x - cx, y - cy) / 4;
    }
  }
  out.push([+el.getAttribute('data-bb'), r.left + window.scrollX, r.top + window.scrollY, r.width, r.height,
            parseFloat(s.fontSize) || 0, parseInt(s.fontWeight) || 400, shown ? 1 : 0,
            area, n, n ? dist / n : 0]);
}
return out;
"""


class RenderError(RuntimeError):
    """Chromium could not render the page (not installed, timed out, crashed)."""


def annotated_html(root: etree._Element) -> tuple[str, int]:
    """A copy of ``root`` serialised as HTML with ``data-bb`` = document-order index on every
    element, and the number of elements (the layout's rows)."""
    clone = copy.deepcopy(root)
    n = 0
    for el in clone.iter():
        if isinstance(el.tag, str):
            el.set("data-bb", str(n))
        n += 1
    return etree.tostring(clone, method="html", encoding="unicode"), n


class Renderer:
    """One headless Chromium (lazily started, reused, restarted after a failure)."""

    def __init__(self, chromium: str = CHROMIUM, chromedriver: str = CHROMEDRIVER, timeout_s: float = 30.0) -> None:
        self.chromium = chromium
        self.chromedriver = chromedriver
        self.timeout_s = timeout_s
        self._driver = None
        self._profile: str | None = None
        self._version: str | None = None
        self._lock = threading.Lock()

    def version(self) -> str:
        """``chromium --version`` (part of the layout cache key; asked once)."""
        if self._version is None:
            try:
                out = subprocess.run(
                    [self.chromium, "--version"], capture_output=True, text=True, timeout=30, check=True
                )
            except (OSError, subprocess.SubprocessError) as err:
                raise RenderError(f"cannot run {self.chromium}: {err}") from err
            self._version = out.stdout.strip()
        return self._version

    def _start(self):
        if not (os.path.exists(self.chromium) and os.path.exists(self.chromedriver)):
            raise RenderError(
                f"Chromium not found ({self.chromium}, {self.chromedriver}): apt-get install chromium chromium-driver"
            )
        webdriver = import_optional("selenium.webdriver", "selenium", 'pip install -e ".[render]"')
        self._profile = tempfile.mkdtemp(prefix="bb-chromium-")
        options = webdriver.ChromeOptions()
        options.binary_location = self.chromium
        for flag in (*FLAGS, f"--user-data-dir={self._profile}"):
            options.add_argument(flag)
        service = webdriver.ChromeService(executable_path=self.chromedriver)
        driver = webdriver.Chrome(options=options, service=service)
        driver.set_page_load_timeout(self.timeout_s)
        driver.set_script_timeout(self.timeout_s)
        driver.execute_cdp_cmd("Network.enable", {})
        driver.execute_cdp_cmd(
            "Network.setBlockedURLs", {"urls": ["http://*", "https://*", "ws://*", "wss://*", "ftp://*"]}
        )
        driver.execute_cdp_cmd("Emulation.setScriptExecutionDisabled", {"value": True})
        return driver

    def close(self) -> None:
        """Quit the browser and delete its profile."""
        if self._driver is not None:
            try:
                self._driver.quit()
            except Exception as err:  # a crashed browser cannot be quit cleanly; it is gone anyway
                log.debug("chromium quit: %s", err)
            self._driver = None
        if self._profile:
            shutil.rmtree(self._profile, ignore_errors=True)
            self._profile = None

    def layout(self, html: str, n_elements: int) -> np.ndarray:
        """Render annotated ``html`` and return its ``(n_elements, 7)`` layout (NaN rows for
        elements not laid out)."""
        with self._lock, tempfile.TemporaryDirectory(prefix="bb-page-") as tmp:
            path = Path(tmp) / "page.html"
            path.write_text(html, encoding="utf-8")
            try:
                driver = self._driver if self._driver is not None else self._start()
                self._driver = driver
                driver.get(path.as_uri())
                rows = driver.execute_script(_JS)
            except RenderError:
                raise
            except Exception as err:  # timeouts, crashes, lost sessions: restart next time
                self.close()
                raise RenderError(f"{type(err).__name__}: {str(err).splitlines()[0] if str(err) else ''}") from err
        out = np.full((n_elements, len(COLUMNS)), np.nan)
        for index, *values in rows:
            if 0 <= index < n_elements:
                out[int(index)] = values
        return out


_renderers: dict[tuple[str, str, float], Renderer] = {}


def renderer(chromium: str = CHROMIUM, chromedriver: str = CHROMEDRIVER, timeout_s: float = 30.0) -> Renderer:
    """The process's renderer for these settings (created once, closed at exit)."""
    key = (chromium, chromedriver, timeout_s)
    if key not in _renderers:
        _renderers[key] = Renderer(chromium, chromedriver, timeout_s)
    return _renderers[key]


@atexit.register
def _close_all() -> None:
    for r in _renderers.values():
        r.close()


def page_layout(root: etree._Element, chromium: str = CHROMIUM, timeout_s: float = 30.0) -> np.ndarray:
    """The layout of the page whose lxml tree is ``root`` (rows indexed like ``root.iter()``),
    rendered once and cached on disk; raises :class:`RenderError` when it cannot be rendered."""
    html, n = annotated_html(root)
    r = renderer(chromium, CHROMEDRIVER, timeout_s)
    version = f"{code_version(__name__, 'selenium')}-{content_key(r.version())[:12]}"
    return cached_array("layout", version, (html,), lambda: r.layout(html, n))
