"""The palette of every figure of the book (introduced in chapter 1, The black box).

Every function of :mod:`illustrated.draw` takes its colours from these constants, and
:mod:`illustrated.draw` re-exports them all: ``draw.QUERY`` is the colour of ``q`` in
every figure.
"""
INK = "#2E3440"  # text, outlines, arrows
MUTED = "#7B8794"  # secondary text, faint outlines
PAPER = "#F1F3F5"  # frames and boxes holding a single number
ACCENT = "#E4572E"  # the part a chapter is about (stack_diagram's highlight)
ACCENT_LIGHT = "#FBD9CF"  # a highlighted frame that contains other boxes
ENCODER = "#B7E4C7"
DECODER = "#F8C8D4"
ATTENTION = "#FFD8A8"  # every kind of attention sublayer
FEED_FORWARD = "#BFDBFE"
ADD_NORM = "#FFF3B0"
POSITIONAL = "#DCCBF2"
EMBEDDING = "#2F9E44"  # x, the word vectors
QUERY = "#9C36B5"  # q
KEY = "#E8590C"  # k
VALUE = "#1C7ED6"  # v
OUTPUT = "#D6336C"  # z
SERIES = (VALUE, KEY, EMBEDDING, QUERY, OUTPUT, MUTED)  # curves and histograms, in order
DIVERGING = "RdBu_r"  # signed values: blue < 0 < red, white at 0
SEQUENTIAL = "Blues"  # probabilities in [0, 1]
