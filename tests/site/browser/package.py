"""What the browser tests compare the live pages and the explorers with: the package's
functions, named in this one place. Imported by the fixtures and tests that need them, so
that a test process that runs none of those never loads torch."""
import torch

from illustrated.commands import generate as generate_command
from illustrated.commands.generate import percent, prompt_ids, slice_words, token_slice
from illustrated.decoder_only.sampling import generate
from illustrated.decoder_only.training import load_lm
from illustrated.decoding import beam_search, greedy_decode
from illustrated.explorers import (MASK_CELLS, beam_nodes, mask_cells, position_similarity,
                                   scaling_weights, temperature_weights)
from illustrated.positional import sinusoidal_encoding
from illustrated.translator import limits
from illustrated.translator.corpus import load_split
from illustrated.translator.inference import MAX_LEN, load_translator, prepare, translate
from illustrated.translator.limits import training_profile
from illustrated.translator.tokenizer import SubwordTokenizer

__all__ = ["torch", "limits", "load_split", "beam_search", "greedy_decode", "MASK_CELLS",
           "beam_nodes", "mask_cells", "position_similarity", "scaling_weights",
           "temperature_weights", "prompt_ids", "generate_command", "percent", "slice_words",
           "token_slice", "training_profile", "load_lm",
           "sinusoidal_encoding", "generate", "SubwordTokenizer", "MAX_LEN", "load_translator",
           "prepare", "translate"]
