"""illustrated.translator.inference: how the book displays tokens."""
from illustrated.translator.inference import pieces
from illustrated.translator.tokenizer import SubwordTokenizer


def test_pieces_mark_a_word_start_with_the_books_marker():
    tok = SubwordTokenizer.load()
    ids = tok.encode("Je suis étudiant.")
    assert tok.pieces("Je suis étudiant.") == ["ĠJe", "Ġsuis", "ĠÃ©tudiant", "."]  # as stored
    assert pieces(tok, ids) == ["<bos>", "▁Je", "▁suis", "▁étudiant", ".", "<eos>"]


def test_pieces_show_a_part_of_a_character_by_its_bytes():
    """An emoji the tokenizer never learned is one token per UTF-8 byte: each is shown as
    <F0>, not as the replacement character its lone byte decodes to."""
    tok = SubwordTokenizer.load()
    shown = pieces(tok, tok.encode("chats 🐱."))
    assert shown[-6:] == ["<F0>", "<9F>", "<90>", "<B1>", ".", "<eos>"]
    assert not any("\ufffd" in p for p in pieces(tok, range(4, 4000)))
