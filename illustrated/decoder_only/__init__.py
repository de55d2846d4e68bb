"""The decoder-only model of chapter 13, The decoder alone: the translator's decoder stack
without the encoder, under the causal mask, trained to write English one token after the
other (a small GPT), and the ways of choosing each token.

=================  ==========================================================================
module             what it holds
=================  ==========================================================================
``model``          ``DecoderOnly``: embeddings, the stack of causal layers, the generator
``training``       its training on the Tatoeba English sentences, perplexity, its file
``sampling``       temperature, top-k, top-p, seeded draws, ``generate``
=================  ==========================================================================

It reuses the translator's corpus, tokenizer and batches (:mod:`illustrated.translator`);
``python -m illustrated generate`` writes with the shipped model and ``python -m
illustrated train-writer`` trains it (:mod:`illustrated.commands`).
"""
