"""Tests for illustrated.decoder_only.training (chapter 13): data, loss, perplexity, the file."""
import math

import pytest
import torch

from illustrated.decoder_only.model import DecoderOnly, DecoderOnlyConfig
from illustrated.decoder_only.training import (LMTrainConfig, english_sentences, load_lm,
                                               nll_sum, padded, perplexity, save_lm, shift,
                                               train_lm)
from illustrated.translator.tokenizer import SubwordTokenizer

SEQS = [[1, 5, 6, 7, 2], [1, 8, 2], [1, 9, 9, 2]]


def test_english_sentences_are_distinct_and_sorted():
    pairs = [("Va !", "Go."), ("Cours !", "Run!"), ("Courez !", "Run!")]
    assert english_sentences(pairs) == ["Go.", "Run!"]


def test_padded_pads_on_the_right_and_shift_pairs_each_token_with_the_next():
    batch = padded(SEQS)
    assert batch.tolist() == [[1, 5, 6, 7, 2], [1, 8, 2, 0, 0], [1, 9, 9, 2, 0]]
    inputs, targets = shift(batch)
    assert inputs.tolist()[1] == [1, 8, 2, 0] and targets.tolist()[1] == [8, 2, 0, 0]
    assert torch.equal(inputs[:, 1:], targets[:, :-1])


def uniform_model(vocab=12):
    """A model whose every prediction is uniform: zero output weights."""
    model = DecoderOnly(DecoderOnlyConfig(vocab=vocab, N=1, d_model=8, d_ff=16, h=2,
                                          dropout=0.0, max_len=8))
    with torch.no_grad():
        model.generator.proj.bias.zero_()
        model.embed[0].embedding.weight.zero_()  # tied: the output weights too
    return model.eval()


def test_nll_counts_real_targets_only_and_a_uniform_model_has_perplexity_v():
    model = uniform_model()
    nll, n = nll_sum(model, padded(SEQS))
    assert n == 4 + 2 + 3  # every token after <bos>; padding is not a target
    assert math.isclose(nll.item(), n * math.log(12), rel_tol=1e-6)
    assert math.isclose(perplexity(model, SEQS), 12.0, rel_tol=1e-6)


def test_training_lowers_the_loss_and_is_reproducible():
    seqs = [[1, 5, 6, 7, 2]] * 16
    cfg = LMTrainConfig(steps=20, max_tokens=40, warmup=5, d_model=16, N=1, h=2,
                        d_ff=32, dropout=0.0)
    model, losses, dev = train_lm(cfg, seqs, vocab=10, max_len=8, log=lambda *_: None)
    again, losses_again, _ = train_lm(cfg, seqs, vocab=10, max_len=8, log=lambda *_: None)
    assert losses == losses_again and dev == []
    assert losses[-1] < losses[0] / 4
    assert not model.training


def test_the_held_out_loss_is_measured_without_changing_the_training():
    """With dropout on, the held-out evaluation every few steps (eval mode) leaves the
    losses and the weights bit for bit as they are without it."""
    seqs = [[1, 5, 6, 7, 2], [1, 8, 9, 2], [1, 5, 9, 7, 2]] * 6
    held = [[1, 5, 7, 2], [1, 8, 6, 9, 2]]
    cfg = LMTrainConfig(steps=12, max_tokens=40, warmup=4, d_model=16, N=1, h=2,
                        d_ff=32, dropout=0.3)
    quiet = dict(vocab=10, max_len=8, log=lambda *_: None)
    plain, losses, _ = train_lm(cfg, seqs, **quiet)
    watched, losses_watched, dev = train_lm(cfg, seqs, held=held, every=5, **quiet)
    assert losses_watched == losses
    for (name, p), q in zip(plain.state_dict().items(), watched.state_dict().values()):
        assert torch.equal(p, q), name
    assert [step for step, _ in dev] == [0, 5, 10, 12]  # before, every 5, the last
    assert math.isclose(dev[-1][1], math.log(perplexity(watched, held)), rel_tol=1e-9)
    assert dev[-1][1] < dev[0][1]


def test_save_and_load_give_the_same_model(tmp_path):
    torch.manual_seed(0)
    model = uniform_model()
    with torch.no_grad():
        for p in model.parameters():
            p.normal_()
    tokenizer = SubwordTokenizer.load()
    path = save_lm(tmp_path / "lm.pt", model, tokenizer, perplexity=12.0)
    loaded, tok, blob = load_lm(path)
    assert blob["perplexity"] == 12.0 and len(tok) == len(tokenizer)
    for name, value in model.state_dict().items():  # float16 in the file
        assert torch.equal(loaded.state_dict()[name], value.half().float()), name
    assert loaded.generator.proj.weight is loaded.embed[0].embedding.weight


def test_a_foreign_file_is_named(tmp_path):
    path = tmp_path / "other.pt"
    torch.save({"format": "something-else"}, path)
    with pytest.raises(ValueError, match="not a decoder-only model"):
        load_lm(path)


def test_a_model_given_is_trained_by_the_same_recipe():
    """train_lm(model=...) with the model it would build itself trains it the same way
    (without dropout: building a model draws from the global generator, so the dropout
    masks differ); a model of another width than the schedule's is refused."""
    seqs = [[1, 5, 6, 7, 2], [1, 8, 9, 2]] * 8
    cfg = LMTrainConfig(steps=6, max_tokens=30, warmup=3, d_model=16, N=1, h=2, d_ff=32,
                        dropout=0.0)
    quiet = dict(vocab=10, max_len=8, log=lambda *_: None)
    _, built, _ = train_lm(cfg, seqs, **quiet)
    config = DecoderOnlyConfig(vocab=10, N=1, d_model=16, d_ff=32, h=2, dropout=0.0,
                               max_len=8)
    given = DecoderOnly(config, torch.Generator().manual_seed(cfg.seed))
    _, losses, _ = train_lm(cfg, seqs, model=given, **quiet)
    assert losses == built
    wide = DecoderOnly(DecoderOnlyConfig(vocab=10, N=1, d_model=32, d_ff=32, h=2, max_len=8))
    with pytest.raises(ValueError, match="schedule is for d_model=16"):
        train_lm(cfg, seqs, model=wide, **quiet)
