"""What the browser tests compare the live pages and the explorers with: the package's
functions, named in this one place. Imported by the fixtures and tests that need them, so
that a test process that runs none of those never loads torch."""
import torch

from illustrated import limits
from illustrated.corpus import load_split
from illustrated.decoding import beam_search, greedy_decode
from illustrated.explorers import (MASK_CELLS, beam_nodes, mask_cells, position_similarity,
                                   scaling_weights, temperature_weights)
from illustrated.generate import prompt_ids
from illustrated.limits import training_profile
from illustrated.lm_training import load_lm
from illustrated.positional import sinusoidal_encoding
from illustrated.sampling import generate
from illustrated.tokenizer import SubwordTokenizer
from illustrated.translator import MAX_LEN, load_translator, prepare, translate

__all__ = ["torch", "limits", "load_split", "beam_search", "greedy_decode", "MASK_CELLS",
           "beam_nodes", "mask_cells", "position_similarity", "scaling_weights",
           "temperature_weights", "prompt_ids", "training_profile", "load_lm",
           "sinusoidal_encoding", "generate", "SubwordTokenizer", "MAX_LEN", "load_translator",
           "prepare", "translate"]
