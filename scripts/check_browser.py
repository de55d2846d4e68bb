"""Open every page of the built site in headless Chromium, as a reader would (`make browser-check`).

    python scripts/check_browser.py [HTML_DIR]   # default: _build/check/html, the strict build's

Serves the site on 127.0.0.1 and opens each page in Debian's ``chromium`` driven by
playwright's Python API (``executable_path``: no browser download, nothing leaves the
machine). Rules, each named in its messages:

request      a request to another host (blocked), a failed local request, an HTTP error
console      a console error or an uncaught script error
math         a formula MathJax did not typeset (no mjx-container), or typeset as an error
image        an image that did not load, or without alt text
link         an internal link to a missing page, or to an anchor that page lacks
solution     a closed solution whose code or output is visible before it is opened, or
             not visible after a click on it
code-width   code (a <pre>) wider than its column, so that it scrolls sideways
fit          an equation, a table, a figure or code cut by its box, or running past the
             column, at 1280 px and again at a phone's 390 px; at 1280 px also one wider
             than the column that scrolls in its own box; a pandas table whose cells end
             in "..." (scripts/browser_checks/_layout.py)
contents     the header's button opens the page's contents, at 1280 px and on a phone
             (scripts/browser_checks/contents.py)
slant        Chinese text set in italics (an <em> or <i> holding CJK whose computed
             font-style is not normal): Chinese fonts have no italic, the browser shears
             the glyphs; the Chinese edition sets emphasis with 着重号 (editions.py)
tofu         a CJK character drawn as the "missing glyph" box, anywhere on the page (text,
             the switch link, the sidebar, a search box's placeholder, a copy button's
             tooltip, the live translator's status once it has started, a solution once
             opened): rendered on a canvas in the element's own font, it is pixel-identical
             to an unassigned code point inside the web font's range (U+2FE0) or outside
             it (U+0378) (TOFU_JS); or a run of CJK characters laid out narrower or wider
             than that font draws it (a box of another width: text laid out before the web
             font arrived and never again, as in the sidebar of a page opened from file://)

Chromium runs as on a reader's machine without CJK fonts: a fontconfig file that rejects
every font covering Chinese or Japanese (NO_CJK_FONTS), so the site's web font must draw
every CJK character. A screenshot of every page goes to _build/screenshots/: its first
screen, or the whole page with --full-screenshots. Both editions are checked: the Chinese
one is the site's zh/ folder. Without
chromium (or playwright) the check says it was skipped and exits 0, unless ``CI`` is set:
then it fails.
"""
from __future__ import annotations

import argparse
import functools
import http.server
import os
import shutil
import sys
import threading
import time
from pathlib import Path
from urllib.parse import unquote, urldefrag, urljoin, urlparse

# torch computes the live translator's Python references inside a worker process, beside
# WORKERS Chromiums. Its OpenMP threads spin while they wait for work; on a busy CPU a
# spinning thread takes the core from the thread it waits for. Measured in a fresh clone's
# make test (2 cores): those references took 145 s spinning, against 3 s when the stage ran
# its interactive checks alone. Told to sleep while they wait (no change to any result:
# the same threads split the same work), before anything here imports torch:
os.environ.setdefault("OMP_WAIT_POLICY", "PASSIVE")

ROOT = Path(__file__).resolve().parent.parent
CHROMIUM = "/usr/bin/chromium"
ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
        "--disable-background-networking", "--disable-component-update", "--disable-sync"]
SCREENSHOTS = ROOT / "_build" / "screenshots"
# The system's fonts less those for Chinese or Japanese (FONTCONFIG_FILE of the browser).
NO_CJK_FONTS = """<?xml version="1.0"?>
<!DOCTYPE fontconfig SYSTEM "urn:fontconfig:fonts.dtd">
<fontconfig>
  <include ignore_missing="yes">/etc/fonts/fonts.conf</include>
  <selectfont><rejectfont>
    <pattern><patelt name="lang"><string>zh-cn</string></patelt></pattern>
    <pattern><patelt name="lang"><string>zh-tw</string></patelt></pattern>
    <pattern><patelt name="lang"><string>ja</string></patelt></pattern>
  </rejectfont></selectfont>
</fontconfig>
"""

# Tofu, in the page as it is now: every CJK character drawn (text, an input's placeholder,
# a tooltip) in its element's font, compared with code points no font has. The browser
# draws a missing glyph with the .notdef box of a font it tried: the web font's for a code
# point inside its unicode-range (CJK), another font's outside it, so the reference is one
# unassigned code point of each kind (U+2FE0 and U+0378): against U+0378 alone, a CJK
# character the web font lacks ("阅" of the English pages' switch link) drew a different
# box and passed. Also each run of CJK text laid out narrower or wider than its font draws
# it (laid out before the web font arrived).
TOFU_JS = r"""
async (within) => {
  const cjk = /[\u2e80-\u9fff\uf900-\ufaff\uff00-\uffef]/g;
  const cjkRun = /[\u2e80-\u9fff\uf900-\ufaff\uff00-\uffef]+/g;
  const canvas = document.createElement('canvas'); canvas.width = 64; canvas.height = 64;
  const ctx = canvas.getContext('2d', {willReadFrequently: true});
  const draw = (font, ch) => { ctx.clearRect(0, 0, 64, 64); ctx.font = font;
    ctx.fillText(ch, 4, 48); return ctx.getImageData(0, 0, 64, 64).data.join(','); };
  const seen = new Set(), boxes = {}, tofu = [];
  const missing = async (text, s, where) => {
    const chars = text.match(cjk); if (!chars) return;
    const font = `${s.fontStyle} ${s.fontWeight} 40px ${s.fontFamily}`;
    boxes[font] ??= [draw(font, '\u0378'), draw(font, '\u2fe0')];
    for (const ch of new Set(chars)) {
      const key = font + ch; if (seen.has(key)) continue; seen.add(key);
      await document.fonts.load(font, ch);
      if (boxes[font].includes(draw(font, ch))) tofu.push(`${ch}${where} in ${s.fontFamily}`);
    }
  };
  // The whole page, or only the elements that match the selector ``within``.
  const roots = within ? [...document.querySelectorAll(within)] : [document.body];
  for (const root of roots) {
    const walker = document.createTreeWalker(root, NodeFilter.SHOW_TEXT);
    while (walker.nextNode()) {
      const node = walker.currentNode;
      // Only what is drawn: not MathJax's hidden copy for screen readers, not hidden text.
      if (!node.textContent.match(cjk) || !node.parentElement
          || node.parentElement.closest('mjx-assistive-mml')
          || !node.parentElement.getClientRects().length) continue;
      const s = getComputedStyle(node.parentElement);
      await missing(node.textContent, s, ` of "${node.textContent.trim().slice(0, 40)}"`);
      // The layout: each run of CJK characters as wide on the page as the font draws it.
      ctx.font = `${s.fontStyle} ${s.fontWeight} ${s.fontSize} ${s.fontFamily}`;
      for (const run of node.textContent.matchAll(cjkRun)) {
        // SVG text (an explorer's axis title) may be rotated: its boxes are then as wide as
        // a line is high, so ask the text's own length along its line.
        const el = node.parentElement;
        const range = document.createRange();
        range.setStart(node, run.index); range.setEnd(node, run.index + run[0].length);
        const laid = el instanceof SVGTextContentElement && el.childNodes.length === 1
          ? el.getSubStringLength(run.index, run[0].length)
          : [...range.getClientRects()].reduce((sum, r) => sum + r.width, 0);
        const drawn = ctx.measureText(run[0]).width;
        const loose = s.textAlign.startsWith('justify') || s.letterSpacing !== 'normal';
        if (laid < 0.95 * drawn - 0.5 || (!loose && laid > 1.05 * drawn + 0.5))
          tofu.push(`${run[0]} laid out ${laid.toFixed(1)} px wide, its font draws it ` +
                    `${drawn.toFixed(1)} px (laid out without the web font) in ${s.fontFamily}`);
      }
    }
    // Words drawn from attributes: a search box's placeholder, a copy button's tooltip.
    for (const el of root.querySelectorAll('[placeholder]'))
      if (el.getClientRects().length) await missing(el.placeholder,
        getComputedStyle(el, '::placeholder'), ` (placeholder of <${el.localName}>)`);
    for (const el of root.querySelectorAll('[data-tooltip]'))
      await missing(el.dataset.tooltip, getComputedStyle(el, '::after'),
                    ` (tooltip of <${el.localName}>)`);
  }
  return tofu;
}
"""

# Runs in the page once it has loaded: what the rules need, as plain data.
INSPECT_JS = r"""
async () => {
  if (window.MathJax && MathJax.startup && MathJax.startup.promise) {
    await MathJax.startup.promise;
  }
  // The live translator writes its status once its scripts have started.
  if (window.liveTranslator) await window.liveTranslator.ready;
  await document.fonts.ready;
  const math = [...document.querySelectorAll('.math')].map(m => ({
    typeset: !!m.querySelector('mjx-container'), error: !!m.querySelector('mjx-merror'),
    text: m.textContent.slice(0, 60)}));
  const images = [...document.querySelectorAll('img')].map(i => ({
    src: i.getAttribute('src'), loaded: i.complete && i.naturalWidth > 0,
    alt: (i.getAttribute('alt') || '').trim()}));
  const links = [...document.querySelectorAll('a[href]')].map(a => a.getAttribute('href'));
  const ids = [...document.querySelectorAll('[id]')].map(e => e.id)
      .concat([...document.querySelectorAll('a[name]')].map(a => a.name));
  const tofu = await (TOFU_JS)();
  // Code that runs off its column: a <pre> wider than its box (scrolls sideways).
  const wide = [...document.querySelectorAll('pre')]
      .filter(p => p.getClientRects().length && p.scrollWidth > p.clientWidth + 1)
      .map(p => p.textContent.split('\n').reduce((a, b) => (b.length > a.length ? b : a))
                 .slice(0, 60));
  // Chinese in italics: an emphasis holding CJK that the browser would shear.
  const slanted = [...document.querySelectorAll('em, i')]
      .filter(e => /[\u2e80-\u9fff\uf900-\ufaff]/.test(e.textContent)
                   && getComputedStyle(e).fontStyle !== 'normal')
      .map(e => e.textContent.slice(0, 40));
  return {math, images, links, ids, tofu, wide, slanted};
}
""".replace("TOFU_JS", TOFU_JS.strip())


# ---------------------------------------------------------------- pure logic
def is_redirect(html: str) -> bool:
    """A page that only forwards the reader elsewhere (Jupyter Book's index.html)."""
    return 'http-equiv="refresh"' in html.lower() and "<body" not in html.lower()


def html_pages(html_dir: Path) -> list[str]:
    """Every page of the site but redirects, as paths relative to ``html_dir``."""
    return sorted(p.relative_to(html_dir).as_posix() for p in html_dir.rglob("*.html")
                  if not any(part.startswith("_") for part in p.relative_to(html_dir).parts)
                  and not is_redirect(p.read_text(encoding="utf-8", errors="replace")))


def is_local(url: str, origin: str) -> bool:
    """Whether ``url`` is served by our own server (or is inline data)."""
    return url.startswith((origin + "/", "data:", "blob:", "about:")) or url == origin


def link_target(href: str, page: str) -> tuple[str, str] | None:
    """(page, anchor) an internal ``href`` on ``page`` points to; None for external links,
    mail, javascript and downloads of non-HTML files."""
    parsed = urlparse(href)
    if parsed.scheme or parsed.netloc or href.startswith(("mailto:", "javascript:")):
        return None
    url, anchor = urldefrag(urljoin("/" + page, href))
    path = unquote(url).lstrip("/") or "index.html"
    if path.endswith("/"):
        path += "index.html"
    if not path.endswith(".html"):
        return None
    return path, unquote(anchor)


def link_problems(page: str, links: list[str], ids_by_page: dict, html_dir: Path) -> list[str]:
    """Internal links of ``page`` to a missing page, or to an anchor the target lacks."""
    problems = []
    for href in sorted(set(links)):
        target = link_target(href, page)
        if target is None:
            continue
        path, anchor = target
        if path not in ids_by_page and not (html_dir / path).exists():
            problems.append(f"{page}: link: {href} -> no page {path}")
        elif anchor and path in ids_by_page and anchor not in ids_by_page[path]:
            problems.append(f"{page}: link: {href} -> {path} has no anchor #{anchor}")
    return problems


def page_problems(page: str, found: dict) -> list[str]:
    """The math, image and tofu rules, from what INSPECT_JS found on ``page``."""
    problems = [f"{page}: math: not typeset: {m['text']!r}" for m in found["math"]
                if not m["typeset"]]
    problems += [f"{page}: math: MathJax error in {m['text']!r}" for m in found["math"]
                 if m["error"]]
    for image in found["images"]:
        if not image["loaded"]:
            problems.append(f"{page}: image: did not load: {image['src']}")
        if not image["alt"]:
            problems.append(f"{page}: image: no alt text: {image['src'][:80]}")
    problems += [f"{page}: tofu: {t}" for t in found["tofu"]]
    problems += [f"{page}: code-width: runs off its column (scrolls sideways): {w!r}"
                 for w in found.get("wide", [])]
    problems += [f"{page}: slant: Chinese set in italics (a sheared glyph): {s!r}"
                 for s in found.get("slanted", [])]
    return problems


# ---------------------------------------------------------------- the browser
class _Quiet(http.server.SimpleHTTPRequestHandler):
    def log_message(self, *args):
        pass


def serve(html_dir: Path):
    """An HTTP server for ``html_dir`` on 127.0.0.1 (a free port), in a thread."""
    handler = functools.partial(_Quiet, directory=str(html_dir))
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return server, f"http://127.0.0.1:{server.server_address[1]}"


def inspect(page) -> dict:
    """INSPECT_JS's findings; a page that redirects (index.html) is inspected where it lands."""
    from playwright.sync_api import Error

    try:
        return page.evaluate(INSPECT_JS)
    except Error as err:
        if "navigation" not in str(err):
            raise
        page.wait_for_load_state("load")
        return page.evaluate(INSPECT_JS)


# Each closed solution's box: whether any of its code or output is visible now.
SOLUTIONS_SHOWN_JS = """() => [...document.querySelectorAll('.solution.dropdown, details.solution')]
  .map(box => [...box.querySelectorAll('.cell_input, .cell_output, pre')])
  .filter(inner => inner.length)
  .map(inner => inner.some(el => { const r = el.getBoundingClientRect();
    return r.width > 0 && r.height > 0 && getComputedStyle(el).visibility !== 'hidden'; }))"""


def check_solutions(page, name: str) -> list[str]:
    """Closed solutions (sphinx-exercise's dropdown, folded by sphinx-togglebutton) hide
    their code and output until their title is clicked, then show them. All are checked
    closed, all clicked, then all waited for at once (no fixed pause per solution)."""
    before = page.evaluate(SOLUTIONS_SHOWN_JS)
    if not before:
        return []
    problems = [f"{name}: solution: solution {i + 1} shows code before it is opened"
                for i, shown in enumerate(before) if shown]
    boxes = [box for box in page.query_selector_all(".solution.dropdown, details.solution")
             if box.query_selector(".cell_input, .cell_output, pre")]
    for i, box in enumerate(boxes):
        if before[i]:
            continue
        # Click where a reader does: on the words of the title ("Solution to Exercise 4.1",
        # a link inside it), not on the small chevron button at its end.
        title = box.query_selector(".admonition-title") or box.query_selector("summary")
        if title is None:
            problems.append(f"{name}: solution: solution {i + 1} has no title to click")
            continue
        words, frame = title.query_selector("a, span"), title.bounding_box()
        spot = words.bounding_box() if words else None
        if spot and frame:
            title.click(position={"x": spot["x"] - frame["x"] + spot["width"] / 2,
                                  "y": spot["y"] - frame["y"] + spot["height"] / 2})
        else:
            title.click()
    closed = [i for i, shown in enumerate(before) if not shown]
    try:  # the toggles' transitions: until every clicked solution shows its code
        page.wait_for_function(f"() => {{ const s = ({SOLUTIONS_SHOWN_JS})(); "
                               f"return {closed}.every(i => s[i]); }}", timeout=3000)
    except Exception:  # noqa: BLE001 - a timeout: name the ones still closed, below
        pass
    after = page.evaluate(SOLUTIONS_SHOWN_JS)
    problems += [f"{name}: solution: solution {i + 1} shows no code once opened"
                 for i in closed if not after[i]]
    return problems


def open_page(context, origin: str, name: str, log: list[str]):
    """A new page in ``context`` that logs (in ``log``, as ``name: rule: ...``) every request
    to another host (the browser blocks it: :func:`launch`), console error, uncaught error,
    failed local request and HTTP error. Not yet navigated:
    ``page.goto(f"{origin}/{name}")``."""
    page = context.new_page()
    page.on("request", lambda r: not is_local(r.url, origin) and
            log.append(f"{name}: request: to another host: {r.url}"))
    page.on("console", lambda m: m.type == "error" and log.append(f"{name}: console: {m.text[:200]}"))
    page.on("pageerror", lambda e: log.append(f"{name}: console: uncaught {e}"))
    page.on("requestfailed", lambda r: is_local(r.url, origin) and
            log.append(f"{name}: request: failed {r.url} ({r.failure})"))
    page.on("response", lambda r: r.status >= 400 and
            log.append(f"{name}: request: HTTP {r.status} for {r.url}"))
    return page


# The longest interactive checks (about half a minute each on an idle machine, the others
# a few seconds): started first, so that they do not end last.
LONGEST = ("live_translator", "live_inputs", "explorers", "live_writer")


def interactive_checks():
    """The ``check(context, origin, html_dir) -> list[str]`` function of every module in
    scripts/browser_checks/, the LONGEST first, then in name order. Each opens its pages
    with :func:`open_page` and returns its problems as ``page: rule: message`` lines."""
    import importlib

    folder = Path(__file__).resolve().parent / "browser_checks"
    sys.path.insert(0, str(folder.parent))
    names = sorted(f.stem for f in folder.glob("[!_]*.py"))
    names = [n for n in LONGEST if n in names] + [n for n in names if n not in LONGEST]
    return [importlib.import_module(f"browser_checks.{name}").check for name in names]


@functools.cache
def nowhere() -> str:
    """A proxy that is not there: a port of 127.0.0.1 bound and never listened on, so that
    every connection to it is refused at once."""
    import socket

    sock = socket.socket()
    sock.bind(("127.0.0.1", 0))
    nowhere.socket = sock  # held until the process ends: the port stays ours
    return f"http://127.0.0.1:{sock.getsockname()[1]}"


def launch(playwright, origin: str | None = None):
    """Chromium as on a reader's machine without CJK fonts (NO_CJK_FONTS); playwright gives
    it a new empty profile (--user-data-dir) itself. With ``origin`` (our server), every
    request elsewhere, another host or another port of this one, goes through
    :func:`nowhere` and fails: nothing leaves the machine. (A ``page.route`` for every
    request did this before: a round trip to Python per request, a quarter of the CPU time
    of opening a page.)"""
    fonts = SCREENSHOTS.parent / "no-cjk-fonts.conf"
    fonts.parent.mkdir(parents=True, exist_ok=True)
    fonts.write_text(NO_CJK_FONTS, encoding="utf-8")
    guard = [f"--proxy-server={nowhere()}",
             f"--proxy-bypass-list=<-loopback>;{urlparse(origin).netloc}"] if origin else []
    return playwright.chromium.launch(executable_path=CHROMIUM, args=ARGS + guard,
                                      env={**os.environ, "FONTCONFIG_FILE": str(fonts)})


def check_fit(page, name: str) -> list[str]:
    """The ``fit`` rule (scripts/browser_checks/_layout.py) at 1280 and 390 px."""
    sys.path.insert(0, str(Path(__file__).resolve().parent))
    from browser_checks._layout import check_fit as fit

    return fit(page, name)


def check_page(context, origin: str, name: str, shots: Path, full: bool, seen: dict) -> list[str]:
    """Open page ``name`` in ``context`` and apply the page rules; ``seen[name]`` gets its
    ids and links for the link rule."""
    page_log: list[str] = []
    page = open_page(context, origin, name, page_log)
    page.goto(f"{origin}/{name}", wait_until="load")
    found = inspect(page)
    seen[name] = (set(found["ids"]), found["links"])
    target = shots / name.replace(".html", ".png")
    target.parent.mkdir(parents=True, exist_ok=True)
    # The first screen; whole pages on request (they took half a minute more).
    page.screenshot(path=str(target), full_page=full)
    problems = page_problems(name, found) + check_solutions(page, name)
    problems += check_fit(page, name)  # solutions open: their code is looked at too
    if page.query_selector(".solution"):  # their text, now shown: drawn?
        problems += [f"{name}: tofu: {t} (in an opened solution)"
                     for t in page.evaluate(TOFU_JS, ".solution")
                     if t not in found["tofu"]]
    page.close()
    return problems + page_log


# The work is a list of jobs, the interactive checks first (the LONGEST ones first), then
# each page. WORKERS processes, each with a Chromium of its own, take the next job until
# none is left: a job mostly waits (fonts, MathJax, a model in WebAssembly, a click's
# transition), and two readers then the interactive checks alone left two cores mostly
# idle (0.6 cores). Processes, not threads: in threads of one Python the live translator's
# own translations (torch, a Python loop per step) took 40 s instead of 3, queued behind
# the other threads for the interpreter's lock. make test's summary counts this stage at
# 0.6 cores, but the CPU time of Chromium's renderers does not reach that count (not every
# process up the chain is waited for): counted in a cgroup, the stage's processes used
# 394 CPU-s in 237 s (2 cores, shared), 251 of them opening the 58 pages (4.3 each).
WORKERS = 4


def _label(job) -> str:
    """A job's name in messages: its page, or its interactive check's module."""
    return job.keywords.get("name") or job.func.__module__


def _worker(work: list, jobs, results, seen: dict, origin: str) -> None:
    """In a worker process: run job ``work[i]`` (a function of a context) for each index
    ``i`` taken from ``jobs`` until a None, each in a new context of this process's
    Chromium; put (i, its problems, the ids and links it saw) in ``results``. A job that
    raises is a problem, named with its traceback."""
    import traceback

    from playwright.sync_api import sync_playwright

    with sync_playwright() as p:
        browser = launch(p, origin)
        try:
            while (index := jobs.get()) is not None:
                seen.clear()
                context = browser.new_context(viewport={"width": 1280, "height": 900})
                try:
                    problems = work[index](context)
                except Exception:  # noqa: BLE001 - reported, the other jobs go on
                    problems = [f"{_label(work[index])}: crashed: {traceback.format_exc()}"]
                finally:
                    context.close()
                results.put((index, problems, dict(seen)))
        finally:
            browser.close()


def _take(results, found: dict, seen: dict) -> bool:
    """One job's result from the workers' ``results`` queue into ``found`` (its problems,
    by job) and ``seen`` (ids and links, by page); False if none came within a second."""
    import queue

    try:
        index, problems, saw = results.get(timeout=1)
    except queue.Empty:
        return False
    found[index] = problems
    seen.update(saw)
    return True


def check_site(html_dir: Path, shots: Path, full: bool = False) -> list[str]:
    import multiprocessing

    server, origin = serve(html_dir)
    seen: dict = {}
    work = [functools.partial(check, origin=origin, html_dir=html_dir)
            for check in interactive_checks()]
    work += [functools.partial(check_page, origin=origin, name=name, shots=shots, full=full,
                               seen=seen) for name in html_pages(html_dir)]
    shutil.rmtree(shots, ignore_errors=True)
    mp = multiprocessing.get_context("fork")  # the workers inherit ``work`` as it is
    jobs, results = mp.Queue(), mp.Queue()
    for index in [*range(len(work)), *[None] * WORKERS]:
        jobs.put(index)
    workers = [mp.Process(target=_worker, args=(work, jobs, results, seen, origin))
               for _ in range(WORKERS)]
    found: dict[int, list[str]] = {}
    try:
        for worker in workers:
            worker.start()
        while len(found) < len(work) and any(w.is_alive() for w in workers):
            _take(results, found, seen)
        for worker in workers:
            worker.join()
    finally:
        server.shutdown()
    while len(found) < len(work) and _take(results, found, seen):
        pass  # the last results of workers that have just ended
    problems = [p for index in sorted(found) for p in found[index]]
    problems += [f"{_label(work[index])}: never finished (its worker died)"
                 for index in range(len(work)) if index not in found]
    ids_by_page = {name: ids for name, (ids, _) in seen.items()}
    for name in sorted(seen):
        problems += link_problems(name, seen[name][1], ids_by_page, html_dir)
    return problems


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("html", nargs="?", type=Path, default=ROOT / "_build" / "check" / "html",
                        help="the built site (default: the strict build's, _build/check/html; "
                        "make book's is _build/html)")
    parser.add_argument("--full-screenshots", action="store_true",
                        help="screenshots of whole pages, not only their first screen")
    args = parser.parse_args()
    try:
        import playwright  # noqa: F401
        missing = None if Path(CHROMIUM).exists() else f"{CHROMIUM} not found"
    except ImportError:
        missing = "playwright is not installed"
    if missing:
        if os.environ.get("CI"):
            print(f"browser check FAILED: {missing}, and CI is set (apt-get install -y chromium)")
            return 1
        print(f"browser check SKIPPED: {missing} (apt-get install -y chromium)")
        return 0
    if not (args.html / "index.html").exists():
        print(f"{args.html}/index.html not found: build the book first (make book-check, or "
              "make book and give _build/html)")
        return 1
    start = time.time()
    problems = check_site(args.html, SCREENSHOTS, full=args.full_screenshots)
    for problem in problems:
        print(problem)
    pages = len(html_pages(args.html))
    print(f"browser check: {pages} pages (index.html only redirects), {len(problems)} problems, screenshots in "
          f"{SCREENSHOTS.relative_to(ROOT)}/ ({time.time() - start:.0f} s)")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
