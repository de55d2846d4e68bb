"""Auto-checkers for the exercises at the end of chapters 2–13, of the capstone and of
the decoder chapters after it.

Call a checker with *your* function in a notebook cell::

    from illustrated.exercises import check_softmax
    check_softmax(my_softmax)
    # ✓ check_softmax: your softmax matches on 6 tests, including large scores.

Each checker runs your function on random inputs (fixed seeds) and on edge cases, and
compares the result with the package's reference (:mod:`illustrated.attention`). When they
differ it raises ``AssertionError``: the first line says which test failed and on which
shapes, the ``Hint:`` names the mistake your output most resembles. To find it, the
checker computes the usual wrong versions itself (softmax over the wrong axis, no
``√d_k``, inverted mask, ...) and looks for the one your output equals. Your function
must also leave its inputs as they were: one that writes into them (``x -= ...``,
``x.exp_()``) would silently change the caller's tensors, and is refused. When your
function raises, the traceback shows your own lines (down to the one that raised) and
then the checker's message, not the checker's machinery.

Masks follow the package convention: bool, ``True`` means *may attend*.
"""
from .attention import check_attention, check_scores
from .batching import check_token_batches
from .decoder import check_decoder_layer
from .decoding import check_beam_step, check_greedy_decode
from .grouped_query import check_expand_kv, check_grouped_query_attention
from .layer_norm import check_layer_norm
from .lookup import check_soft_lookup
from .loss import check_label_smoothing_loss
from .masks import check_padding_mask, check_subsequent_mask
from .multi_head import check_merge_heads, check_multi_head_attention, check_split_heads
from .positional import check_positional_encoding
from .rms_norm import check_rms_norm
from .rope import check_rope, check_rope_attention
from .sampling import check_top_p
from .self_attention import check_self_attention
from .shift import check_shift
from .softmax import check_softmax
from .transformer import check_transformer

__all__ = [
    "check_soft_lookup",  # chapter 2
    "check_softmax",  # chapters 3 and 4
    "check_self_attention",  # chapter 3
    "check_scores",  # chapter 4
    "check_attention",  # chapter 6 (it needs the masks)
    "check_split_heads",  # chapter 5
    "check_merge_heads",  # chapter 5
    "check_multi_head_attention",  # chapter 5
    "check_subsequent_mask",  # chapter 6
    "check_padding_mask",  # chapter 6
    "check_positional_encoding",  # chapter 7
    "check_layer_norm",  # chapter 8
    "check_decoder_layer",  # chapter 9
    "check_greedy_decode",  # chapter 10
    "check_beam_step",  # chapter 10
    "check_label_smoothing_loss",  # chapter 11
    "check_shift",  # chapter 11
    "check_transformer",  # the capstone
    "check_token_batches",  # Real sentences
    "check_top_p",  # The decoder alone
    "check_rms_norm",  # the decoders chapter after chapter 13
    "check_rope",  # the decoders chapter after chapter 13
    "check_rope_attention",  # the decoders chapter after chapter 13
    "check_expand_kv",  # the decoders chapter after chapter 13
    "check_grouped_query_attention",  # the decoders chapter after chapter 13
]
