"""illustrated: the companion package of *The Illustrated Transformer, tested*.

Every chapter of the book imports its model parts from here, and ``tests/`` proves
them against PyTorch's own modules. One concept lives in one module:

==================  ========================================================  =========
module              what it holds                                             chapter
==================  ========================================================  =========
``checks``          the plain input checks every public function calls        all
``masks``           padding and causal (subsequent) masks                     6
``attention``       scaled dot-product attention, multi-head attention        3-5
``kv_cache``        the keys and values kept between decoding steps           10, 13, 15
``interop``         ``from_torch``, ``fuse(model)``: to and from PyTorch's    5, 8, 9, 12
``counting``        parameters and FLOPs of a call                            5, 14, 15
``positional``      sinusoidal positional encoding                            7
``layers``          embeddings, feed-forward, residual+norm, enc/dec layers   8-9
``model``           the full encoder-decoder ``Transformer``                  1, 9
``draw``            figures computed from tensors                             all
``explorers``       interactive charts of key experiments, for the website    2-10
``words``           the figures' words in each edition (English, Chinese)     all
``exercises``       auto-checkers for the end-of-chapter exercises            2-16
``data``            toy French-English corpus, vocabulary, batching           11
``loss``            label-smoothed loss (KL form)                             11
``decoding``        greedy decoding with a key/value cache, beam search       10
``schedule``        the paper's learning-rate schedule                        11
``train``           training loop, checkpoints; ``python -m``                 11
``translate``       the ``python -m illustrated.translate`` command           11, 12
``corpus``          the Tatoeba pairs: normalisation, split by English        12
``tokenizer``       byte-level BPE, one vocabulary for both languages         12
``batching``        length-bucketed batches of a token budget                 12
``trainer``         real training: averaging, resume, devices, DDP            12
``translator``      the real translator's file, greedy/beam, attention        12
``checkpoint``      atomic checkpoint files, read back with a format check    11, 12
``decoder_only``    the decoder stack alone: a causal language model          13
``lm_training``     training it on English sentences; perplexity; its file    13
``sampling``        temperature, top-k, top-p, seeded draws, ``generate``     13
``generate``        the ``python -m illustrated.generate`` command            13
``errata``          ``check_claim``: a source against the corrected version   appendix
==================  ========================================================  =========

Shape letters used in every docstring and shape comment:

* ``B`` batch size
* ``L`` query length (target length ``T`` in the model), ``S`` key/value length
* ``D`` = ``d_model``, the width of every token vector
* ``H`` = ``h``, the number of heads; ``Dk`` = ``d_k`` = ``d_model / h`` per head
* ``V`` vocabulary size

Tensors are batch-first: ``(B, L, D)``.

Mask convention (one for the whole package, see :mod:`illustrated.masks`):
a mask is a ``torch.bool`` tensor in which ``True`` means *may attend*.

Importing this package changes no global state: no seeds, no matplotlib style,
no torch defaults. Submodules are imported explicitly, e.g.
``from illustrated.attention import MultiHeadAttention``.
"""

__version__ = "0.1.0"
