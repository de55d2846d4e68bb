"""The rules of the browser tests on small pages of their own, each with what it must find
(a character the web font lacks, a formula cut by its box, a request to another server) and
what it must pass; and the browser as a reader without CJK fonts has it."""
from __future__ import annotations

from tests.site.browser import fit, rules, tabs


def test_the_browser_runs_without_cjk_fonts(tmp_path):
    """Without the system's CJK fonts only the site's web font can draw Chinese, as on a
    reader's machine without them; fontconfig must accept the file."""
    import shutil
    import subprocess

    assert "<rejectfont>" in tabs.NO_CJK_FONTS and "zh-cn" in tabs.NO_CJK_FONTS
    if shutil.which("fc-list"):
        conf = tmp_path / "no-cjk-fonts.conf"
        conf.write_text(tabs.NO_CJK_FONTS)
        env = {"FONTCONFIG_FILE": str(conf), "PATH": "/usr/bin:/bin"}
        out = subprocess.run(["fc-list", ":lang=zh-cn"], env=env, capture_output=True, text=True)
        assert out.returncode == 0 and out.stdout.strip() == ""


def test_tofu_and_slant_find_what_they_must(context, own_pages):
    """The English pages' switch link drew "□□本页的中文版" (the web font lacked 阅 and 读) and
    the rule passed it: the browser draws a missing CJK character with the web font's own
    box, unlike the U+0378 it was compared with. A page with a web font that has 本 but not
    阅, 搜 or 读, in text, in a search box's placeholder and in a solution: TOFU_JS names
    exactly those, the last as in an opened solution."""
    from fontTools import subset

    folder, url = own_pages

    font = tabs.ROOT / "_static" / "fonts" / "wqy-microhei-web.woff2"
    options = subset.Options()
    options.flavor, options.notdef_outline = "woff2", True
    small = subset.load_font(str(font), options)
    subsetter = subset.Subsetter(options)
    subsetter.populate(unicodes=[ord("本")])
    subsetter.subset(small)
    subset.save_font(small, str(folder / "f.woff2"), options)
    (folder / "index.html").write_text(
        '<!DOCTYPE html><html lang="en"><head><meta charset="utf-8"><style>'
        '@font-face { font-family: "WQY Web"; src: url("f.woff2") format("woff2");'
        ' unicode-range: U+2E80-9FFF, U+F900-FAFF, U+FF00-FFEF; font-display: block; }'
        'body, input { font-family: "WQY Web", sans-serif; }</style></head><body>'
        '<p><a href="#" lang="zh-CN">阅本</a></p><input placeholder="搜本">'
        '<p><em>本</em> <em style="font-style: normal">本本</em> <em>it</em></p>'
        '<div class="solution"><p>读</p></div></body></html>',
        encoding="utf-8")
    tab = context.new_page()
    tab.goto(f"{url}/index.html", wait_until="load")
    tab.evaluate("document.fonts.ready")
    tofu = rules.tofu(tab)
    slanted = rules.inspect(tab)["slanted"]
    assert sorted(t[0] for t in tofu) == ["搜", "读", "阅"], tofu
    assert [t[0] for t in tofu if "(in an opened solution)" in t] == ["读"], tofu
    assert slanted == ["本"]  # the italic Chinese, not the upright one nor Latin italics
    assert any("placeholder" in t for t in tofu if t[0] == "搜")


def test_the_guard_names_and_blocks_every_request_elsewhere(context, own_pages, tmp_path):
    """A page of our server asks another server (127.0.0.1, another port: as near as a
    test can reach) for an image and a stylesheet: open_page names both, and the browser
    (launch with our origin) never reaches that server, while our own pages load."""
    import functools
    import http.server
    import threading

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
    folder, url = own_pages
    (folder / "index.html").write_text(
        f'<!DOCTYPE html><html><head><title>ours</title>'
        f'<link rel="stylesheet" href="{elsewhere}/s.css"></head>'
        f'<body><img src="{elsewhere}/x.png" alt="x"></body></html>', encoding="utf-8")
    try:
        tab = context.new_page()
        watched = tabs.Watched(tab, url.split("/_tests/")[0])
        tab.goto(f"{url}/index.html", wait_until="load")
        title = tab.title()
    finally:
        other.shutdown()
    assert title == "ours"
    elsewhere_ = sorted(r for r in watched.requests if r.startswith("to another host"))
    assert elsewhere_ == [f"to another host: {elsewhere}/s.css",
                          f"to another host: {elsewhere}/x.png"], watched.requests
    assert reached == [] and "ERR_PROXY_CONNECTION_FAILED" in " ".join(watched.problems())


def test_fit_problems_allow_scrolling_on_a_phone_only():
    """What scrolls in its own box fails at 1280 px, not at 390; what is cut or runs past
    the column fails at both; pandas' "..." and code that wraps at 1280 px only; code that
    scrolls is code-width's."""
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
    wide = fit.fit_problems(1280, found)
    assert wide == [
        "equation is wider than the column (it scrolls sideways in its own box), 881 px in "
        "a 688-px column: 'MultiHead(Q,K,V)'",
        "table is cut: its box hides the rest (by div.output), 750 px in a 688-px column: "
        "'API mask type'",
        "table cells cut by pandas (display.max_colwidth; 1 end in '...'): 'key_pa...'",
        "figure runs past the right edge of the column, 900 px in a 688-px column: "
        "'A heat map.'",
        "code wraps: 3 rows for 2 lines, its longest 91 characters (the column must hold "
        "html_rules.CODE_LINE): 'q = q_in @ w'"]
    many = fit.fit_problems(390, [found[2]] * 10)
    assert len(many) == 9 and many[-1] == "... and 2 more"
    phone = fit.fit_problems(390, found)
    assert [p.split(" ")[0] for p in phone] == ["table", "figure"]


def test_fit_rule_in_the_browser(context, own_pages):
    """A small page with what the rule must find: an equation cut by its box (the theme's
    div.math hides overflow, as chapter 5's was cut at "head_i = Attention("), a table
    cell with an ellipsis, a table and an image running past the column, a formula that
    scrolls in its own box, a heading with a long name (chapter 5's "torch.nn.Multihead
    Attention" ran past a phone's screen), a cell's code that wraps, and what is fine (a
    table in the column, a paragraph, and a formula whose hidden copy for screen readers
    is wider than it, as in chapter 14's table)."""
    folder, url = own_pages
    wide = '<span style="display:inline-block;width:900px">head_i = Attention(</span>'
    svg = "%3Csvg xmlns=%27http://www.w3.org/2000/svg%27 width=%2710%27 height=%2710%27/%3E"
    (folder / "index.html").write_text(
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
    page = context.new_page()
    page.set_viewport_size({"width": 1280, "height": 600})
    page.goto(f"{url}/index.html", wait_until="load")
    found = fit.fit(page)
    # A page made wider than the window by none of the kinds above.
    page.set_content('<!DOCTYPE html><body style="margin:0">'
                     '<article class="bd-article">'
                     '<div style="position:absolute;left:1500px">far</div>'
                     '</article></body>')
    wider = fit.fit(page)
    at = {width: [p.split(",")[0] for p in found[width]] for width in (1280, 390)}
    assert at[1280] == [
        "equation is cut: its box hides the rest (by div.math)",
        "equation is wider than the column (it scrolls sideways in its own box)",
        "table is cut: its box hides the rest (by div)",
        "table runs past the right edge of the column",
        "figure runs past the right edge of the column",
        "heading runs past the right edge of the column",
        "code wraps: 3 rows for 2 lines"], found
    # On a phone the formula in its own box may scroll and code wraps; the rest still fails.
    assert at[390] == [at[1280][i] for i in (0, 2, 3, 4, 5)], found
    assert {width: [p.split(", ")[0] for p in lines] for width, lines in wider.items()} == {
        1280: ["page runs past the right edge of the column"],
        390: ["page runs past the right edge of the column"]}, wider


