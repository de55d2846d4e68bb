"""_static/live/command.mjs, the live writer page's copy of the command's checks, run under
Node against ``python -m illustrated generate`` itself: odd fields of the page's form
(as the command line they stand for) get the command's message word for word, or are
accepted with the same settings; prompts get ``generate.prompt_ids``'s ids or its
refusal. The Chinese words refuse exactly where the English do. One Node process
(tests/js/live_writer.mjs); the browser check tests/site/browser/test_live_writer.py
types some of these into the page."""
from __future__ import annotations

import contextlib
import io
from pathlib import Path

import pytest

from illustrated.commands import generate
from illustrated.decoder_only import sampling
from illustrated.decoder_only.training import load_lm

ROOT = Path(__file__).resolve().parents[1]
RUNNER = ROOT / "tests" / "js" / "live_writer.mjs"
FORM = {"greedy": False, "temperature": "1", "topK": "0", "topP": "1", "seed": "0",
        "maxNewTokens": "20"}
# Each: what differs from FORM (the fields as the page's number inputs can hold them).
ODD = [{}, {"greedy": True, "temperature": "-5", "seed": "-1"}, {"temperature": ""},
       {"temperature": "-1"}, {"temperature": "-0.00001"}, {"temperature": "0"},
       {"temperature": "1e400"}, {"temperature": " 0.7 "}, {"topK": "1.5"},
       {"topK": "-2"}, {"topK": ""}, {"topK": "40"}, {"topP": "0"}, {"topP": "1.5"},
       {"topP": "0.00001"}, {"topP": ""}, {"seed": "-1"}, {"seed": "1.5"},
       {"seed": "4294967296"}, {"seed": "4294967295"}, {"seed": "99999999999999999999"},
       {"seed": " +007"}, {"maxNewTokens": "0"},
       {"maxNewTokens": ""}, {"greedy": True, "maxNewTokens": "0"},
       {"temperature": "", "seed": "-1"}, {"temperature": "-1", "seed": "-1"},
       {"topP": "2", "topK": "-1", "temperature": "-3"}]
PROMPTS = ["The cat", "  The  cat’s ", "", " \t", "I'm here!", "a " * 62, "a " * 63,
           "hello " * 70]
FLOATS = [0.0, -0.0, 1.0, -1.0, 0.5, 1e-05, -1e-05, 1.5e-07, 0.0001, 1e16, 1.2e16,
          123456789.125, 1e400, float("-inf"), 0.1 + 0.2]


def argv(fields: dict) -> list[str]:
    """The command line the form stands for (the prompt after ``--``)."""
    options = ["--greedy"] if fields["greedy"] else [
        "--temperature", fields["temperature"], "--top-k", fields["topK"],
        "--top-p", fields["topP"], "--seed", fields["seed"]]
    return [*options, "--max-new-tokens", fields["maxNewTokens"]]


def command_says(fields: dict) -> str | None:
    """The command's message for these options, or None where it accepts them (it then
    stops at the missing checkpoint, before loading any model)."""
    err = io.StringIO()
    with contextlib.redirect_stderr(err):
        try:
            generate.main([*argv(fields), "--checkpoint", "/nonexistent.pt", "--", "x"])
        except SystemExit:
            pass
    line = err.getvalue().strip()
    if line.startswith("cannot write: no file"):
        return None
    prefix, suffix = "python -m illustrated generate: ", " (--help lists the options)"
    assert line.startswith(prefix) and line.endswith(suffix), line
    return line[len(prefix):-len(suffix)]


@pytest.fixture(scope="module")
def compared(answers_of, tmp_path_factory):
    _, tok, _ = load_lm()
    path = tmp_path_factory.mktemp("writer") / "tokenizer.json"
    path.write_text(tok.tok.to_str(), encoding="utf-8")
    fields = [{**FORM, **odd} for odd in ODD]
    got = answers_of(RUNNER, {"fields": fields, "prompts": PROMPTS,
                              "floats": [repr(x) for x in FLOATS],
                              "tokenizer": str(path), "maxLen": 64})
    return tok, fields, got


def test_the_page_refuses_the_options_the_command_refuses(compared):
    _, fields, got = compared
    for f, en, zh in zip(fields, got["options"]["en"], got["options"]["zh"]):
        assert en.get("refusal") == command_says(f), f
        assert (zh.get("refusal") is None) == (en.get("refusal") is None), f
        assert zh.get("refusal") is None or any("\u4e00" <= c <= "\u9fff"
                                                for c in zh["refusal"]), zh
    accepted = [en["options"] for en in got["options"]["en"] if "options" in en]
    assert {"temperature": 0.7, "topK": 0, "topP": 1, "seed": 0,
            "maxNewTokens": 20} in accepted
    assert {"temperature": 0, "topK": 0, "topP": 1, "seed": 0,  # --greedy
            "maxNewTokens": 20} in accepted
    assert len(accepted) == 8  # the ODD entries that are not odd


def test_the_page_reads_prompts_as_the_command(compared):
    tok, _, got = compared
    for text, en, zh in zip(PROMPTS, got["prompts"]["en"], got["prompts"]["zh"]):
        try:
            assert en == {"ids": generate.prompt_ids(tok, text, 64)}, text
        except ValueError as error:
            assert en == {"refusal": str(error)}, text
            assert "refusal" in zh and "63" in zh["refusal"], zh
    assert got["floats"] == [repr(x) for x in FLOATS]
    assert got["templates"]["en"] == {"TOO_LONG": generate.TOO_LONG,
                                      "SEED": generate.SEED,
                                      "TEMPERATURE": sampling.TEMPERATURE,
                                      "TOP_K": sampling.TOP_K, "TOP_P": sampling.TOP_P}
    assert all(k in got["templates"]["zh"][name] for name, k in (
        ("TEMPERATURE", "{value}"), ("TOP_K", "{value}"), ("TOP_P", "{value}")))


def refusals(got: dict, odd: dict) -> tuple[str, str]:
    """The page's (English, Chinese) refusal of FORM with ``odd``, an entry of ODD."""
    i = ODD.index(odd)
    return got["options"]["en"][i]["refusal"], got["options"]["zh"][i]["refusal"]


def test_the_seeds_refusal_names_only_the_pages_own_option(compared):
    """The page writes one sample and has no --samples: its refusal of a seed of 2**32 names
    --seed alone, in both editions (the command's words for one sample)."""
    _, _, got = compared
    en, zh = refusals(got, {"seed": "4294967296"})
    assert en == "the seed must be below 2**32, got --seed 4294967296"
    assert zh.endswith("--seed 4294967296") and "--samples" not in zh, zh


def test_the_chinese_invalid_value_names_the_kind_expected(compared):
    """As the English "invalid whole number value" and "invalid number value" do."""
    _, _, got = compared
    for odd, kind in (({"topK": "1.5"}, "整数"), ({"temperature": ""}, "数")):
        en, zh = refusals(got, odd)
        assert f"无效的{kind}值：" in zh, (en, zh)
