"""_static/live/sampling.mjs, the live page's copy of :mod:`illustrated.decoder_only.sampling`,
run under Node: its generator draws Python's numbers (and the classic mulberry32's),
its distributions are Python's on many random rows, its draws pick Python's ids, and
its generation loop writes Python's ids on a bigram stand-in model. One Node process
answers all (tests/js/sampling.mjs)."""
from __future__ import annotations

import json
import math
from pathlib import Path
from types import SimpleNamespace

import pytest
import torch
from torch import nn

from illustrated.decoder_only.sampling import Mulberry32, check_sampling, draw, generate, \
    next_token_probs
from tests.decoder_only.test_sampling import SETTINGS, rows

ROOT = Path(__file__).resolve().parents[1]
RUNNER = ROOT / "tests" / "js" / "sampling.mjs"
SEEDS = [0, 1, 42, 123456789, 2**32 - 1]
COUNT = 2000  # numbers drawn from each seed
V = 30  # the bigram stand-in's vocabulary
BAD = [{"temperature": -1}, {"topK": 1.5}, {"topP": 0}, {"topP": 1.01}]


class Bigram(nn.Module):
    """Log-probabilities that depend on the last id only: generate's
    contract, with no cache to keep."""

    def __init__(self, table, max_len):
        super().__init__()
        self.table = nn.Parameter(table)  # (V, V) log-probs
        self.config = SimpleNamespace(max_len=max_len)

    def new_cache(self):
        return None

    def forward(self, tokens, cache=None, last_only=False):
        logp = self.table[tokens]  # (B, T, V)
        return logp[:, -1:] if last_only else logp


def _options(t, k, p):
    return {"temperature": t, "topK": k, "topP": p}


def make_job() -> dict:
    g = torch.Generator().manual_seed(34)
    wide = [torch.randn(1000, generator=g).mul(4).log_softmax(0) for _ in range(3)]
    table = torch.randn(V, V, generator=g).mul(2.5).log_softmax(-1)  # (V, V)
    runs = [{"prompt": [1, 4 + i % 7], "options": {
        **_options(*SETTINGS[(7 * i) % len(SETTINGS)]), "seed": 1000 + i,
        "maxNewTokens": 3 + i % 20, "maxLen": 12 + i % 9, "eosId": 2 if i % 3 else -1}}
        for i in range(60)]
    job = {"seeds": SEEDS, "count": COUNT, "table": _plain(table),
           "rows": [_plain(r) for r in rows(30, seed=1) + wide],
           "settings": [_options(*s) for s in SETTINGS], "runs": runs, "bad": BAD}
    u = Mulberry32(7)  # a u for each row and setting, then edge cases
    job["us"] = [u.random() for _ in range(len(job["rows"]) * len(SETTINGS))]
    job["draws"] = [[[0.25, 0.5, 0.25], x] for x in (0.0, 0.25, 0.75, 0.999)]
    job["draws"] += [[[0.3, 0.6, 0.0], 0.95], [[0.0, 1.0, 0.0], 0.0]]
    return job


def _plain(t):
    """Rows as JSON lists of float32 values, -inf written as null."""
    if t.dim() > 1:
        return [_plain(r) for r in t]
    return [None if x == -math.inf else x for x in t.float().tolist()]


def _tensor(row):
    return torch.tensor([-math.inf if x is None else x for x in row])


def python_answers(job: dict) -> dict:
    rngs = [Mulberry32(seed) for seed in job["seeds"]]
    probs = [[next_token_probs(_tensor(r), o["temperature"], o["topK"], o["topP"])
              for o in job["settings"]] for r in job["rows"]]
    flat = [p for row in probs for p in row]
    model = Bigram(_tensor(sum(job["table"], [])).view(V, V), max_len=0)
    return {"uniforms": [[r.random() for _ in range(job["count"])] for r in rngs],
            "probs": probs, "sampled": list(map(draw, flat, job["us"])),
            "draws": [draw(torch.tensor(p, dtype=torch.float64), u)
                      for p, u in job["draws"]],
            "runs": [_generate(model, run) for run in job["runs"]]}


def _generate(model, run):
    o, trace = run["options"], []
    model.config.max_len = o["maxLen"]
    ids = generate(model, run["prompt"], o["maxNewTokens"], o["temperature"], o["topK"],
                   o["topP"], seed=o["seed"], eos_id=o["eosId"], trace=trace)
    return {"ids": ids, "trace": trace}


def _close(a, b, tol=1e-12) -> bool:
    return len(a) == len(b) and all(
        (x > 0) == (y > 0) and abs(x - y) <= tol for x, y in zip(a, b))


def mismatches(job: dict, expected: dict, got: dict, limit: int = 10) -> list[str]:
    """``what(input): python X, javascript Y`` for each difference."""
    out = []
    for seed, want, mod, classic in zip(job["seeds"], expected["uniforms"], got["module"],
                                        got["classic"]):
        if not want == mod == classic:
            out.append(f"Mulberry32({seed}): python {want[:3]}, module {mod[:3]}, "
                       f"classic {classic[:3]}")
    for i, (want_row, got_row) in enumerate(zip(expected["probs"], got["probs"])):
        for o, want, have in zip(job["settings"], want_row, got_row):
            if not _close(want.tolist(), have):
                out.append(f"nextTokenProbs(row {i}, {o}): python {want.tolist()!r:.80}, "
                           f"javascript {have!r:.80}")
    if expected["sampled"] != got["sampled"]:
        out.append(f"draw(nextTokenProbs(row, setting), u): python "
                   f"{expected['sampled']!r:.80}, javascript {got['sampled']!r:.80}")
    for (p, u), want, have in zip(job["draws"], expected["draws"], got["draws"]):
        if want != have:
            out.append(f"draw({p}, {u}): python {want}, javascript {have}")
    for run, want, have in zip(job["runs"], expected["runs"], got["runs"]):
        if want["ids"] != have["ids"] or not all(
                a["u"] == b["u"] and a["chosen"] == b["chosen"] and _close(a["probs"], b["probs"])
                and _close(a["model"], b["model"], tol=1e-6)
                for a, b in zip(want["trace"], have["trace"])):
            out.append(f"generate({run}): python {want['ids']}, javascript {have['ids']}")
    return out[:limit] + ([f"... {len(out) - limit} more"] if len(out) > limit else [])


@pytest.fixture(scope="module")
def compared(answers_of):
    """The job, Python's answers and the page's (one Node process)."""
    job = make_job()
    return job, python_answers(job), answers_of(RUNNER, job)


def test_the_page_samples_as_python_does(compared):
    assert mismatches(*compared) == []


def test_the_runs_try_every_ending(compared):
    """Some runs end at eos, some at max_new_tokens, some at max_len."""
    job, expected, _ = compared
    ends = set()
    for run, out in zip(job["runs"], expected["runs"]):
        o, ids = run["options"], out["ids"]
        ends.add("eos" if ids[-1] == o["eosId"] else
                 "tokens" if len(ids) == o["maxNewTokens"] else "max_len")
        assert len(run["prompt"]) + len(ids) <= o["maxLen"]
    assert ends == {"eos", "tokens", "max_len"}


def test_bad_options_get_pythons_message(compared):
    job, _, got = compared
    for options, message in zip(job["bad"], got["errors"]):
        with pytest.raises((TypeError, ValueError)) as python:
            check_sampling(options.get("temperature", 1.0), options.get("topK", 0),
                           options.get("topP", 1.0))
        assert message and message.split("; got")[0] == str(python.value).split("; got")[0]


def test_the_comparison_sees_a_difference(compared):
    """mismatches() reports a changed number, probability, draw and run."""
    job, expected, got = compared
    bad = json.loads(json.dumps(got))
    bad["module"][0][5] /= 2
    bad["probs"][3][10][0] += 1e-9
    bad["sampled"][0] += 1
    bad["draws"][-1] += 1
    bad["runs"][0]["ids"][-1] += 1
    found = mismatches(job, expected, bad)
    assert [m.split("(")[0] for m in found] == [
        "Mulberry32", "nextTokenProbs", "draw", "draw", "generate"], found
