"""The logic of scripts/check_browser.py (the whole site runs in `make browser-check`); the
tofu rule also on a small page of its own, where Chromium is installed."""
from __future__ import annotations

import importlib.util
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
spec = importlib.util.spec_from_file_location("check_browser", ROOT / "scripts" / "check_browser.py")
cb = importlib.util.module_from_spec(spec)
spec.loader.exec_module(cb)


def test_html_pages_skips_redirects_and_static(tmp_path):
    (tmp_path / "index.html").write_text('<meta http-equiv="Refresh" content="0; url=a.html" />')
    (tmp_path / "a.html").write_text("<html><body>a</body></html>")
    (tmp_path / "_static").mkdir()
    (tmp_path / "_static" / "b.html").write_text("<body></body>")
    (tmp_path / "ch").mkdir()
    (tmp_path / "ch" / "c.html").write_text("<body></body>")
    assert cb.html_pages(tmp_path) == ["a.html", "ch/c.html"]


def test_is_local():
    origin = "http://127.0.0.1:8000"
    assert cb.is_local(origin + "/x.css", origin) and cb.is_local("data:image/png;b", origin)
    assert not cb.is_local("https://unpkg.com/thebe", origin)
    assert not cb.is_local("http://127.0.0.1:8000.evil.com/x", origin)


def test_link_target_resolves_relative_links():
    assert cb.link_target("../appendix/api.html#x", "chapters/a.html") == ("appendix/api.html", "x")
    assert cb.link_target("#top", "chapters/a.html") == ("chapters/a.html", "top")
    assert cb.link_target("https://arxiv.org/abs/1706.03762", "intro.html") is None
    assert cb.link_target("../_sources/a.ipynb", "chapters/a.html") is None


def test_link_problems_finds_missing_pages_and_anchors(tmp_path):
    ids = {"a.html": {"top"}, "b.html": {"s1"}}
    links = ["b.html#s1", "b.html#gone", "c.html", "#top", "https://x.org"]
    problems = cb.link_problems("a.html", links, ids, tmp_path)
    assert problems == ["a.html: link: b.html#gone -> b.html has no anchor #gone",
                        "a.html: link: c.html -> no page c.html"]


def test_page_problems_names_each_rule():
    found = {"math": [{"typeset": False, "error": False, "text": "x"},
                      {"typeset": True, "error": True, "text": "y"}],
             "images": [{"src": "a.png", "loaded": False, "alt": "A plot."},
                        {"src": "b.png", "loaded": True, "alt": ""}],
             "tofu": ["人 in serif"], "wide": ["x = torch.zeros(...)"], "slanted": ["软"]}
    rules = [p.split(": ")[1] for p in cb.page_problems("p.html", found)]
    assert rules == ["math", "math", "image", "image", "tofu", "code-width", "slant"]
    clean = {"math": [{"typeset": True, "error": False, "text": "x"}],
             "images": [{"src": "a.png", "loaded": True, "alt": "A plot."}], "tofu": [],
             "wide": [], "slanted": []}
    assert cb.page_problems("p.html", clean) == []


def test_without_chromium_skips_on_a_laptop_and_fails_on_ci(monkeypatch, capsys):
    monkeypatch.setattr(cb, "CHROMIUM", "/nonexistent/chromium")
    monkeypatch.setattr("sys.argv", ["check_browser.py"])
    monkeypatch.delenv("CI", raising=False)
    assert cb.main() == 0 and "SKIPPED" in capsys.readouterr().out
    monkeypatch.setenv("CI", "1")
    assert cb.main() == 1 and "FAILED" in capsys.readouterr().out


def test_file_pages_guard_keeps_requests_on_the_machine():
    import sys

    sys.path.insert(0, str(ROOT / "scripts"))
    from browser_checks.file_pages import PAGES, is_local_file

    assert is_local_file("file:///book/_static/cjk.css") and is_local_file("data:font/woff2;x")
    assert is_local_file("http://127.0.0.1:8000/x.js")
    assert not is_local_file("https://cdn.jsdelivr.net/npm/mathjax@3/es5/tex.js")
    assert not is_local_file("http://127.0.0.1.evil.com/x")
    assert not is_local_file("http://127.0.0.1:80@evil.com/x")
    assert "appendix/glossary.html" in PAGES  # the sidebar's "Glossary: English ↔ 中文"


def test_the_browser_runs_without_cjk_fonts():
    """Without the system's CJK fonts only the site's web font can draw Chinese, as on a
    reader's machine without them; fontconfig must accept the file."""
    import shutil
    import subprocess

    assert "<rejectfont>" in cb.NO_CJK_FONTS and "zh-cn" in cb.NO_CJK_FONTS
    if shutil.which("fc-list"):
        conf = ROOT / "_build" / "test-no-cjk-fonts.conf"
        conf.parent.mkdir(exist_ok=True)
        conf.write_text(cb.NO_CJK_FONTS)
        env = {"FONTCONFIG_FILE": str(conf), "PATH": "/usr/bin:/bin"}
        out = subprocess.run(["fc-list", ":lang=zh-cn"], env=env, capture_output=True, text=True)
        conf.unlink()
        assert out.returncode == 0 and out.stdout.strip() == ""


def test_tofu_rule_finds_a_character_the_web_font_lacks(tmp_path):
    """The English pages' switch link drew "□□本页的中文版" (the web font lacked 阅 and 读) and
    the rule passed it: the browser draws a missing CJK character with the web font's own
    box, unlike the U+0378 it was compared with. A page with a web font that has 本 but not
    阅 or 搜, in text and in a search box's placeholder: TOFU_JS names exactly those."""
    import pytest
    from fontTools import subset

    if not Path(cb.CHROMIUM).exists():
        pytest.skip(f"{cb.CHROMIUM} not found")
    playwright = pytest.importorskip("playwright.sync_api")
    font = ROOT / "_static" / "fonts" / "wqy-microhei-web.woff2"
    options = subset.Options()
    options.flavor, options.notdef_outline = "woff2", True
    small = subset.load_font(str(font), options)
    subsetter = subset.Subsetter(options)
    subsetter.populate(unicodes=[ord("本")])
    subsetter.subset(small)
    subset.save_font(small, str(tmp_path / "f.woff2"), options)
    (tmp_path / "index.html").write_text(
        '<!DOCTYPE html><html lang="en"><head><meta charset="utf-8"><style>'
        '@font-face { font-family: "WQY Web"; src: url("f.woff2") format("woff2");'
        ' unicode-range: U+2E80-9FFF, U+F900-FAFF, U+FF00-FFEF; font-display: block; }'
        'body, input { font-family: "WQY Web", sans-serif; }</style></head><body>'
        '<p><a href="#" lang="zh-CN">阅本</a></p><input placeholder="搜本">'
        '<p><em>本</em> <em style="font-style: normal">本本</em> <em>it</em></p></body></html>',
        encoding="utf-8")
    server, origin = cb.serve(tmp_path)
    try:
        with playwright.sync_playwright() as p:
            browser = cb.launch(p)
            page = browser.new_page()
            page.goto(f"{origin}/index.html", wait_until="load")
            page.evaluate("document.fonts.ready")
            tofu = page.evaluate(cb.TOFU_JS)
            slanted = page.evaluate(cb.INSPECT_JS)["slanted"]
            browser.close()
    finally:
        server.shutdown()
    assert sorted(t[0] for t in tofu) == ["搜", "阅"], tofu
    assert slanted == ["本"]  # the italic Chinese, not the upright one nor Latin italics
    assert any("placeholder" in t for t in tofu if t[0] == "搜")


def test_edition_switch_compares_the_section_ids_of_both_editions(tmp_path):
    import sys

    sys.path.insert(0, str(ROOT / "scripts"))
    from browser_checks.edition_switch import id_problems

    for folder, ids in (("", ["a", "b"]), ("zh/", ["a", "b"])):
        (tmp_path / folder).mkdir(exist_ok=True)
        (tmp_path / folder / "p.html").write_text(
            "".join(f'<section id="{i}"></section>' for i in ids), encoding="utf-8")
    assert id_problems(tmp_path) == []
    (tmp_path / "zh" / "p.html").write_text('<section id="a"></section><section id="c">')
    assert id_problems(tmp_path) == ["p.html: edition-switch: its sections' ids differ in "
                                     "zh/p.html: b, c"]


def test_the_guard_names_and_blocks_every_request_elsewhere(tmp_path):
    """A page of our server asks another server (127.0.0.1, another port: as near as a
    test can reach) for an image and a stylesheet: open_page names both, and the browser
    (launch with our origin) never reaches that server, while our own pages load."""
    import functools
    import http.server
    import threading

    import pytest

    if not Path(cb.CHROMIUM).exists():
        pytest.skip(f"{cb.CHROMIUM} not found")
    playwright = pytest.importorskip("playwright.sync_api")
    reached = []

    class Elsewhere(http.server.SimpleHTTPRequestHandler):
        def do_GET(self):
            reached.append(self.path)
            self.send_error(404)

        def log_message(self, *args):
            pass

    other = http.server.ThreadingHTTPServer(("127.0.0.1", 0), functools.partial(
        Elsewhere, directory=str(tmp_path)))
    threading.Thread(target=other.serve_forever, daemon=True).start()
    elsewhere = f"http://127.0.0.1:{other.server_address[1]}"
    (tmp_path / "index.html").write_text(
        f'<!DOCTYPE html><html><head><title>ours</title>'
        f'<link rel="stylesheet" href="{elsewhere}/s.css"></head>'
        f'<body><img src="{elsewhere}/x.png" alt="x"></body></html>', encoding="utf-8")
    server, origin = cb.serve(tmp_path)
    log: list[str] = []
    try:
        with playwright.sync_playwright() as p:
            browser = cb.launch(p, origin)
            page = cb.open_page(browser.new_context(), origin, "index.html", log)
            page.goto(f"{origin}/index.html", wait_until="load")
            title = page.title()
            browser.close()
    finally:
        server.shutdown()
        other.shutdown()
    assert title == "ours"
    requests = sorted(line for line in log if ": request: " in line)
    assert requests == [f"index.html: request: to another host: {elsewhere}/s.css",
                        f"index.html: request: to another host: {elsewhere}/x.png"], log
    assert reached == [] and "ERR_PROXY_CONNECTION_FAILED" in " ".join(log)


def _layout():
    import sys

    sys.path.insert(0, str(ROOT / "scripts"))
    from browser_checks import _layout

    return _layout


def test_fit_problems_allow_scrolling_on_a_phone_only():
    """What scrolls in its own box fails at 1280 px, not at 390; what is cut or runs past
    the column fails at both; pandas' "..." and code that wraps at 1280 px only; code that
    scrolls is code-width's."""
    layout = _layout()
    found = [{"kind": "equation", "how": "scrolls", "text": "MultiHead(Q,K,V)", "width": 881,
              "column": 688, "holder": "mjx-container", "truncated": []},
             {"kind": "table", "how": "cut", "text": "API mask type", "width": 750,
              "column": 688, "holder": "div.output", "truncated": ["key_pa..."]},
             {"kind": "figure", "how": "past", "text": "A heat map.", "width": 900,
              "column": 688, "holder": "", "truncated": []},
             {"kind": "code", "how": "scrolls", "text": "x = 1", "width": 900,
              "column": 688, "holder": "pre", "truncated": []},
             {"kind": "code", "how": "wraps", "rows": 3, "lines": 2, "longest": 91,
              "text": "q = q_in @ w"}]
    wide = layout.fit_problems("p.html", 1280, found)
    assert wide == [
        "p.html: fit: 1280 px: equation is wider than the column (it scrolls sideways in its "
        "own box), 881 px in a 688-px column: 'MultiHead(Q,K,V)'",
        "p.html: fit: 1280 px: table is cut: its box hides the rest (by div.output), 750 px "
        "in a 688-px column: 'API mask type'",
        "p.html: fit: table cells cut by pandas (display.max_colwidth; 1 end in '...'): "
        "'key_pa...'",
        "p.html: fit: 1280 px: figure runs past the right edge of the column, 900 px in a "
        "688-px column: 'A heat map.'",
        "p.html: fit: 1280 px: code wraps: 3 rows for 2 lines, its longest 91 characters "
        "(the column must hold check_site's CODE_LINE): 'q = q_in @ w'"]
    many = layout.fit_problems("p.html", 390, [found[2]] * 10)
    assert len(many) == 9 and many[-1] == "p.html: fit: 390 px: ... and 2 more"
    phone = layout.fit_problems("p.html", 390, found)
    assert [p.split(": ")[3].split(" ")[0] for p in phone] == ["table", "figure"]
    assert all(": 390 px: " in p for p in phone)


def test_fit_rule_in_the_browser(tmp_path):
    """A small page with what the rule must find: an equation cut by its box (the theme's
    div.math hides overflow, as chapter 5's was cut at "head_i = Attention("), a table
    cell with an ellipsis, a table and an image running past the column, a formula that
    scrolls in its own box, a heading with a long name (chapter 5's "torch.nn.Multihead
    Attention" ran past a phone's screen), a cell's code that wraps, and what is fine (a
    table in the column, a paragraph, and a formula whose hidden copy for screen readers
    is wider than it, as in chapter 14's table)."""
    import pytest

    if not Path(cb.CHROMIUM).exists():
        pytest.skip(f"{cb.CHROMIUM} not found")
    playwright = pytest.importorskip("playwright.sync_api")
    layout = _layout()
    wide = '<span style="display:inline-block;width:900px">head_i = Attention(</span>'
    svg = "%3Csvg xmlns=%27http://www.w3.org/2000/svg%27 width=%2710%27 height=%2710%27/%3E"
    (tmp_path / "index.html").write_text(
        '<!DOCTYPE html><html><head><style>body{margin:0} .bd-article{width:700px;'
        'padding:0 20px} .math{display:flex;overflow:hidden}</style></head><body>'
        '<article class="bd-article">'
        f'<div class="math" id="cut"><mjx-container display="true">{wide}'
        '</mjx-container></div>'
        '<table><tr><td><div style="width:100px;overflow:hidden;text-overflow:ellipsis;'
        'white-space:nowrap">to_torch_blocked(mask) and more</div></td></tr></table>'
        '<table><tr><td style="white-space:nowrap">' + "w" * 200 + '</td></tr></table>'
        f'<img alt="A heat map." src="data:image/svg+xml,{svg}" '
        'style="width:800px;height:10px">'
        '<div style="overflow-x:auto"><mjx-container display="true" style="display:block;'
        f'overflow-x:auto">{wide}</mjx-container></div>'
        '<table><tr><td>fits <span class="math" style="display:inline-flex">'
        '<mjx-container><mjx-math>O(n)</mjx-math><mjx-assistive-mml style="position:'
        'absolute;width:300px;display:inline-block">O(n)</mjx-assistive-mml>'
        '</mjx-container></span></td></tr></table>'
        '<h2>5.7. ' + "M" * 60 + '</h2><p>A paragraph that wraps as it should.</p>'
        '<div class="cell_input"><pre style="white-space:pre-wrap;overflow-wrap:anywhere;'
        'line-height:20px">'
        'x = 1\n' + "y" * 120 + '</pre></div>'
        '</article></body></html>', encoding="utf-8")
    server, origin = cb.serve(tmp_path)
    try:
        with playwright.sync_playwright() as p:
            browser = cb.launch(p)
            page = browser.new_page(viewport={"width": 1280, "height": 600})
            page.goto(f"{origin}/index.html", wait_until="load")
            problems = layout.check_fit(page, "index.html")
            # A page made wider than the window by none of the kinds above.
            page.set_content('<!DOCTYPE html><body style="margin:0">'
                             '<article class="bd-article">'
                             '<div style="position:absolute;left:1500px">far</div>'
                             '</article></body>')
            wider = layout.check_fit(page, "wide.html")
            browser.close()
    finally:
        server.shutdown()
    at = {width: [p.split(": ", 3)[3].split(",")[0] for p in problems if f": {width} px: " in p]
          for width in (1280, 390)}
    assert at[1280] == [
        "equation is cut: its box hides the rest (by div.math)",
        "equation is wider than the column (it scrolls sideways in its own box)",
        "table is cut: its box hides the rest (by div)",
        "table runs past the right edge of the column",
        "figure runs past the right edge of the column",
        "heading runs past the right edge of the column",
        "code wraps: 3 rows for 2 lines"], problems
    # On a phone the formula in its own box may scroll and code wraps; the rest still fails.
    assert at[390] == [at[1280][i] for i in (0, 2, 3, 4, 5)], problems
    assert [p.split(", ")[0] for p in wider] == [
        "wide.html: fit: 1280 px: page runs past the right edge of the column",
        "wide.html: fit: 390 px: page runs past the right edge of the column"], wider


def test_contents_button_opens_the_drawer_with_contents_toggle_js(tmp_path, monkeypatch):
    """The theme binds its drawer to the first .secondary-toggle only (here a hidden one);
    the visible button opens it through _static/contents-toggle.js. The contents check
    finds the drawer shut without the script, open with it."""
    import shutil
    import sys

    import pytest

    if not Path(cb.CHROMIUM).exists():
        pytest.skip(f"{cb.CHROMIUM} not found")
    playwright = pytest.importorskip("playwright.sync_api")
    sys.path.insert(0, str(ROOT / "scripts"))
    from browser_checks import contents

    monkeypatch.setattr(contents, "WAIT_MS", 300)  # the shut drawer: no need to wait 3 s
    for folder, script in (("with", '<script src="/with/contents-toggle.js"></script>'),
                           ("without", "")):
        (tmp_path / folder).mkdir()
        shutil.copy(ROOT / "_static" / "contents-toggle.js", tmp_path / folder)
        for name, _ in contents.PAGES:
            path = tmp_path / folder / name
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(
                '<!DOCTYPE html><html><head><link rel="icon" href="data:,">' + script
                + '</head><body><button class="secondary-toggle" style="display:none">'
                '</button><button class="sidebar-toggle secondary-toggle btn">list</button>'
                '<dialog id="pst-secondary-sidebar-modal"><nav><a href="#a">a</a></nav>'
                '</dialog><script>document.querySelector(".secondary-toggle")'
                '.addEventListener("click", () => document.querySelector("dialog")'
                '.showModal());</script></body></html>', encoding="utf-8")
    server, origin = cb.serve(tmp_path)
    try:
        with playwright.sync_playwright() as p:
            browser = cb.launch(p, origin)
            context = browser.new_context()
            found = {folder: contents.check(context, f"{origin}/{folder}", tmp_path / folder)
                     for folder in ("with", "without")}
            browser.close()
    finally:
        server.shutdown()
    assert found["with"] == []
    assert [p.split(": ", 3)[3] for p in found["without"]] == [
        "the header's contents button opened no contents (no drawer)"] * 2
