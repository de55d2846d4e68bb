"""illustrated.translator.inference: how the book displays tokens."""
from illustrated.translator.inference import pieces
from illustrated.translator.tokenizer import SubwordTokenizer


def test_pieces_mark_a_word_start_with_the_books_marker():
    tok = SubwordTokenizer.load()
    ids = tok.encode("Je suis étudiant.")
    assert tok.pieces("Je suis étudiant.") == ["ĠJe", "Ġsuis", "ĠÃ©tudiant", "."]  # as stored
    assert pieces(tok, ids) == ["<bos>", "▁Je", "▁suis", "▁étudiant", ".", "<eos>"]
