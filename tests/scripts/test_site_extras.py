"""scripts/site_extras.py: a {term} link's tooltip is its glossary entry."""
from __future__ import annotations

from pathlib import Path

import site_extras
from docutils import nodes
from docutils.frontend import get_default_settings
from docutils.parsers.rst import Parser
from docutils.utils import new_document
from sphinx import addnodes

ROOT = Path(__file__).resolve().parents[2]


def document():
    return new_document("test", get_default_settings(Parser))


def glossary_page():
    """The doctree of a glossary as Sphinx builds it: glossary > definition_list > items."""
    def item(term_id, term, *paragraphs):
        definition = nodes.definition("", *(nodes.paragraph(text=p) for p in paragraphs))
        return nodes.definition_list_item("", nodes.term(term, term, ids=[term_id]), definition)

    doc = document()
    doc += addnodes.glossary("", nodes.definition_list(
        "",
        item("term-query", "query", "中文 查询 (004)",
             "The vector that says what a position\nlooks for. "
             "Introduced in Making the lookup soft."),
        item("term-key", "key", "中文 键 (004)", "What a query is matched against.")))
    # A definition list outside the glossary is not an entry.
    doc += nodes.definition_list("", item("term-other", "other", "中文 不", "Not a term."))
    return doc


def term_link(target, text, refid=False):
    inline = nodes.inline(text, text, classes=["xref", "std", "std-term"])
    ref = nodes.reference("", "", inline, internal=True)
    if refid:
        ref["refid"] = target
    else:
        ref["refuri"] = f"../appendix/glossary.html#{target}"
    return ref


def test_glossary_titles_give_the_definition_then_the_chinese():
    titles = site_extras.glossary_titles(glossary_page())
    assert titles == {
        "term-query": "The vector that says what a position looks for. 中文: 查询 (004)",
        "term-key": "What a query is matched against. 中文: 键 (004)",
    }
    chinese = site_extras.glossary_titles(glossary_page(), chinese_page=True)
    assert chinese["term-key"] == "What a query is matched against. 中文：键 (004)"


def test_term_links_get_their_entry_as_title_and_other_links_do_not():
    titles = site_extras.glossary_titles(glossary_page())
    doc = document()
    para = nodes.paragraph()
    query, key = term_link("term-query", "queries"), term_link("term-key", "key", refid=True)
    section_link = nodes.reference("", "", nodes.inline("x", "x", classes=["std", "std-ref"]),
                                   refuri="../chapters/x.html#term-query")
    unknown = term_link("term-missing", "missing")
    para += [query, key, section_link, unknown]
    doc += para
    assert site_extras.add_term_titles(doc, titles) == 2
    assert query["reftitle"] == titles["term-query"]
    assert key["reftitle"] == titles["term-key"]
    assert "reftitle" not in section_link and "reftitle" not in unknown


def test_math_in_a_tooltip_reads_as_plain_text():
    latex = r"\operatorname{softmax}(QK^\top/\sqrt{d_k})\,V"
    assert site_extras.plain_math(latex) == "softmax(QKᵀ/√d_k) V"
    assert site_extras.plain_math(r"k_1, \dots, k_4") == "k_1, …, k_4"
    para = nodes.paragraph("", "", nodes.Text("width "), nodes.math("", r"d_{model}/h"),
                           nodes.Text("."))
    assert site_extras._plain_text(para) == "width d_model/h."


# ---------------------------------------------------------------- explorers' scripts
class _App:
    """What _explorer_scripts uses of Sphinx's app: srcdir, and add_js_file recorded."""
    def __init__(self, srcdir):
        self.srcdir, self.added = srcdir, []

    def add_js_file(self, name, **kwargs):
        self.added.append((name, kwargs))


def test_vega_explorers_js_and_the_live_pages_files_are_taken_off_every_page():
    """Jupyter Book lists every _static .js and .css file for every page; vega, explorers.js
    and _static/live/'s ES modules and style sheet stay for the pages that load them."""
    class Config:
        html_js_files = ["cjk.js", "explorers.js", "vendor/vega.min.js", ("x.js", {}),
                         "live/tokenizer.js", ("live/page.js", {})]
        html_css_files = ["cjk.css", "live/live.css"]
    site_extras._not_on_every_page(None, Config)
    assert Config.html_js_files == ["cjk.js", ("x.js", {})]
    assert Config.html_css_files == ["cjk.css"]


def test_a_page_with_an_explorer_loads_vega_then_explorers_js(tmp_path):
    vendor = tmp_path / "_static" / "vendor"
    vendor.mkdir(parents=True)
    for name in site_extras.VEGA:
        (tmp_path / "_static" / name).write_text("")
    app = _App(tmp_path)
    site_extras._explorer_scripts(app, "p", "page.html", {"body": "<p>no chart</p>"}, None)
    assert app.added == []
    site_extras._explorer_scripts(app, "p", "page.html",
                                  {"body": '<div class="vl-explorer" data-explorer="x">'}, None)
    assert [name for name, _ in app.added] == site_extras.VEGA + ["explorers.js"]
    # deferred, in this order; explorers.js a classic script (a file:// page runs no module)
    assert all(kw["loading_method"] == "defer" and "type" not in kw for _, kw in app.added)


def test_without_the_vendor_files_only_explorers_js_is_loaded(tmp_path):
    app = _App(tmp_path)
    site_extras._explorer_scripts(app, "p", "page.html", {"body": 'class="vl-explorer"'}, None)
    assert [name for name, _ in app.added] == ["explorers.js"]  # it says what is missing


def test_the_jupyterlab_vegalite_output_is_skipped_quietly():
    class Data:
        def __init__(self, mime_type):
            self.mime_type = mime_type
    render = site_extras._without_vegalite(lambda self, data: [data.mime_type])
    assert render(None, Data(site_extras.VEGALITE_MIME)) == []
    assert render(None, Data("text/html")) == ["text/html"]
    from illustrated.explorers import JUPYTERLAB_MIME
    assert site_extras.VEGALITE_MIME == JUPYTERLAB_MIME



def test_a_chinese_page_shows_the_chinese_rendering_of_a_figure():
    """scripts/site_extras.py swaps in the figure's Chinese PNG and alt (issue 31)."""
    from types import SimpleNamespace

    from myst_nb.core.render import MimeData

    def page(language):
        settings = SimpleNamespace(env=SimpleNamespace(config=SimpleNamespace(language=language)))
        return SimpleNamespace(renderer=SimpleNamespace(document=SimpleNamespace(
            settings=settings)))

    data = MimeData("image/png", "RU4=", output_metadata={"image/png": {
        "alt": "Heat map.", "zh_CN": {"png": "Wkg=", "alt": "热力图。"}}})
    render = site_extras._with_alt(lambda self, data: [nodes.image(uri=data.content)])
    (english,) = render(page("en"), data)
    (chinese,) = render(page("zh_CN"), data)
    assert (english["uri"], english["alt"]) == ("RU4=", "Heat map.")
    assert (chinese["uri"], chinese["alt"]) == ("Wkg=", "热力图。")
    # An output without a Chinese rendering (not from illustrated.draw) stays as it is.
    plain = MimeData("image/png", "RU4=", output_metadata={"image/png": {"alt": "A plot."}})
    (kept,) = render(page("zh_CN"), plain)
    assert (kept["uri"], kept["alt"]) == ("RU4=", "A plot.")


def test_the_redirect_page_names_the_books_icon(tmp_path):
    """index.html forwards to the first page and names the icon, so the browser does not
    ask for a /favicon.ico the site lacks (a 404 in the console)."""
    from types import SimpleNamespace

    app = SimpleNamespace(outdir=str(tmp_path), builder=SimpleNamespace(format="html"),
                          config=SimpleNamespace(root_doc="intro",
                                                 html_favicon="_static/favicon.svg"))
    site_extras._redirect_with_icon(app, None)
    html = (tmp_path / "index.html").read_text(encoding="utf-8")
    assert '<meta http-equiv="Refresh" content="0; url=intro.html" />' in html
    assert '<link rel="icon" href="_static/favicon.svg" />' in html
    assert "<body" not in html  # still a redirect to the tests (tests/site/built.is_redirect)
    (tmp_path / "index.html").unlink()
    site_extras._redirect_with_icon(app, RuntimeError("the build failed"))
    assert not (tmp_path / "index.html").exists()

