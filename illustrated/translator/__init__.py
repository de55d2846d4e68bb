"""The real translator of chapter 12, Real sentences: a French-to-English Transformer trained
on the Tatoeba sentence pairs, at the scale of a laptop. The core's model
(:mod:`illustrated.model`), with what real sentences need around it:

=================  ==========================================================================
module             what it holds
=================  ==========================================================================
``corpus``         the Tatoeba pairs: light cleaning, the split by English sentence
``tokenizer``      byte-level BPE, one subword vocabulary for both languages
``batching``       length-bucketed batches of a token budget, a share per process
``names``          invented names to copy, and the probe of names copied
``step``           one optimiser step that never waits for the device
``devices``        the device, bfloat16 where native, several processes (DDP)
``dev_curve``      the development loss and BLEU during training, a collapse warning
``training``       ``train_real``: the presets, resumable runs, checkpoint averaging
``inference``      the translator's file, translating (greedy, beam), cross-attention
``limits``         which sentences it refuses or warns about (the live page's rule too)
``scores``         sacreBLEU's BLEU and chrF, bootstrap intervals, scores by group
``probe``          our own probe set of sentences, scored kind by kind
``report``         the evaluation report ``python -m illustrated evaluate`` writes
=================  ==========================================================================

The commands that run it are ``python -m illustrated train --corpus tatoeba``, ``translate``
and ``evaluate`` (:mod:`illustrated.commands`); its files are in :mod:`illustrated.shipped`.
"""
