"""What the tests of every checker share: how a success and a failure must look, and the
softmax variants that other exercises reuse."""
import re

import pytest
import torch

HINT = r"\nHint: it looks like "  # every diagnosed mistake starts its hint like this
MAX_LINE = 68  # the checkers wrap at 64 characters; the book's output boxes cut longer lines


def assert_one_line(capsys, checker) -> str:
    """A success: one message, wrapped to fit the book's output boxes; returned unwrapped
    (on one line, ending with a newline)."""
    out = capsys.readouterr().out
    assert out.startswith(f"✓ {checker.__name__}: your "), out
    assert out.endswith("\n") and not out.endswith("\n\n"), out
    too_long = [line for line in out.splitlines() if len(line) > MAX_LINE]
    assert not too_long, f"lines longer than {MAX_LINE} characters: {too_long}"
    continued = out.splitlines()[1:]
    assert all(line.startswith("  ") for line in continued), out  # one message, indented
    return " ".join(out.split()) + "\n"


def assert_layout(message: str, checker) -> None:
    """A failure message: what failed, then exactly one Hint paragraph, no line too long."""
    assert message.startswith(f"{checker.__name__}: on test '"), message
    assert message.count("\nHint: ") == 1, message
    too_long = [line for line in message.splitlines() if len(line) > MAX_LINE]
    assert not too_long, f"lines longer than {MAX_LINE} characters: {too_long}"


def unwrap(message: str) -> str:
    """Undo the wrapping: the first paragraph on one line, then ``Hint: `` and the hint on
    one line, so that a pattern matches wherever the line breaks fell."""
    head, hint = message.split("\nHint: ")
    return f"{' '.join(head.split())}\nHint: {' '.join(hint.split())}"


def failure(checker, fn) -> str:
    """``checker(fn)`` must fail: its message, layout checked, then unwrapped."""
    with pytest.raises(AssertionError) as info:
        checker(fn)
    assert_layout(str(info.value), checker)
    return unwrap(str(info.value))


def assert_fails(checker, fn, pattern: str) -> str:
    """``checker(fn)`` must fail with a message (unwrapped) in which ``pattern`` is found."""
    message = failure(checker, fn)
    assert re.search(pattern, message), f"{pattern!r} not found in:\n{message}"
    return message


def first_line(checker, fn) -> str:
    """What failed, the paragraph before the hint, as one line."""
    return failure(checker, fn).split("\nHint: ")[0]


def softmax_torch(x):
    return torch.softmax(x, dim=-1)


def softmax_stable(x):
    e = (x - x.max(dim=-1, keepdim=True).values).exp()
    return e / e.sum(dim=-1, keepdim=True)


def softmax_naive(x):
    return x.exp() / x.exp().sum(dim=-1, keepdim=True)
