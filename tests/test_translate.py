import io

import pytest

from illustrated import translate
from illustrated.translate import SHIPPED, main


def test_without_checkpoint_says_how(tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    monkeypatch.setattr(translate, "SHIPPED", tmp_path / "absent.pt")
    assert main(["je suis étudiant", "--toy"]) == 1
    assert "python -m illustrated.train" in capsys.readouterr().err


def test_missing_file_named(tmp_path, capsys):
    assert main(["merci", "--toy", "--checkpoint", str(tmp_path / "nope.pt")]) == 1
    assert "nope.pt" in capsys.readouterr().err


needs_shipped = pytest.mark.skipif(not SHIPPED.exists(), reason="no shipped checkpoint")


@needs_shipped
@pytest.mark.parametrize("beam", [[], ["--beam", "3"]], ids=["greedy", "beam"])
def test_shipped_translator(tmp_path, monkeypatch, capsys, beam):
    monkeypatch.chdir(tmp_path)  # no checkpoints/ here: falls back to the shipped file
    assert main(["je suis étudiant", "merci", "--toy", *beam]) == 0
    assert capsys.readouterr().out.splitlines() == ["i am a student", "thanks"]


@needs_shipped
def test_sentences_from_stdin(tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    monkeypatch.setattr("sys.stdin", io.StringIO("je vois un chat noir\n\nbonjour\n"))
    assert main(["--toy"]) == 0
    assert capsys.readouterr().out.splitlines() == ["i see a black cat", "hello"]


# The real translator: a tiny untrained one for the messages, the shipped one for the output.
@pytest.fixture(scope="module")
def tiny_real(tmp_path_factory):
    import torch

    from illustrated.model import Transformer
    from illustrated.tokenizer import SubwordTokenizer
    from illustrated.trainer import RealConfig, model_config
    from illustrated.translator import save_translator

    tok = SubwordTokenizer.load()
    cfg = RealConfig(d_model=16, N=1, h=2, d_ff=32, dropout=0.0)
    model = Transformer(model_config(cfg, len(tok)), torch.Generator().manual_seed(0))
    return str(save_translator(tmp_path_factory.mktemp("real") / "t.pt", model, tok))


def test_bad_input_messages(tiny_real, monkeypatch, capsys):
    monkeypatch.setattr("sys.stdin", io.StringIO("\n  \n"))
    assert main(["--checkpoint", tiny_real]) == 1
    assert "nothing to translate" in capsys.readouterr().err
    assert main(["Привет, мир.", "--checkpoint", tiny_real]) == 1
    assert "not French: letters outside the Latin alphabet" in capsys.readouterr().err
    assert main(["le chat " * 40, "--checkpoint", tiny_real]) == 1
    assert "too long: 83 subword tokens, the limit is 64" in capsys.readouterr().err
    assert main(["the weather is nice today", "--checkpoint", tiny_real]) == 0
    out = capsys.readouterr()
    assert "does not look like French (0 of 5 words" in out.err and len(out.out.splitlines()) == 1
    assert "real translator: " in out.err  # the checkpoint it read


def test_several_sentences_and_attention(tiny_real, capsys):
    assert main(["merci. je suis là !", "--checkpoint", tiny_real, "--attention"]) == 0
    out = capsys.readouterr().out
    assert "▁merci" in out and "▁là" in out  # one attention table per sentence


def test_help_describes_every_option(capsys):
    undescribed = [a.option_strings or a.dest for a in translate._parser()._actions
                   if not (a.help or "").strip()]
    assert undescribed == []
    with pytest.raises(SystemExit) as exit_:
        main(["--help"])
    text = capsys.readouterr().out
    assert exit_.value.code == 0
    assert "--vocab" in text and "greedy decoding" in " ".join(text.split())


@pytest.mark.parametrize("argv, message", [
    (["--beam", "0", "merci"], "argument --beam: must be 1 or more, got 0"),
    (["--beam", "-1", "merci"], "argument --beam: must be 1 or more, got -1"),
    (["--beam", "two", "merci"], "argument --beam: expected an integer, got 'two'"),
    (["--bogus", "merci"], "unrecognized arguments: --bogus"),
])
def test_bad_option_is_one_line(argv, message, capsys):
    with pytest.raises(SystemExit) as exit_:
        main(argv)
    err = capsys.readouterr().err
    assert exit_.value.code == 2
    assert err.splitlines() == [f"python -m illustrated.translate: {message} "
                                "(--help lists the options)"]


# The toy translator's messages, with the shipped checkpoint.
@needs_shipped
def test_toy_says_which_checkpoint_it_read(tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    assert main(["merci", "--toy"]) == 0
    out = capsys.readouterr()
    assert out.out == "thanks\n"
    assert out.err.splitlines() == [f"toy translator: {SHIPPED}"]


@needs_shipped
def test_toy_empty_and_over_long_input(tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    monkeypatch.setattr("sys.stdin", io.StringIO("   \n"))
    assert main(["--toy"]) == 1
    err = capsys.readouterr().err
    assert err.startswith("nothing to translate") and len(err.splitlines()) == 1
    assert main(["le chat " * 50, "merci", "--toy"]) == 1  # 100 words
    out = capsys.readouterr()
    assert out.out == "thanks\n"  # the other sentence is still translated
    assert "too long: 100 words, the limit is 62; split it" in out.err
    assert "Traceback" not in out.err


@needs_shipped
def test_toy_unknown_words_are_one_plain_line(tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    assert main(["je vois un chat mauve", "--toy"]) == 0
    err = capsys.readouterr().err.splitlines()
    assert err[1:] == ["warning: unknown to the toy translator, read as <unk>: mauve"]
    assert main(["où est la gare ?", "--toy"]) == 0
    out = capsys.readouterr()
    assert len(out.out.splitlines()) == 1
    assert out.err.splitlines()[1:] == [
        "warning: most of 'où est la gare ?' is unknown to the toy translator (3 of 5 words: "
        "où, gare, ?); the translation below is a guess (--vocab lists the words it knows)"]
    assert "UserWarning" not in out.err


@needs_shipped
def test_toy_vocab_lists_its_words(tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    monkeypatch.setattr("sys.stdin", io.StringIO(""))  # --vocab reads no sentences
    assert main(["--toy", "--vocab"]) == 0
    head, words = capsys.readouterr().out.splitlines()
    _, sv, _ = translate.load_checkpoint(SHIPPED)
    assert words.split() == translate.toy_vocabulary(sv) and "étudiant" in words.split()
    assert "<unk>" not in words and head.startswith(f"The toy translator knows "
                                                    f"{len(words.split())} French words")


from illustrated.translator import SHIPPED_REAL  # noqa: E402

needs_real = pytest.mark.skipif(not SHIPPED_REAL.exists(), reason="no shipped real model")


@needs_real
@pytest.mark.parametrize("beam", [[], ["--beam", "1"], ["--beam", "4"]],
                         ids=["greedy", "beam1", "beam"])
def test_shipped_real_translator(capsys, beam):
    assert main(["je suis étudiant", *beam]) == 0
    assert capsys.readouterr().out.splitlines() == ["I am a student."]


def test_translate_with_beam_equals_beam_search_one_sentence_at_a_time(tiny_real):
    """translate(beam=k) decodes batches of sentences (beam_search_batch); each sentence
    gets what beam_search finds for it alone. (float64: the padding of a batch changes
    the sums in the last bits only.)"""
    import torch

    from illustrated.decoding import beam_search
    from illustrated.translator import MAX_LEN, load_translator, translate

    model, tok, _ = load_translator(tiny_real)
    model.double()
    sentences = ["je suis là.", "merci !", "il ne voit pas le chat noir.", "oui.",
                 "nous avons mangé des pommes hier soir."]
    for beam, alpha in ((1, 0.6), (3, 0.0), (4, 1.0)):
        batched = translate(model, tok, sentences, beam=beam, length_penalty=alpha,
                            batch_size=3, max_len=12)
        for sentence, got in zip(sentences, batched):
            (tokens, _), = beam_search(model, torch.tensor([tok.encode(sentence)]), 12,
                                       tok.bos_id, tok.eos_id, beam, length_penalty=alpha)
            assert got == tok.decode(tokens)
