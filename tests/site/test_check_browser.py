"""The pure logic of scripts/check_browser.py (the browser part runs in `make browser-check`)."""
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
             "tofu": ["人 in serif"], "wide": ["x = torch.zeros(...)"]}
    rules = [p.split(": ")[1] for p in cb.page_problems("p.html", found)]
    assert rules == ["math", "math", "image", "image", "tofu", "code-width"]
    clean = {"math": [{"typeset": True, "error": False, "text": "x"}],
             "images": [{"src": "a.png", "loaded": True, "alt": "A plot."}], "tofu": [],
             "wide": []}
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
