"""The decoder-only model of chapter 13, The decoder alone: the translator's decoder stack
without the encoder, under the causal mask, trained to write English one token after the
other (a small GPT), and the ways of choosing each token; then the parts with which today's
open decoders (Llama, Mistral, Qwen, Gemma) replace its own, and the runs that compare them.

=================  ==========================================================================
module             what it holds
=================  ==========================================================================
``model``          ``DecoderOnly``: embeddings, the stack of causal layers, the generator
``training``       its training on the Tatoeba English sentences, perplexity, its file
``sampling``       temperature, top-k, top-p, seeded draws, ``generate``
``rmsnorm``        ``RMSNorm``: layer norm without the mean (Llama's)
``rope``           rotary position embeddings, interleaved and rotate-half
``swiglu``         the gated feed-forward network and its widths
``gqa``            grouped-query (and multi-query) attention, its smaller cache
``variants``       ``VariantDecoder``: chapter 13's model, one flag per change
``ablation``       the variants trained side by side at one token budget, the length test
=================  ==========================================================================

It reuses the translator's corpus, tokenizer and batches (:mod:`illustrated.translator`);
``python -m illustrated generate`` writes with the shipped model and ``python -m
illustrated train-writer`` trains it (:mod:`illustrated.commands`).
"""
