"""The tests draw figures and explorers as the book's executions do: with their Chinese
renderings (``illustrated.words.carried_editions``; a reader's run carries English only,
which tests/test_words.py checks)."""
import os

os.environ.setdefault("ILLUSTRATED_EDITIONS", "en,zh_CN")
