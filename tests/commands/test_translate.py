import io

import pytest
import torch

from illustrated.commands import translate
from illustrated.commands.translate import main
from illustrated.shipped import TOY_TRANSLATOR
from illustrated.translator import limits


def test_without_checkpoint_says_how(tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    monkeypatch.setattr(translate, "TOY_TRANSLATOR", tmp_path / "absent.pt")
    assert main(["je suis étudiant", "--toy"]) == 1
    assert "python -m illustrated train" in capsys.readouterr().err


def test_missing_file_named(tmp_path, capsys):
    assert main(["merci", "--toy", "--checkpoint", str(tmp_path / "nope.pt")]) == 1
    assert "nope.pt" in capsys.readouterr().err


@pytest.mark.parametrize("beam", [[], ["--beam", "3"]], ids=["greedy", "beam"])
def test_shipped_translator(tmp_path, monkeypatch, capsys, beam):
    monkeypatch.chdir(tmp_path)  # no checkpoints/ here: falls back to the shipped file
    assert main(["je suis étudiant", "merci", "--toy", *beam]) == 0
    assert capsys.readouterr().out.splitlines() == ["i am a student", "thanks"]


def test_sentences_from_stdin(tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    monkeypatch.setattr("sys.stdin", io.StringIO("je vois un chat noir\n\nbonjour. merci\n"))
    assert main(["--toy"]) == 0
    assert capsys.readouterr().out.splitlines() == ["i see a black cat", "", "hello thanks"]


# The real translator: a tiny untrained one for the messages, the shipped one for the output.
# The tiny one's checkpoint keeps a small profile of what it was "trained on", as train does.
PROFILE = limits.TrainingProfile.from_pairs([
    ("Je suis là et tu es là.", "I'm here and you're here."), ("Merci, le chat !", "Thanks!"),
    ("Oui ? Non… Bonjour, il pleut, bien sûr.", "Yes. No. Hello, it's raining, of course.")])


@pytest.fixture(scope="module")
def tiny_real(tmp_path_factory):
    import torch

    from illustrated.model import Transformer
    from illustrated.translator.inference import save_translator
    from illustrated.translator.tokenizer import SubwordTokenizer
    from illustrated.translator.training import RealConfig, model_config

    tok = SubwordTokenizer.load()
    cfg = RealConfig(d_model=16, N=1, h=2, d_ff=32, dropout=0.0)
    model = Transformer(model_config(cfg, len(tok)), torch.Generator().manual_seed(0))
    return str(save_translator(tmp_path_factory.mktemp("real") / "t.pt", model, tok,
                               profile=PROFILE.to_json()))


def test_bad_input_messages(tiny_real, monkeypatch, capsys):
    from illustrated.translator.inference import MAX_LEN, prepare
    from illustrated.translator.tokenizer import SubwordTokenizer

    monkeypatch.setattr("sys.stdin", io.StringIO("\n  \n"))
    assert main(["--checkpoint", tiny_real]) == 1
    out = capsys.readouterr()
    assert out.err.startswith("nothing to translate: give French sentences") and out.out == ""
    assert main(["Привет, мир.", "--checkpoint", tiny_real]) == 1
    out = capsys.readouterr()
    assert out.err.splitlines()[1:] == [
        'skipped line 1, "Привет, мир.": ' + limits.NOT_LATIN.format(letters="П р и в е т м")]
    assert out.out == "\n"  # the line is kept, empty
    long = "le chat " * 40
    pieces = len(SubwordTokenizer.load().encode(prepare(long)))
    assert main([long, "--checkpoint", tiny_real]) == 1
    assert capsys.readouterr().err.splitlines()[1:] == [
        f'skipped line 1, "{long.strip()[:59]}…": '
        + limits.TOO_LONG.format(n=pieces, max_len=MAX_LEN)]
    assert main(["the weather is nice today", "--checkpoint", tiny_real]) == 0
    out = capsys.readouterr()
    assert out.err.splitlines() == [
        f"real translator: {tiny_real}",  # the checkpoint it read
        'warning: line 1, "the weather is nice today": '
        + limits.MOSTLY_UNKNOWN.format(unknown=5, n=5)]
    assert len(out.out.splitlines()) == 1  # the translation, and nothing else on stdout


def test_several_sentences_and_attention(tiny_real, capsys):
    assert main(["merci. je suis là !", "--checkpoint", tiny_real, "--attention"]) == 0
    out = capsys.readouterr().out.splitlines()
    assert out[1] == translate.LEGEND and out.count(translate.LEGEND) == 1
    assert "▁Merci" in out[2] and "▁là" in "".join(out)  # one table per sentence, in order
    assert out.index(next(x for x in out if "▁là" in x)) > 2


@pytest.fixture
def fake_model(monkeypatch):
    """translator.translate replaced by one that writes <sentence> and records each call:
    the sentences, the beam, the thread count and whether the model is the fused copy."""
    from illustrated.interop import FusedAttention
    calls = []

    def fake(model, tok, sentences, beam=0, **kwargs):
        fused = any(isinstance(m, FusedAttention) for m in model.modules())
        calls.append({"sentences": list(sentences), "beam": beam, "kwargs": kwargs,
                      "threads": torch.get_num_threads(), "fused": fused})
        return [f"<{s}>" for s in sentences]

    monkeypatch.setattr("illustrated.translator.inference.translate", fake)
    return calls


def test_one_output_line_per_input_line_in_one_batch(tiny_real, fake_model, monkeypatch,
                                                     capsys):
    monkeypatch.setattr("sys.stdin", io.StringIO(
        "merci. je suis là !\n\n  \nbonjour\nil pleut… oui ? non.  \nbien\u2028sûr\n"))
    assert main(["--checkpoint", tiny_real]) == 0
    out = capsys.readouterr()
    assert out.out.split("\n") == ["<Merci.> <Je suis là !>", "", "", "<Bonjour.>",
                                   "<Il pleut…> <Oui ?> <Non.>", "<Bien sûr.>", ""]
    assert len(fake_model) == 1 and fake_model[0]["beam"] == 0  # one greedy call
    assert fake_model[0]["sentences"] == ["Merci.", "Je suis là !", "Bonjour.", "Il pleut…",
                                          "Oui ?", "Non.", "Bien sûr."]  # U+2028 is no newline
    assert out.err.splitlines() == [f"real translator: {tiny_real}"]


def test_a_refused_sentence_keeps_the_lines_aligned(tiny_real, fake_model, monkeypatch,
                                                    capsys):
    monkeypatch.setattr("sys.stdin", io.StringIO(
        "merci.\nПривет.\noui. 你好 ! non.\n1234\nje suis là."))  # no final newline
    assert main(["--checkpoint", tiny_real, "--beam", "3"]) == 1
    out = capsys.readouterr()
    assert out.out.splitlines() == ["<Merci.>", "", "<Oui.> <Non.>", "", "<Je suis là.>"]
    assert out.err.splitlines()[1:] == [
        'skipped line 2, "Привет.": ' + limits.NOT_LATIN.format(letters="П р и в е т"),
        'skipped line 3, "你好 !": ' + limits.NOT_LATIN.format(letters="你 好"),
        'skipped line 4, "1234": ' + limits.NO_WORDS]
    assert len(fake_model) == 1 and fake_model[0]["beam"] == 3
    assert len(fake_model[0]["sentences"]) == 4


def test_a_sentence_of_invisible_spaces_has_no_words(tiny_real, fake_model, capsys):
    """U+200B (a zero-width space) is a space to the corpus's cleaning: nothing is left to
    encode, and the sentence is refused as the live page refuses it."""
    assert main(["merci.", "\u200b\u200b", "--checkpoint", tiny_real]) == 1
    out = capsys.readouterr()
    assert out.out.splitlines() == ["<Merci.>", ""]
    assert out.err.splitlines()[1:] == ['skipped line 2, "\u200b\u200b": ' + limits.NO_WORDS]


def test_arguments_are_lines_and_numbered(tiny_real, fake_model, capsys):
    assert main(["merci. oui.", "", "Привет.", "bien sûr", "--checkpoint", tiny_real]) == 1
    out = capsys.readouterr()
    assert out.out.splitlines() == ["<Merci.> <Oui.>", "", "", "<Bien sûr.>"]
    assert out.err.splitlines()[1].startswith('skipped line 3, "Привет.": not French')


def test_warnings_go_to_stderr_only(tiny_real, fake_model, capsys):
    long = "je suis là et tu es là et il est là et nous sommes là et vous êtes là"
    assert main(["merci.", long, "--checkpoint", tiny_real]) == 0
    out = capsys.readouterr()
    assert out.out.splitlines() == ["<Merci.>", f"<{long[0].upper() + long[1:]}.>"]
    where = f'warning: line 2, "{long[:59]}…": '
    assert out.err.splitlines()[1:] == [
        where + limits.LONGER_THAN_TRAINING.format(n=len(limits.words(long)),
                                                   max_words=PROFILE.max_words),
        where + limits.UNKNOWN_WORDS.format(words="est, nous, sommes, vous, êtes")]


def test_the_issues_sentences_are_warned_about_and_named(tiny_real, fake_model, capsys):
    """Numbers, a word and a symbol no training sentence has; every foreign letter named;
    a sentence after 。 kept."""
    assert main(["Je suis 25 chat 🐱 !", "Tu es Étienne.",
                 "Je suis là. 我是学生。 Tu es là.", "Привет", "--checkpoint", tiny_real]) == 1
    out = capsys.readouterr()
    assert out.out.splitlines() == ["<Je suis 25 chat 🐱 !>", "<Tu es Étienne.>",
                                    "<Je suis là.> <Tu es là.>", ""]
    assert out.err.splitlines()[1:] == [
        'warning: line 1, "Je suis 25 chat 🐱 !": ' + limits.DIGITS.format(
            numbers="25", n=0, pairs="3"),
        'warning: line 1, "Je suis 25 chat 🐱 !": ' + limits.UNSEEN_SYMBOLS.format(symbols="🐱"),
        'warning: line 2, "Tu es Étienne.": ' + limits.UNKNOWN_WORDS.format(words="étienne"),
        'skipped line 3, "我是学生。": ' + limits.NOT_LATIN.format(letters="我 是 学 生"),
        'skipped line 4, "Привет": ' + limits.NOT_LATIN.format(letters="П р и в е т")]


def test_model_runs_fused_on_its_threads_and_leaves_torch_as_it_was(tiny_real, fake_model,
                                                                    monkeypatch, request,
                                                                    capsys):
    monkeypatch.delenv("OMP_NUM_THREADS", raising=False)
    saved = torch.get_num_threads()
    torch.set_num_threads(2)  # not 1, whatever the test run uses, so that 1 can be told apart
    request.addfinalizer(lambda: torch.set_num_threads(saved))
    before = torch.get_num_threads()
    assert main(["merci.", "--checkpoint", tiny_real]) == 0
    assert main(["merci.", "--checkpoint", tiny_real, "--threads", "0"]) == 0
    assert main(["merci.", "--checkpoint", tiny_real, "--threads", "3"]) == 0
    monkeypatch.setenv("OMP_NUM_THREADS", "2")  # the user's choice, kept
    assert main(["merci.", "--checkpoint", tiny_real]) == 0
    assert [c["threads"] for c in fake_model] == [1, before, 3, before]
    assert [c["fused"] for c in fake_model] == [True] * 4  # fuse(model) serves
    assert torch.get_num_threads() == before


@pytest.fixture(scope="module")
def split():
    from illustrated.translator.corpus import load_split

    return load_split()


def test_help_says_what_the_model_was_trained_on(split, capsys):
    from illustrated.translator.inference import load_translator

    profile = limits.training_profile(load_translator()[2])
    assert profile.pairs == len(split.train)  # the shipped model read the shipped split
    train = split.train
    with pytest.raises(SystemExit):
        main(["--help"])
    text = " ".join(capsys.readouterr().out.split())
    assert (f"trained on {len(train):,} French-English sentence pairs of the Tatoeba Project"
            in text)
    assert (f"the longest French one has {max(len(limits.words(f)) for f, _ in train)} words, "
            f"the longest English one {max(len(limits.words(e)) for _, e in train)}." in text)
    assert "names it never saw, rare words and other topics or registers come out worse" in text
    assert ("(the appendix Studying the translator measures this, in its section Limits)"
            in text)


def test_help_names_the_options(capsys):
    with pytest.raises(SystemExit) as exit_:
        main(["--help"])
    text = capsys.readouterr().out
    assert exit_.value.code == 0
    assert "--vocab" in text and "greedy decoding" in " ".join(text.split())


def test_without_the_data_help_says_so_and_a_checkpoint_needs_no_corpus(tiny_real, tmp_path,
                                                                         monkeypatch, capsys):
    monkeypatch.setattr(translate, "TRANSLATOR", tmp_path / "translator.pt")
    with pytest.raises(SystemExit) as exit_:
        main(["--help"])
    assert exit_.value.code == 0
    text = " ".join(capsys.readouterr().out.split())
    assert "cannot be said here: [Errno 2] No such file or directory" in text
    # the checkpoint keeps the profile of what it read: the corpus is not needed
    monkeypatch.setattr("illustrated.shipped.PAIRS", tmp_path / "eng-fra.tsv")
    assert main(["merci", "--checkpoint", tiny_real]) == 0
    assert len(capsys.readouterr().out.splitlines()) == 1


# The toy translator's messages, with the shipped checkpoint.
def test_toy_says_which_checkpoint_it_read(tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    assert main(["merci", "--toy"]) == 0
    out = capsys.readouterr()
    assert out.out == "thanks\n"
    assert out.err.splitlines() == [f"toy translator: {TOY_TRANSLATOR}"]


def test_toy_empty_and_over_long_input(tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    monkeypatch.setattr("sys.stdin", io.StringIO("   \n"))
    assert main(["--toy"]) == 1
    err = capsys.readouterr().err
    assert err.startswith("nothing to translate") and len(err.splitlines()) == 1
    assert main(["le chat " * 50, "merci", "--toy"]) == 1  # 100 words
    out = capsys.readouterr()
    assert out.out == "\nthanks\n"  # the other line is still translated, in its place
    assert "too long: 100 words, the limit is 62; split it" in out.err
    assert "Traceback" not in out.err


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
        "où, gare, ?); the translation below is a guess (--vocab lists the words it knows)",
        translate.ARTICLE_NOTE]  # it guessed "they are not a doctor"
    assert "UserWarning" not in out.err


def test_toy_says_once_why_le_and_la_come_out_negated(tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    assert main(["elle aime le chat", "nous aimons la pomme", "--toy"]) == 0
    out = capsys.readouterr()
    assert out.out == "she does not like the cat\nwe do not like the apple\n"
    assert out.err.splitlines() == [f"toy translator: {TOY_TRANSLATOR}", translate.ARTICLE_NOTE]
    assert main(["elle aime un chat", "je ne vois pas le chat", "--toy"]) == 0
    out = capsys.readouterr()
    assert out.out == "she likes a cat\ni do not see the cat\n"
    assert out.err.splitlines() == [f"toy translator: {TOY_TRANSLATOR}"]  # no quirk: no note


def test_negated_by_article_needs_le_or_la_no_negation_and_a_not():
    assert translate.negated_by_article("elle aime le chat", "she does not like the cat")
    assert translate.negated_by_article("Elle aime LA pomme", "she does not like the apple")
    assert not translate.negated_by_article("elle aime le chat", "she likes the cat")
    assert not translate.negated_by_article("elle aime un chat", "she does not like a cat")
    assert not translate.negated_by_article("je ne vois pas le chat", "i do not see the cat")
    assert not translate.negated_by_article("je n'aime pas la pomme", "i do not like the apple")


def test_toy_vocab_lists_its_words(tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    monkeypatch.setattr("sys.stdin", io.StringIO(""))  # --vocab reads no sentences
    assert main(["--toy", "--vocab"]) == 0
    head, words = capsys.readouterr().out.splitlines()
    from illustrated.training import load_checkpoint

    _, sv, _ = load_checkpoint(TOY_TRANSLATOR)
    assert words.split() == translate.toy_vocabulary(sv) and "étudiant" in words.split()
    assert "<unk>" not in words and head.startswith(f"The toy translator knows "
                                                    f"{len(words.split())} French words")


@pytest.mark.parametrize("beam", [[], ["--beam", "1"], ["--beam", "4"]],
                         ids=["greedy", "beam1", "beam"])
def test_shipped_real_translator(capsys, beam):
    assert main(["je suis étudiant", *beam]) == 0
    assert capsys.readouterr().out.splitlines() == ["I'm a student."]  # as Tatoeba writes it


def test_translate_with_beam_equals_beam_search_one_sentence_at_a_time(tiny_real):
    """translate(beam=k) decodes batches of sentences (beam_search_batch); each sentence
    gets what beam_search finds for it alone. (float64: the padding of a batch changes
    the sums in the last bits only.)"""
    import torch

    from illustrated.decoding import beam_search
    from illustrated.translator.inference import MAX_LEN, load_translator, translate

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
