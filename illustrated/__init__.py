"""illustrated: the companion package of *The Illustrated Transformer, tested*.

Every chapter of the book imports its model parts from here, and ``tests/`` proves
them against PyTorch's own modules. One concept lives in one module. The top level is the
small core the chapters build:

==================  ========================================================  =========
module              what it holds                                             chapter
==================  ========================================================  =========
``checks``          the plain input checks where tensors come in              all
``attention``       scaled dot-product attention, multi-head attention        3-5
``masks``           padding and causal (subsequent) masks                     6
``positional``      sinusoidal positional encoding                            7
``layers``          embeddings, feed-forward, residual+norm, enc/dec layers   8-9
``model``           the full encoder-decoder ``Transformer``                  1, 9
``kv_cache``        the keys and values kept between decoding steps           10, 13, 15
``decoding``        greedy decoding with a key/value cache, beam search       10
``data``            toy French-English corpus, vocabulary, batching           11
``loss``            label-smoothed loss (KL form)                             11
``schedule``        the paper's learning-rate schedule                        11
``training``        the toy translator's training loop and its checkpoint     11
``checkpoint``      atomic checkpoint files, read back with a format check    11, 12
``counting``        parameters and FLOPs of a call                            1, 5, 13-15
``interop``         ``from_torch``, ``fuse(model)``: to and from PyTorch's    5, 8, 9
                    modules; the fast copy in PyTorch's layout
``errata``          ``check_claim``: a source against the corrected version   appendix
==================  ========================================================  =========

Each application, and each helper of the book, is a subpackage of its own:

==================  ========================================================  =========
subpackage          what it holds                                             chapter
==================  ========================================================  =========
``translator``      the real translator: the Tatoeba corpus, subword          12
                    tokens, batches, its training, translating, its scores
``decoder_only``    the decoder stack alone: the model, its training,         13
                    sampling
``web``             the live pages' ONNX graphs                               live pages
``commands``        ``python -m illustrated translate|generate|train|...``    10-13
``shipped``         the files the commands read: the pairs, the models        10-13
``draw``            figures computed from tensors, in each edition's words    all
``explorers``       interactive charts of key experiments, for the website    2-10
``exercises``       auto-checkers for the end-of-chapter exercises            2-16
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
