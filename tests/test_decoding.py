import torch

from illustrated.decoding import beam_search, greedy_decode
from illustrated.model import ModelConfig, Transformer


def _model(seed=0):
    m = Transformer(ModelConfig.tiny(src_vocab=11, tgt_vocab=11), torch.Generator().manual_seed(seed))
    return m.double()


def test_cached_greedy_equals_uncached_with_padding():
    model = _model()
    src = torch.tensor([[4, 5, 6, 7, 2], [8, 9, 2, 0, 0], [5, 5, 2, 0, 0]])
    a = greedy_decode(model, src, 12, bos_id=1, eos_id=2, use_cache=True)
    b = greedy_decode(model, src, 12, bos_id=1, eos_id=2, use_cache=False)
    assert a.shape[0] == 3 and a[:, 0].eq(1).all()
    assert torch.equal(a, b)


def test_mode_restored():
    model = _model().train()
    greedy_decode(model, torch.tensor([[4, 5, 2]]), 5, 1, 2)
    assert model.training


def test_beam_size_1_equals_greedy():
    for seed in range(4):
        model = _model(seed)
        src = torch.tensor([[3, 4, 5, 6, 2]])
        g = greedy_decode(model, src, 10, 1, 2)[0]
        (tokens, _), = beam_search(model, src, 10, 1, 2, beam_size=1)
        assert torch.equal(tokens, g)


def test_beam_scores_are_sums_of_log_probs():
    model = _model(1)
    src = torch.tensor([[3, 4, 5, 2]])
    for tokens, score in beam_search(model, src, 6, 1, 2, beam_size=3, top_beams=3):
        logp = model.eval()(src, tokens[None, :-1], None,
                            torch.ones(1, len(tokens) - 1, len(tokens) - 1).tril().bool())
        expect = logp[0].gather(-1, tokens[1:, None]).sum().item()
        assert abs(score - expect) < 1e-9
