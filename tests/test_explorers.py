"""Tests for illustrated.explorers: the data each explorer holds is the package's, rounded
and deterministic; the HTML is inert and complete; bad arguments are named."""
from __future__ import annotations

import json
import re
import subprocess
import sys

import pytest
import torch
from myst_nb.core.render import MimeData

from illustrated import explorers
from illustrated.attention import scaled_dot_product_attention
from illustrated.draw.words import EDITIONS, LOCALE
from illustrated.model import make_std_masks
from illustrated.positional import sinusoidal_encoding

SCORES = torch.tensor([1.0, 0.0, 1.0, 1.0], dtype=torch.float64)
LABELS = ["Bob", "Cesus", "Bob (2nd)", "Bylan"]
LEVELS = [[(None, "<bos>", 0.0, "kept")],
          [(0, "i", -0.1, "kept"), (0, "we", -2.5, "kept"), (0, "you", -3.123, "dropped")],
          [(1, "are", -2.6, "kept"), (0, "<eos>", -3.0, "finished")]]


def rows(explorer) -> list[dict]:
    """Every row of every dataset of the explorer's spec."""
    return [row for dataset in explorer.spec["datasets"].values() for row in dataset]


def make_all():
    return {"temperature": explorers.temperature_explorer(SCORES, LABELS),
            "scaling": explorers.scaling_explorer(max_log2_d_k=4, S=6),
            "masks": explorers.mask_explorer(width=4),
            "positional": explorers.positional_explorer(d_models=(8, 16), length=12,
                                                        positions=(0, 4, 8)),
            "beam": explorers.beam_explorer(LEVELS)}


@pytest.fixture(scope="module")
def made():
    return make_all()


# ---------------------------------------------------------------- the data is the package's
def test_temperature_rows_are_the_softmax_of_the_scores_over_tau(made):
    data = rows(made["temperature"])
    assert len(data) == 41 * 4  # log10 τ from -2 to 2 by 0.1, four keys
    at_1 = {r["key"]: r["weight"] for r in data if r["log10_tau"] == 0.0}
    want = torch.softmax(SCORES, 0)  # τ = 1
    assert [at_1[k] for k in LABELS] == [round(w, 3) for w in want.tolist()]
    cold = explorers.temperature_weights(SCORES, 0.01)
    assert cold.tolist() == [0.333, 0.0, 0.333, 0.333]


def test_scaling_weights_match_the_package_attention():
    unscaled, scaled = explorers.scaling_weights(64, S=8, seed=3)
    gen = torch.Generator().manual_seed(3)
    q = torch.randn(1, 64, generator=gen, dtype=torch.float64)  # (1, Dk)
    k = torch.randn(8, 64, generator=gen, dtype=torch.float64)  # (S, Dk)
    _, weights = scaled_dot_product_attention(q, k, k)  # (1, S)
    torch.testing.assert_close(scaled, weights[0], atol=5e-4, rtol=0)
    torch.testing.assert_close(unscaled, torch.softmax(q @ k.T, -1)[0], atol=5e-4, rtol=0)
    assert unscaled.max() > scaled.max()  # without the scaling the row is sharper


def test_scaling_explorer_has_both_rows_for_every_width(made):
    data = rows(made["scaling"])
    assert len(data) == 5 * 2 * 6  # d_k = 1 .. 16, two scalings, S = 6 keys
    raw, _ = explorers.scaling_weights(16, S=6, seed=0)
    assert [r["weight"] for r in data if r["log2_d_k"] == 4 and r["scaling"] == "unscaled"] \
        == raw.tolist()


def test_mask_cells_are_the_models_masks():
    cells = explorers.mask_cells(2, 3, width=4)
    src = torch.tensor([[1, 1, 0, 0]])
    tgt = torch.tensor([[1, 1, 1, 0]])
    src_mask, tgt_mask = make_std_masks(src, tgt)  # (1, 1, 4), (1, 4, 4)
    assert torch.equal(cells["decoder"], tgt_mask[0])
    assert torch.equal(cells["encoder"], src_mask[0].expand(4, 4))
    assert torch.equal(cells["cross"], src_mask[0].expand(4, 4))


def test_mask_explorer_says_why_a_cell_is_blocked(made):
    data = {(r["panel"], r["n"], r["q"], r["k"]): r["cell"] for r in rows(made["masks"])}
    assert len(data) == 3 * 4 * 16  # three panels, lengths 1 .. 4, 4 x 4 cells
    assert data["decoder", 4, 0, 1] == "blocked: future"
    assert data["decoder", 2, 3, 3] == "blocked: padding"  # key 3 is padding, not future
    assert data["cross", 2, 3, 1] == "may attend" and data["cross", 2, 3, 2] == "blocked: padding"


def test_position_similarity_is_one_at_p_and_depends_on_distance_only():
    pe = sinusoidal_encoding(20, 16).double()  # (L, D)
    sim = explorers.position_similarity(16, 5, 20)
    torch.testing.assert_close(sim, pe @ pe[5] / 8, atol=5e-4, rtol=0)
    assert sim[5] == 1
    at_0 = explorers.position_similarity(16, 0, 20)
    torch.testing.assert_close(sim[5:], at_0[:15], atol=1.1e-3, rtol=0)


def test_positional_explorer_holds_waves_and_similarities(made):
    data = rows(made["positional"])
    waves = [r for r in data if "value" in r]
    sims = [r for r in data if "similarity" in r]
    assert len(waves) == 2 * 4 * 12 and len(sims) == 2 * 3 * 12
    pe = sinusoidal_encoding(12, 8)
    assert {(r["pos"], r["value"]) for r in waves if r["d_model"] == 8 and r["column"] == 2} \
        == {(p, round(pe[p, 2].item(), 3) + 0.0) for p in range(12)}


# ---------------------------------------------------------------- what Jupyter and the page get
def test_every_number_is_rounded_and_the_spec_is_small(made):
    for name, explorer in made.items():
        numbers = [v for r in rows(explorer) for v in r.values() if isinstance(v, float)]
        assert all(round(v, explorers.DIGITS) == v for v in numbers), name
        assert explorer.data_bytes < 100_000, name


def test_the_spec_is_deterministic_across_processes(made):
    """nbval compares the outputs of two kernels: names and hashes may not vary."""
    code = ("from tests.test_explorers import make_all\n"
            "print({k: e.to_json() for k, e in make_all().items()})")
    other = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                           timeout=300, check=True).stdout.strip()
    assert other == str({k: e.to_json() for k, e in made.items()})


def test_mimebundle_html_is_inert_and_carries_the_spec(made):
    explorer = made["masks"]
    bundle, metadata = explorer._repr_mimebundle_()
    assert set(bundle) == {"text/html", explorers.JUPYTERLAB_MIME, "text/plain"}
    # JupyterLab's renderer draws with Vega-Lite 5: the spec under its MIME type says so.
    assert explorers.JUPYTERLAB_MIME.endswith(".v5+json")
    assert bundle[explorers.JUPYTERLAB_MIME] == {**explorer.spec,
                                                 "$schema": explorers.JUPYTERLAB_SCHEMA}
    assert explorers.JUPYTERLAB_SCHEMA.endswith("/vega-lite/v5.json")
    assert metadata == {"text/html": {"zh_CN": explorer.editions["zh_CN"].to_html()}}
    html = bundle["text/html"]
    assert html.startswith('<div class="vl-explorer" data-explorer="masks"')
    scripts = re.findall(r"<script([^>]*)>(.*?)</script>", html, re.S)
    assert [attrs for attrs, _ in scripts] == [' type="application/json"']  # inert
    assert json.loads(scripts[0][1]) == explorer.spec
    assert "http" not in html.replace(explorer.spec["$schema"], "")  # nothing to fetch
    assert "JavaScript" in html  # the note for readers without it
    assert bundle["text/plain"] == f"Explorer: {explorer.alt_text}"


def test_json_cannot_close_its_script_element():
    explorer = explorers.temperature_explorer(SCORES, ["</script>", "b", "c", "d"])
    assert "</script>" not in explorer.to_json()
    assert json.loads(explorer.to_json())["usermeta"]["explorer"]["labels"][0] == "</script>"


def test_importing_the_package_does_not_import_altair():
    code = "import illustrated.explorers, sys; print('altair' in sys.modules)"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         timeout=120, check=True).stdout.strip()
    assert out == "False"


# ---------------------------------------------------------------- the Chinese edition
# Words a chart may show in any edition: symbols of the formulas, names of the keys.
SYMBOLS = {"softmax", "log", "sin", "cos", "PE", "pos", "d_k", "d_model", "beam_size",
           "JavaScript", "Bob", "Cesus", "Bylan"}
LITERAL = re.compile(r"'((?:[^'\\]|\\.)*)'")


def shown_words(explorer) -> list[str]:
    """Every text in words the explorer shows: titles (and the text of title expressions),
    axis and legend titles, labels a ``labelExpr`` gives, control names, alt text, note."""
    found = [explorer.alt_text, explorer.note]

    def text(value):
        if isinstance(value, str):
            found.append(value)
        elif isinstance(value, dict) and "expr" in value:
            found.extend(LITERAL.findall(value["expr"]))
        elif isinstance(value, dict):
            text(value.get("text"))

    def walk(node):
        if isinstance(node, list):
            for item in node:
                walk(item)
        if not isinstance(node, dict):
            return
        for key, value in node.items():
            if key in ("datasets", "usermeta"):
                continue
            if key == "title":
                text(value)
            elif key == "labelExpr":  # datum.label == 'English' ? 'shown' : ...
                found.extend(LITERAL.findall(value)[1::2])
            elif key == "bind":
                text(value.get("name"))
            walk(value)
    walk(explorer.spec)
    return found


def english_words(texts) -> set[str]:
    return {w for t in texts for w in re.findall(r"[A-Za-z_]{2,}", t)} - SYMBOLS


def test_every_explorer_comes_with_its_chinese_edition(made):
    assert EDITIONS == ("en", "zh_CN")
    for name, explorer in made.items():
        assert list(explorer.editions) == ["zh_CN"], name
        zh = explorer.editions["zh_CN"]
        assert not english_words(shown_words(zh)), (name, english_words(shown_words(zh)))
        assert all(re.search(r"[\u4e00-\u9fff]", t) for t in
                   [zh.alt_text, zh.note, json.dumps(zh.spec, ensure_ascii=False)]), name


def test_the_english_edition_shows_no_chinese(made):
    for name, explorer in made.items():
        assert not re.search(r"[\u3000-\u9fff\uff00-\uffef]",
                             "".join(shown_words(explorer))), name


def controls(explorer) -> list[dict]:
    """The explorer's parameters without the names shown beside their controls."""
    return [{**param, "bind": {k: v for k, v in param.get("bind", {}).items() if k != "name"}}
            for param in explorer.spec["params"]]


def test_both_editions_draw_the_same_data_with_the_same_controls(made):
    """One computation: the same rows, the same inputs, the same parameters and filters;
    only words differ."""
    for name, explorer in made.items():
        zh = explorer.editions["zh_CN"]
        assert zh.spec["datasets"] == explorer.spec["datasets"], name
        assert zh.spec["usermeta"] == explorer.spec["usermeta"], name
        assert controls(zh) == controls(explorer), name
        filters = re.compile(r'"filter": "[^"]*"')
        assert filters.findall(zh.to_json()) == filters.findall(explorer.to_json()), name


def test_the_beam_title_is_a_template_filled_after_translation():
    title = "Beam search, beam_size = 2, on “{sentence}”"
    explorer = explorers.beam_explorer(LEVELS, title=title,
                                       title_fields={"sentence": "je suis étudiant"})
    assert explorer.spec["title"] == "Beam search, beam_size = 2, on “je suis étudiant”"
    assert explorer.editions["zh_CN"].spec["title"] == \
        "对“je suis étudiant”做束搜索，beam_size = 2"  # as the figure's (draw.po)


def test_every_translation_keeps_the_fields_of_its_message():
    from babel.messages.pofile import read_po

    fields = re.compile(r"\{[^{}]*\}")
    with (LOCALE / "zh_CN" / "explorers.po").open("rb") as file:
        catalogue = [m for m in read_po(file) if m.id]
    assert len(catalogue) > 30  # the catalogue was read
    for message in catalogue:
        assert message.string, f"explorers.po: {message.id!r} has no translation"
        assert sorted(fields.findall(message.string)) == sorted(fields.findall(message.id)), \
            f"explorers.po: {message.id!r} has the fields {fields.findall(message.id)}, " \
            f"its translation {fields.findall(message.string)}"


def test_a_message_other_catalogues_hold_too_has_the_same_translation():
    """tr reads every catalogue of illustrated/draw/locale/zh_CN as one: a msgid the figures'
    catalogue (draw.po) holds too must say the same there, or one of them reads wrong."""
    from babel.messages.pofile import read_po

    seen: dict[str, tuple[str, str]] = {}
    for path in sorted((LOCALE / "zh_CN").glob("*.po")):
        with path.open("rb") as file:
            for message in read_po(file):
                if message.id and message.string:
                    other = seen.setdefault(message.id, (path.name, message.string))
                    assert other[1] == message.string, \
                        f"{message.id!r} is {other[1]!r} in {other[0]}, {message.string!r} in " \
                        f"{path.name}"


class _Renderer:
    """What scripts/explorer_editions.py reads of MyST-NB's renderer: the build's language."""

    def __init__(self, language):
        config = type("Config", (), {"language": language})()
        self.renderer = type("R", (), {"sphinx_env": type("Env", (), {"config": config})()})()


def test_the_chinese_build_renders_the_chinese_html(made):
    import explorer_editions

    bundle, metadata = made["beam"]._repr_mimebundle_()
    data = MimeData("text/html", bundle["text/html"], output_metadata=metadata)
    zh = explorer_editions._render_text_html(_Renderer("zh_CN"), data)
    en = explorer_editions._render_text_html(_Renderer("en"), data)
    assert zh[0].astext() == made["beam"].editions["zh_CN"].to_html()
    assert en[0].astext() == bundle["text/html"]
    plain = MimeData("text/html", "<p>table</p>")  # an output without editions
    assert explorer_editions._render_text_html(_Renderer("zh_CN"), plain)[0].astext() == \
        "<p>table</p>"


# ---------------------------------------------------------------- bad input
@pytest.mark.parametrize("call, error, match", [
    (lambda: explorers.temperature_explorer(SCORES, ["a", "a", "b", "c"]), ValueError,
     r"labels must be 4 distinct names"),
    (lambda: explorers.temperature_explorer([1.0, 2.0], ["a", "b"]), TypeError,
     r"scores must be a torch.Tensor"),
    (lambda: explorers.temperature_weights(SCORES, 0), ValueError, r"tau must be a positive"),
    (lambda: explorers.temperature_explorer(SCORES, LABELS, log10_taus="abc"), TypeError,
     r"log10_taus must be a list of numbers"),
    (lambda: explorers.scaling_explorer(max_log2_d_k=20), ValueError, r"at most 14"),
    (lambda: explorers.scaling_weights(0), ValueError, r"d_k must be positive"),
    (lambda: explorers.mask_cells(5, 2, width=4), ValueError, r"must be at most width=4"),
    (lambda: explorers.mask_explorer(width=2.5), TypeError, r"width must be an int"),
    (lambda: explorers.position_similarity(16, 20, 20), ValueError,
     r"p must be a position from 0 to 19"),
    (lambda: explorers.positional_explorer(d_models=(4,), columns=(0, 6)), ValueError,
     r"columns below the smallest d_model=4"),
    (lambda: explorers.Explorer({"mark": "bar"}, "x"), TypeError, r"datasets"),
])
def test_bad_arguments_are_named(call, error, match):
    with pytest.raises(error, match=match):
        call()


# ---------------------------------------------------------------- the beam tree


def test_beam_nodes_grow_one_level_per_step_and_link_to_their_parents():
    assert [n["word"] for n in explorers.beam_nodes(LEVELS, 0)] == ["<bos>"]
    nodes = explorers.beam_nodes(LEVELS, 2)
    assert len(nodes) == 6
    are = next(n for n in nodes if n["word"] == "are")
    we = next(n for n in nodes if n["word"] == "we")
    assert are["parent_y"] == we["y"] == 0.0 and are["level"] == 2
    assert next(n for n in nodes if n["word"] == "you")["score"] == -3.12


def test_beam_explorer_holds_every_node_once():
    explorer = explorers.beam_explorer(LEVELS, title="t")
    assert [(r["level"], r["word"]) for r in rows(explorer)] == \
        [(n["level"], n["word"]) for n in explorers.beam_nodes(LEVELS, 2)]
    assert explorer.spec["params"][0]["bind"]["max"] == 2


@pytest.mark.parametrize("levels, step, match", [
    ([], 0, r"levels must be a non-empty list"),
    (LEVELS, 3, r"step must be an int from 0 to 2"),
    ([[(None, "<bos>", 0.0, "maybe")]], 0, r"state in \('kept', 'dropped', 'finished'\)"),
])
def test_beam_nodes_name_bad_arguments(levels, step, match):
    with pytest.raises(ValueError, match=match):
        explorers.beam_nodes(levels, step)
