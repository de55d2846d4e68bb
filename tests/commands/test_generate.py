"""Tests for illustrated.commands.generate: ``python -m illustrated generate`` and its prompt."""
import pytest

from illustrated.commands.generate import main, percent, prompt_ids, slice_words, token_slice
from illustrated.decoder_only.sampling import generate
from illustrated.decoder_only.training import load_lm
from illustrated.translator.inference import pieces


@pytest.fixture(scope="module")
def shipped():
    return load_lm()


def run(capsys, *argv):
    status = main(list(argv))
    out, err = capsys.readouterr()
    return status, out, err


def test_a_prompt_is_bos_and_its_tokens_without_eos(shipped):
    _, tok, _ = shipped
    ids = prompt_ids(tok, "  The  cat’s ", 64)  # cleaned as the corpus writes text
    assert ids == tok.encode("The cat's")[:-1] and ids[0] == tok.bos_id
    assert prompt_ids(tok, "", 64) == prompt_ids(tok, " \t", 64) == [tok.bos_id]


def test_a_prompt_that_leaves_no_room_is_refused_with_its_length(shipped):
    _, tok, _ = shipped
    assert len(prompt_ids(tok, "a " * 62, 64)) == 63  # 62 tokens: one new one fits
    with pytest.raises(ValueError, match="the prompt is 63 tokens long"):
        prompt_ids(tok, "a " * 63, 64)


def test_the_command_writes_what_generate_writes(shipped, capsys):
    model, tok, _ = shipped
    status, out, err = run(capsys, "The cat", "", "--seed", "4", "--top-p", "0.9",
                           "--samples", "2")
    assert status == 0 and err == ""
    expected = []
    for text in ("The cat", ""):
        ids = prompt_ids(tok, text, 64)
        expected += [tok.decode(ids + generate(model, ids, 40, 1.0, 0, 0.9, seed))
                     for seed in (4, 5)]
    assert out.splitlines() == expected
    assert out.startswith("The cat")


def test_greedy_steps_show_the_models_own_probabilities(capsys):
    status, out, _ = run(capsys, "I think", "--greedy", "--steps", "--max-new-tokens", "3")
    lines = out.splitlines()
    assert status == 0 and len(lines) == 4
    assert all("after the settings 100.0 %" in line for line in lines[1:])
    assert not all("model 100.0 %" in line for line in lines[1:])
    assert not any("u = " in line for line in lines[1:])  # greedy draws nothing


def test_sampled_steps_show_u_in_the_drawn_tokens_slice(shipped, capsys):
    """Each step's u lies in the slice of [0, 1) that draw gives the token written: the
    kept tokens end to end in id order."""
    model, tok, _ = shipped
    status, out, _ = run(capsys, "He lost", "--steps", "--temperature", "1.5", "--top-p",
                         "0.9", "--seed", "3", "--max-new-tokens", "6")
    ids, trace = prompt_ids(tok, "He lost", 64), []
    generate(model, ids, 6, 1.5, 0, 0.9, 3, trace=trace)
    lines = out.splitlines()[1:]
    assert status == 0 and len(lines) == len(trace) > 1
    for line, step in zip(lines, trace):
        start, end = token_slice(step["probs"], step["chosen"])
        assert start <= step["u"] < end
        assert slice_words(step["u"], start, end) in line, line
        assert line.split()[0] == pieces(tok, [step["chosen"]])[0]
        assert f"model {percent(step['model'][step['chosen']])}" in line


def test_a_slice_is_the_mass_of_the_lower_ids():
    probs = [0.1, 0.0, 0.5, 0.4]
    assert token_slice(probs, 2) == (0.1, 0.6) and token_slice(probs, 0) == (0.0, 0.1)
    assert slice_words(0.4562, 0.454, 0.4571) == "u = 0.4562 ∈ [0.4540, 0.4571)"
    assert slice_words(0.45621, 0.4562, 0.4565) == "u = 0.456210 ∈ [0.456200, 0.456500)"
    assert [percent(p) for p in (0.0, 0.0004, 0.003, 1.0)] == [
        "0.0 %", "<0.1 %", "0.3 %", "100.0 %"]


@pytest.mark.parametrize("argv, words", [
    (["--temperature", "-1"], "temperature must be a finite number, 0 or more (0: greedy, "
                              "always the most likely token); got -1.0"),
    (["--top-p", "1.5"], "top-p must be more than 0 and at most 1 (1: keep every token); "
                         "got 1.5"),
    (["--top-k", "-2"], "top-k must be a whole number, 0 or more (0: keep every token); "
                        "got -2"),
    (["--seed", "4294967295", "--samples", "2"], "the seeds SEED..SEED+N-1 must be below "
                                                  "2**32, got --seed 4294967295 --samples 2"),
    # one sample, one seed: named alone, as the live writer page (no --samples) names it
    (["--seed", "4294967296"], "the seed must be below 2**32, got --seed 4294967296 ("),
    (["--samples", "0"], "--samples"),
])
def test_bad_options_get_one_line(capsys, argv, words):
    with pytest.raises(SystemExit) as exit_:
        main(["x", *argv])
    err = capsys.readouterr().err
    assert exit_.value.code == 2 and words in err and len(err.splitlines()) == 1


def test_a_long_prompt_is_skipped_and_the_others_written(capsys):
    status, out, err = run(capsys, "a " * 63, "Tom", "--greedy")
    assert status == 1 and "skipped prompt 1: the prompt is 63 tokens long" in err
    assert out.startswith("Tom") and len(out.splitlines()) == 1


def test_a_missing_file_is_named(capsys, tmp_path):
    status, _, err = run(capsys, "x", "--checkpoint", str(tmp_path / "none.pt"))
    assert status == 1 and "none.pt" in err and "make checkpoint-lm" in err


def test_a_prompt_in_another_script_is_skipped_as_the_translator_skips_one(capsys):
    from illustrated.translator.limits import NOT_ENGLISH

    status, out, err = run(capsys, "我是学生", "Tom", "--greedy")
    assert status == 1 and out.startswith("Tom") and len(out.splitlines()) == 1
    assert "skipped prompt 1: " + NOT_ENGLISH.format(letters="我 是 学 生") in err
    assert "�" not in out


def test_a_french_prompt_is_written_after_a_warning(capsys):
    from illustrated.translator.limits import FRENCH_PROMPT

    status, out, err = run(capsys, "Je suis", "--greedy")
    assert status == 0 and out.startswith("Je suis")
    assert err.splitlines() == [
        "warning: prompt 1: " + FRENCH_PROMPT.format(k=2, n=2, words="je, suis")]


@pytest.mark.parametrize("prompt", ["Tom", "I would like", "Mary and John", "The cat"])
def test_an_english_prompt_gets_no_warning(capsys, prompt):
    status, _, err = run(capsys, prompt, "--greedy", "--max-new-tokens", "2")
    assert status == 0 and err == ""
