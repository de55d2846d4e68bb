"""Decoding: turn a trained model and a source sentence into target tokens.

``greedy_decode`` picks the most likely token at every step; with ``use_cache=True`` each
step feeds only the newest token and reuses the keys and values cached by earlier steps
(:class:`~illustrated.kv_cache.DecoderCache`), with the same output as re-running the
decoder on the whole prefix. ``beam_search`` keeps the ``beam_size`` best prefixes, all of
them fed to the model in one batch each step, with the cache reordered to follow them;
``beam_search_batch`` does the same for many sentences at once (one forward per step for
every live hypothesis of every sentence), with the results of ``beam_search`` for each:
the two share the rules of one sentence's search (``_rank``, ``_settled``, ``_best``).
Given a ``trace`` list, ``greedy_decode`` and ``beam_search`` append what each step saw and
decided, as plain data: the live translator page's decoding lab shows the same steps,
recorded by its JavaScript copy of these loops, and its tests compare the two.
Introduced in chapter 10, From vectors to words: decoding.
"""
from __future__ import annotations

from contextlib import contextmanager
from itertools import accumulate

import torch

from .checks import check_positive_int, check_token_ids
from .masks import padding_mask, subsequent_mask

TRACE_TOP = 5  # the most likely next tokens a greedy step's trace records


@contextmanager
def evaluating(model):
    """The block runs in eval mode without gradients; the model's mode is restored after."""
    was_training = model.training
    model.eval()
    try:
        with torch.no_grad():
            yield
    finally:
        model.train(was_training)


# --- greedy decoding --------------------------------------------------------------------


def _step(model, memory, src_mask, ys, cache):
    """Log-probabilities ``(B, V)`` of the next token after the prefixes ``ys`` ``(B, T)``."""
    if cache is not None:
        out = model.decode(memory, src_mask, ys[:, -1:], None, cache=cache)  # (B, 1, D)
    else:
        T = ys.shape[1]
        out = model.decode(memory, src_mask, ys, subsequent_mask(T, ys.device))  # (B, T, D)
    return model.generator(out[:, -1])  # (B, V)


def greedy_decode(model, src, max_len, bos_id, eos_id, src_mask=None, use_cache=True,
                  pad_id=0, trace=None):
    """Greedy decoding. Args: src ``(B, S)`` ids; src_mask ``(B, 1, S)`` (``None``: built
    from ``pad_id``). Returns ``(B, T)`` LongTensor starting with ``bos_id``, ``T <= max_len``;
    after a row's ``eos_id`` come ``pad_id`` tokens. The model's mode is restored afterwards.
    ``trace``: a list to which each step appends ``{"top_ids", "top_logp", "chosen"}``, the
    ``TRACE_TOP`` most likely tokens of each row, best first, with their log-probabilities
    ``(B, TRACE_TOP)``, and the token each row takes ``(B,)`` (plain lists). The model
    checks ``src`` and ``src_mask`` as it encodes."""
    check_decoding(model, src, max_len, bos_id=bos_id, eos_id=eos_id, pad_id=pad_id)
    with evaluating(model):
        if src_mask is None:
            src_mask = padding_mask(src, pad_id)  # (B, 1, S)
        memory = model.encode(src, src_mask)  # (B, S, D)
        cache = model.new_cache() if use_cache else None
        ys = torch.full((src.shape[0], 1), bos_id, dtype=torch.long, device=src.device)  # (B, 1)
        done = torch.zeros(src.shape[0], dtype=torch.bool, device=src.device)  # (B,)
        while ys.shape[1] < max_len and not bool(done.all()):
            logp = _step(model, memory, src_mask, ys, cache)  # (B, V)
            nxt = logp.argmax(-1).masked_fill(done, pad_id)  # (B,)
            if trace is not None:
                trace.append(_greedy_step(logp, nxt))
            ys = torch.cat([ys, nxt[:, None]], dim=1)  # (B, T + 1)
            done |= nxt == eos_id
        return ys


def _greedy_step(logp, nxt) -> dict:
    """One step of :func:`greedy_decode` as plain data (its ``trace``)."""
    top = logp.topk(min(TRACE_TOP, logp.shape[1]))  # (B, TRACE_TOP)
    return {"top_ids": top.indices.tolist(), "top_logp": top.values.tolist(),
            "chosen": nxt.tolist()}


# --- beam search: the rules one sentence follows, shared by _beam and _beam_batch ------


def _penalty(n, alpha):
    """The length penalty ``((5 + n) / 6) ** alpha`` of ``n`` tokens (1 when alpha = 0)."""
    return ((5 + n) / 6) ** alpha


def _final(tokens, score, alpha):
    """A finished hypothesis ``(tokens, final score)``: its summed log-probability divided
    by the length penalty of its tokens after ``<bos>``."""
    return tokens, float(score) / _penalty(len(tokens) - 1, alpha)


def _settled(finished, scores, k, max_len, alpha):
    """The stopping rule: ``k`` hypotheses have finished and no live one (summed
    log-probabilities ``scores`` ``(K,)``) can still beat the ``k``-th best of them. A live
    score only falls as tokens are added; the longest length penalty is its best case."""
    if len(finished) < k:
        return False
    kth = sorted((s for _, s in finished), reverse=True)[k - 1]
    return float(scores.max()) / _penalty(max_len, alpha) <= kth


def _rank(ys, scores, logp, k, eos_id, alpha):
    """One step of one sentence's search: the ``2k`` best extensions of its live prefixes
    ``ys`` ``(K, T)`` (summed log-probabilities ``scores`` ``(K,)``, next-token ``logp``
    ``(K, V)``), best first, each with its fate. Returns ``ranked``, all of them as
    ``(row, token, score, fate)``, ``row`` the prefix extended; ``ended``, the finished
    ones as :func:`_final` pairs; ``live``, the kept ones as ``(row, token, score)``."""
    top = (scores[:, None] + logp).flatten().topk(min(2 * k, logp.numel()))  # (2k,) of K * V
    ranked, ended, live = [], [], []
    for rank, (s, i) in enumerate(zip(top.values.tolist(), top.indices.tolist())):
        row, tok = divmod(i, logp.shape[1])
        if tok == eos_id and rank < k:  # an ending among the k best: set aside
            ended.append(_final(torch.cat([ys[row], ys.new_tensor([tok])]), s, alpha))
            fate = "finished"
        elif tok != eos_id and len(live) < k:  # one of the k best that go on
            live.append((row, tok, s))
            fate = "live"
        else:
            fate = "dropped"
        ranked.append((row, tok, s, fate))
    return ranked, ended, live


def _extend(ys, live):
    """The ``live`` ``(row, token, score)`` of :func:`_rank` as tensors: ``index`` ``(K',)``,
    the row of ``ys`` ``(K, T)`` each extends; the new prefixes ``(K', T + 1)``; their
    scores ``(K',)``."""
    rows, tokens, scores = zip(*live)
    index = torch.tensor(rows, device=ys.device)  # (K',)
    ys = torch.cat([ys[index], ys.new_tensor(tokens)[:, None]], dim=1)  # (K', T + 1)
    return index, ys, torch.tensor(scores, dtype=torch.float64, device=ys.device)


def _best(finished, ys, scores, max_len, top_beams, alpha):
    """The ``top_beams`` best of ``finished``, best first. Out of length, or with fewer
    than ``top_beams`` finished, the live prefixes ``ys`` ``(K, T)`` compete too, as
    greedy's truncated row."""
    if ys.shape[1] >= max_len or len(finished) < top_beams:
        finished = finished + [_final(seq, s, alpha) for seq, s in zip(ys, scores)]
    return sorted(finished, key=lambda pair: -pair[1])[:top_beams]


# --- beam search ------------------------------------------------------------------------


def beam_search(model, src, max_len, bos_id, eos_id, beam_size=4, top_beams=1,
                length_penalty=0.0, trace=None):
    """Beam search for one source ``(1, S)``. Returns ``top_beams`` pairs ``(tokens, score)``
    best first: tokens a 1-D LongTensor starting with ``bos_id``; score the sum of the
    tokens' log-probabilities divided by ``((5 + n) / 6) ** length_penalty``. The search
    stops when ``beam_size`` hypotheses have finished and no live prefix, even at the most
    favourable length penalty, could score above the ``beam_size``-th of them (or at
    ``max_len``). ``trace``: a list to which each step appends what it saw and decided
    (``_beam_step``)."""
    check_decoding(model, src, max_len, bos_id=bos_id, eos_id=eos_id)
    check_beams(beam_size, top_beams)
    if src.shape[0] != 1:
        raise ValueError(f"beam_search takes one source (1, S), got {tuple(src.shape)}")
    with evaluating(model):
        return _beam(model, src, max_len, bos_id, eos_id, beam_size, top_beams,
                     length_penalty, trace)


def _beam(model, src, max_len, bos_id, eos_id, k, top_beams, alpha, trace=None):
    src_mask = padding_mask(src, model.config.pad_id)  # (1, 1, S)
    memory = model.encode(src, src_mask)  # (1, S, D)
    cache = model.new_cache()
    ys = torch.full((1, 1), bos_id, dtype=torch.long, device=src.device)  # (K, 1)
    scores = torch.zeros(1, dtype=torch.float64, device=src.device)  # (K,)
    finished = []  # (tokens, final score) of each hypothesis that ended
    while ys.shape[1] < max_len and not _settled(finished, scores, k, max_len, alpha):
        K = ys.shape[0]
        mem, mask = memory.expand(K, -1, -1), src_mask.expand(K, -1, -1)
        logp = _step(model, mem, mask, ys, cache).double()  # (K, V)
        ranked, ended, live = _rank(ys, scores, logp, k, eos_id, alpha)
        if trace is not None:
            trace.append(_beam_step(ys, scores, ranked, alpha))
        finished += ended
        if not live:
            break
        index, ys, scores = _extend(ys, live)  # (K',), (K', T + 1), (K',)
        cache.reorder(index)
    return _best(finished, ys, scores, max_len, top_beams, alpha)


def _beam_step(ys, scores, ranked, alpha) -> dict:
    """One step of :func:`_beam` as plain data: ``live``, the hypotheses it extended
    (``tokens``, ``score``: the sum of their log-probabilities), and ``candidates``, its
    ``2k`` best extensions, best first, each with the fate :func:`_rank` gave it; a
    finished one's ``final`` is its score divided by the length penalty."""
    candidates = []
    for row, tok, s, fate in ranked:
        tokens = ys[row].tolist() + [tok]
        candidates.append({"tokens": tokens, "score": s, "fate": fate})
        if fate == "finished":
            candidates[-1]["final"] = _final(tokens, s, alpha)[1]
    return {"live": [{"tokens": y.tolist(), "score": float(s)} for y, s in zip(ys, scores)],
            "candidates": candidates}


def beam_search_batch(model, src, max_len, bos_id, eos_id, beam_size=4, top_beams=1,
                      length_penalty=0.0):
    """:func:`beam_search` for every row of ``src`` ``(B, S)`` at once (rows right-padded
    with the model's ``pad_id``): each step runs one forward for the live hypotheses of
    every sentence still searching, and each sentence makes exactly the decisions of
    :func:`beam_search` on its own (the same candidates, ranks and stopping rule; the
    tests prove the results equal). Returns a list of ``B`` results, each what
    ``beam_search`` returns for that row: ``top_beams`` pairs ``(tokens, score)``."""
    check_decoding(model, src, max_len, bos_id=bos_id, eos_id=eos_id)
    check_beams(beam_size, top_beams)
    with evaluating(model):
        return _beam_batch(model, src, max_len, bos_id, eos_id, beam_size, top_beams,
                           length_penalty)


def _beam_batch(model, src, max_len, bos_id, eos_id, k, top_beams, alpha):
    """``_beam`` for ``B`` sentences side by side. The live hypotheses of all sentences are
    the rows of one ``ys`` ``(R, T)``, those of a sentence next to each other; ``spans``
    says which rows are whose. After each step every sentence ranks its own candidates
    and applies its stopping rule with ``_beam``'s helpers; the rows of those that go on,
    gathered sentence by sentence, make one index that reorders the shared cache."""
    B, dev = src.shape[0], src.device
    src_mask = padding_mask(src, model.config.pad_id)  # (B, 1, S)
    memory = model.encode(src, src_mask)  # (B, S, D)
    cache = model.new_cache()
    ys = torch.full((B, 1), bos_id, dtype=torch.long, device=dev)  # (R, 1)
    scores = torch.zeros(B, dtype=torch.float64, device=dev)  # (R,)
    spans = [(b, b, b + 1) for b in range(B)]  # (sentence, first row, end row) of each live one
    finished = [[] for _ in range(B)]
    last = [None] * B  # each sentence's live (ys, scores) when it stopped
    while spans:
        owner = torch.tensor([b for b, lo, hi in spans for _ in range(lo, hi)], device=dev)
        mem = memory.index_select(0, owner)  # (R, S, D)
        mask = src_mask.index_select(0, owner)  # (R, 1, S)
        logp = _step(model, mem, mask, ys, cache).double()  # (R, V)
        going = []  # (sentence, rows of ys it extends, its new ys, its new scores)
        for b, lo, hi in spans:
            _, ended, live = _rank(ys[lo:hi], scores[lo:hi], logp[lo:hi], k, eos_id, alpha)
            finished[b] += ended
            if not live:  # _beam's `break`: its live hypotheses stay those before this step
                last[b] = (ys[lo:hi], scores[lo:hi])
                continue
            rows, ys_b, scores_b = _extend(ys[lo:hi], live)  # (K',), (K', T + 1), (K',)
            if ys_b.shape[1] < max_len and not _settled(finished[b], scores_b, k, max_len,
                                                        alpha):
                going.append((b, lo + rows, ys_b, scores_b))
            else:
                last[b] = (ys_b, scores_b)
        if not going:
            break
        sentences, rows, new_ys, new_scores = zip(*going)
        ends = accumulate(len(r) for r in rows)  # where each sentence's rows end
        spans = [(b, end - len(r), end) for b, r, end in zip(sentences, rows, ends)]
        cache.reorder(torch.cat(rows))  # (R',)
        ys, scores = torch.cat(new_ys), torch.cat(new_scores)  # (R', T + 1), (R',)
    return [_best(finished[b], *last[b], max_len, top_beams, alpha) for b in range(B)]


# --- the checks: what a decoding call adds to the model's own --------------------------


def check_decoding(model, src, max_len, **ids) -> None:
    """Raise unless ``src`` is a ``(B, S)`` batch of integer ids, ``max_len`` leaves room
    for one token after ``<bos>`` within the model's positions, and each of ``ids``
    (``bos_id=...``) is a target token id. The model checks the rest as it encodes: the
    ids' range, the length, the mask."""
    check_token_ids(src, "src")
    if isinstance(max_len, bool) or not isinstance(max_len, int) or max_len < 2:
        raise ValueError(f"max_len must be an int >= 2 (bos + one token), got {max_len!r}")
    config = model.config
    if max_len - 1 > config.max_len:  # the decoder reads at most max_len - 1 positions
        raise ValueError(f"max_len={max_len} would feed the decoder {max_len - 1} positions, "
                         f"more than the model's config.max_len={config.max_len}")
    for name, value in ids.items():
        if isinstance(value, bool) or not isinstance(value, int):
            raise TypeError(f"{name} must be an int token id, got {type(value).__name__}")
        if not 0 <= value < config.tgt_vocab:
            raise ValueError(f"{name} must be a target token id in [0, {config.tgt_vocab}), "
                             f"got {value}")


def check_beams(beam_size, top_beams) -> None:
    """Raise unless the beam's width and the number of results asked for are positive."""
    check_positive_int(beam_size, "beam_size")
    check_positive_int(top_beams, "top_beams")
