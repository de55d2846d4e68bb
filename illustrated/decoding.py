"""Decoding: turn a trained model and a source sentence into target tokens.

``greedy_decode`` picks the most likely token at every step; with ``use_cache=True`` each
step feeds only the newest token and reuses the keys and values cached by earlier steps
(:class:`~illustrated.layers.DecoderCache`), with the same output as re-running the
decoder on the whole prefix. ``beam_search`` keeps the ``beam_size`` best prefixes, all of
them fed to the model in one batch each step, with the cache reordered to follow them;
``beam_search_batch`` does the same for many sentences at once (one forward per step for
every live hypothesis of every sentence), with the results of ``beam_search`` for each.
Given a ``trace`` list, ``greedy_decode`` and ``beam_search`` append what each step saw and
decided, as plain data: the live translator page's decoding lab shows the same steps,
recorded by its JavaScript copy of these loops, and its tests compare the two.
Introduced in chapter 10, From vectors to words: decoding.
"""
from __future__ import annotations

import torch

from .masks import padding_mask, subsequent_mask

TRACE_TOP = 5  # the most likely next tokens a greedy step's trace records


def _step(model, memory, src_mask, ys, cache):
    """Log-probabilities ``(B, V)`` of the next token after the prefixes ``ys`` ``(B, T)``."""
    if cache is not None:
        out = model.decode(memory, src_mask, ys[:, -1:], None, cache=cache)  # (B, 1, D)
    else:
        T = ys.shape[1]
        out = model.decode(memory, src_mask, ys, subsequent_mask(T, ys.device))  # (B, T, D)
    return model.generator(out[:, -1])  # (B, V)


def _check_ids(src, max_len):
    if not isinstance(src, torch.Tensor) or src.dim() != 2:
        raise ValueError(f"src must be a (B, S) tensor of token ids, got {src!r:.80}")
    if isinstance(max_len, bool) or not isinstance(max_len, int) or max_len < 2:
        raise ValueError(f"max_len must be an int >= 2 (bos + one token), got {max_len!r}")


def _check_token_ids(model, **ids):
    """Each id must be an int inside the model's target vocabulary (when the model says
    how large it is)."""
    config = getattr(model, "config", None)
    V = getattr(config, "tgt_vocab", None)
    for name, value in ids.items():
        if isinstance(value, bool) or not isinstance(value, int):
            raise TypeError(f"{name} must be an int token id, got {type(value).__name__}")
        if V is not None and not 0 <= value < V:
            raise ValueError(f"{name} must be a target token id in [0, {V}), got {value}")


def greedy_decode(model, src, max_len, bos_id, eos_id, src_mask=None, use_cache=True,
                  pad_id=0, trace=None):
    """Greedy decoding. Args: src ``(B, S)`` ids; src_mask ``(B, 1, S)`` (``None``: built
    from ``pad_id``). Returns ``(B, T)`` LongTensor starting with ``bos_id``, ``T <= max_len``;
    after a row's ``eos_id`` come ``pad_id`` tokens. The model's mode is restored afterwards.
    ``trace``: a list to which each step appends ``{"top_ids", "top_logp", "chosen"}``, the
    ``TRACE_TOP`` most likely tokens of each row, best first, with their log-probabilities
    ``(B, TRACE_TOP)``, and the token each row takes ``(B,)`` (plain lists)."""
    _check_ids(src, max_len)
    _check_token_ids(model, bos_id=bos_id, eos_id=eos_id, pad_id=pad_id)
    was_training = model.training
    model.eval()
    try:
        with torch.no_grad():
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
    finally:
        model.train(was_training)


def _greedy_step(logp, nxt) -> dict:
    """One step of :func:`greedy_decode` as plain data (its ``trace``)."""
    top = logp.topk(min(TRACE_TOP, logp.shape[1]))  # (B, TRACE_TOP)
    return {"top_ids": top.indices.tolist(), "top_logp": top.values.tolist(),
            "chosen": nxt.tolist()}


def beam_search(model, src, max_len, bos_id, eos_id, beam_size=4, top_beams=1,
                length_penalty=0.0, trace=None):
    """Beam search for one source ``(1, S)``. Returns ``top_beams`` pairs ``(tokens, score)``
    best first: tokens a 1-D LongTensor starting with ``bos_id``; score the sum of the
    tokens' log-probabilities divided by ``((5 + n) / 6) ** length_penalty``. The search
    stops when ``beam_size`` hypotheses have finished and no live prefix, even at the most
    favourable length penalty, could score above the ``beam_size``-th of them (or at
    ``max_len``). ``trace``: a list to which each step appends what it saw and decided
    (``_beam_step``)."""
    _check_ids(src, max_len)
    if src.shape[0] != 1:
        raise ValueError(f"beam_search takes one source (1, S), got {tuple(src.shape)}")
    _check_token_ids(model, bos_id=bos_id, eos_id=eos_id)
    return _evaluating(model, _beam, src, max_len, bos_id, eos_id, beam_size, top_beams,
                       length_penalty, trace)


def _evaluating(model, search, *args):
    """``search(model, *args)`` in eval mode without gradients, as :func:`greedy_decode`
    runs; the model's mode is restored afterwards."""
    was_training = model.training
    model.eval()
    try:
        with torch.no_grad():
            return search(model, *args)
    finally:
        model.train(was_training)


def _beam(model, src, max_len, bos_id, eos_id, k, top_beams, alpha, trace=None):
    src_mask = padding_mask(src, model.config.pad_id)  # (1, 1, S)
    memory = model.encode(src, src_mask)  # (1, S, D)
    cache = model.new_cache()
    ys = torch.full((1, 1), bos_id, dtype=torch.long, device=src.device)  # (K, 1)
    scores = torch.zeros(1, dtype=torch.float64, device=src.device)  # (K,)
    finished = []

    def final(tokens, score):
        n = tokens.numel() - 1
        return tokens, float(score) / ((5 + n) / 6) ** alpha

    def settled():
        # k finished hypotheses, and no live one can still beat the k-th best: a live score
        # only falls as tokens are added; the longest length penalty is its best case.
        if len(finished) < k:
            return False
        kth = sorted((s for _, s in finished), reverse=True)[k - 1]
        return float(scores.max()) / ((5 + max_len) / 6) ** alpha <= kth

    while ys.shape[1] < max_len and ys.shape[0] > 0 and not settled():
        K = ys.shape[0]
        mem, mask = memory.expand(K, -1, -1), src_mask.expand(K, -1, -1)
        logp = _step(model, mem, mask, ys, cache).double()  # (K, V)
        cand = (scores[:, None] + logp).flatten()  # (K * V,)
        top = cand.topk(min(2 * k, cand.numel()))
        rows, keep = [], []
        for rank, (s, i) in enumerate(zip(top.values, top.indices)):
            row, tok = divmod(int(i), logp.shape[1])
            seq = torch.cat([ys[row], torch.tensor([tok], device=src.device)])
            if tok == eos_id:
                if rank < k:
                    finished.append(final(seq, s))
            elif len(keep) < k:
                rows.append(row)
                keep.append((seq, s))
        if trace is not None:
            trace.append(_beam_step(ys, scores, top, logp.shape[1], k, eos_id, final))
        if not keep:
            break
        index = torch.tensor(rows, device=src.device)
        cache.reorder(index)
        ys = torch.stack([seq for seq, _ in keep])  # (K', T + 1)
        scores = torch.stack([s for _, s in keep])  # (K',)
    if ys.shape[1] >= max_len or len(finished) < top_beams:
        # Out of length: the unfinished hypotheses compete too, as greedy's truncated row.
        finished += [final(seq, s) for seq, s in zip(ys, scores)]
    finished.sort(key=lambda pair: -pair[1])
    return finished[:top_beams]


def _beam_step(ys, scores, top, V, k, eos_id, final) -> dict:
    """One step of :func:`_beam` as plain data: ``live``, the hypotheses it extended
    (``tokens``, ``score``: the sum of their log-probabilities), and ``candidates``, its
    ``2k`` best extensions, best first, each with the fate ``_beam`` gives it: ``"finished"``
    (``<eos>`` among the ``k`` best; ``final`` is its score divided by the length penalty),
    ``"live"`` (one of the first ``k`` others) or ``"dropped"``."""
    candidates, kept = [], 0
    for rank, (s, i) in enumerate(zip(top.values.tolist(), top.indices.tolist())):
        row, tok = divmod(i, V)
        tokens = ys[row].tolist() + [tok]
        if tok == eos_id:
            fate = "finished" if rank < k else "dropped"
        else:
            fate = "live" if kept < k else "dropped"
            kept += fate == "live"
        candidates.append({"tokens": tokens, "score": s, "fate": fate})
        if fate == "finished":
            candidates[-1]["final"] = final(torch.tensor(tokens), s)[1]
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
    _check_ids(src, max_len)
    _check_token_ids(model, bos_id=bos_id, eos_id=eos_id)
    return _evaluating(model, _beam_batch, src, max_len, bos_id, eos_id, beam_size,
                       top_beams, length_penalty)


def _beam_batch(model, src, max_len, bos_id, eos_id, k, top_beams, alpha):
    """``_beam`` for ``B`` sentences side by side. The live hypotheses of all sentences are
    the rows of one ``ys`` ``(R, T)``, those of a sentence next to each other; ``spans``
    says which rows are whose. After each step every sentence ranks its own candidates
    exactly as ``_beam`` does, and one index reorders the shared cache."""
    B, dev = src.shape[0], src.device
    src_mask = padding_mask(src, model.config.pad_id)  # (B, 1, S)
    memory = model.encode(src, src_mask)  # (B, S, D)
    cache = model.new_cache()
    ys = torch.full((B, 1), bos_id, dtype=torch.long, device=dev)  # (R, 1)
    scores = torch.zeros(B, dtype=torch.float64, device=dev)  # (R,)
    spans = [(b, b, b + 1) for b in range(B)]  # (sentence, first row, end row) of each live one
    finished = [[] for _ in range(B)]
    last = [None] * B  # each sentence's live (ys, scores) when it stopped

    def final(tokens, score):
        n = tokens.numel() - 1
        return tokens, float(score) / ((5 + n) / 6) ** alpha

    def settled(b, live_scores):  # as _beam's settled(), for sentence b
        if len(finished[b]) < k:
            return False
        kth = sorted((s for _, s in finished[b]), reverse=True)[k - 1]
        return float(live_scores.max()) / ((5 + max_len) / 6) ** alpha <= kth

    while spans:
        owner = torch.tensor([b for b, lo, hi in spans for _ in range(lo, hi)], device=dev)
        mem, mask = memory.index_select(0, owner), src_mask.index_select(0, owner)  # (R, S, D), (R, 1, S)
        logp = _step(model, mem, mask, ys, cache).double()  # (R, V)
        V = logp.shape[1]
        rows, seqs, new_scores, new_spans = [], [], [], []
        for b, lo, hi in spans:
            cand = (scores[lo:hi, None] + logp[lo:hi]).flatten()  # (K * V,)
            top = cand.topk(min(2 * k, cand.numel()))
            keep = []
            for rank, (s, i) in enumerate(zip(top.values, top.indices)):
                row, tok = divmod(int(i), V)
                seq = torch.cat([ys[lo + row], torch.tensor([tok], device=dev)])
                if tok == eos_id:
                    if rank < k:
                        finished[b].append(final(seq, s))
                elif len(keep) < k:
                    rows.append(lo + row)
                    keep.append((seq, s))
            if not keep:  # _beam's `break`: its live hypotheses stay those before this step
                last[b] = (ys[lo:hi], scores[lo:hi])
                continue
            kept = torch.stack([s for _, s in keep])  # (K',)
            if ys.shape[1] + 1 < max_len and not settled(b, kept):
                new_spans.append((b, len(seqs), len(seqs) + len(keep)))
            else:
                last[b] = (torch.stack([seq for seq, _ in keep]), kept)
                rows = rows[:len(rows) - len(keep)]  # its rows leave the batch
                continue
            seqs += [seq for seq, _ in keep]
            new_scores.append(kept)
        if not new_spans:
            break
        cache.reorder(torch.tensor(rows, device=dev))
        ys = torch.stack(seqs)  # (R', T + 1)
        scores = torch.cat(new_scores)  # (R',)
        spans = new_spans
    results = []
    for b in range(B):
        live_ys, live_scores = last[b]
        if live_ys.shape[1] >= max_len or len(finished[b]) < top_beams:
            finished[b] += [final(seq, s) for seq, s in zip(live_ys, live_scores)]
        finished[b].sort(key=lambda pair: -pair[1])
        results.append(finished[b][:top_beams])
    return results
