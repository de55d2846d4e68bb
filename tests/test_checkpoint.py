"""Tests for illustrated.checkpoint: atomic writes, format-checked reads."""
import pytest
import torch

from illustrated.checkpoint import read_checked, write_atomically


def test_round_trip_leaves_no_temporary_file(tmp_path):
    path = write_atomically({"format": "f-1", "w": torch.arange(3)}, tmp_path / "sub" / "a.pt")
    assert list(path.parent.iterdir()) == [path]
    assert torch.equal(read_checked(path, "f-1", "test file")["w"], torch.arange(3))


def test_a_failed_write_keeps_the_previous_file(tmp_path, monkeypatch):
    path = write_atomically({"format": "f-1", "n": 1}, tmp_path / "a.pt")

    def broken_save(blob, f):
        open(f, "wb").write(b"half")
        raise KeyboardInterrupt  # killed while writing

    monkeypatch.setattr(torch, "save", broken_save)
    with pytest.raises(KeyboardInterrupt):
        write_atomically({"format": "f-1", "n": 2}, path)
    monkeypatch.undo()
    assert read_checked(path, "f-1", "test file")["n"] == 1


def test_wrong_format_and_damaged_file_are_named(tmp_path):
    path = write_atomically({"format": "other"}, tmp_path / "a.pt")
    with pytest.raises(ValueError, match="is not a test file"):
        read_checked(path, "f-1", "test file")
    bad = tmp_path / "bad.pt"
    bad.write_bytes(b"not a checkpoint")
    with pytest.raises(ValueError, match="damaged or not a checkpoint"):
        read_checked(bad, "f-1", "test file")
    with pytest.raises(FileNotFoundError):
        read_checked(tmp_path / "missing.pt", "f-1", "test file")
