"""Tests for illustrated.exercises.masks (chapter 6): check_subsequent_mask and
check_padding_mask accept correct masks built in several ways and name the mistake in each
planted wrong version."""
import re

import pytest
import torch
from torch import nn

from illustrated.exercises import check_padding_mask, check_subsequent_mask
from illustrated.masks import padding_mask, subsequent_mask

from .helpers import HINT, MAX_LINE, assert_fails, assert_one_line, first_line, unwrap

# ---------------------------------------------------------------- subsequent mask


def causal_tril(size):
    return torch.ones(size, size, dtype=torch.bool).tril().unsqueeze(0)


def causal_source(size):  # source 004's way: mark the future, then compare with 0
    return torch.triu(torch.ones(1, size, size), diagonal=1).type(torch.uint8) == 0


def causal_compare(size):
    i = torch.arange(size)
    return (i.view(-1, 1) >= i.view(1, -1)).unsqueeze(0)


@pytest.mark.parametrize("fn", [causal_tril, causal_source, causal_compare, subsequent_mask])
def test_check_subsequent_mask_accepts_correct(fn, capsys):
    assert check_subsequent_mask(fn) is None
    assert_one_line(capsys, check_subsequent_mask)


def causal_one_wrong_at_7(size):
    mask = causal_tril(size)
    if size == 7:
        mask[0, 6, 0] = False  # the last query loses the first key
    return mask


SUBSEQUENT_MISTAKES = [  # (wrong mask, what the message must say)
    (lambda size: torch.triu(torch.ones(1, size, size), diagonal=1).bool(),
     HINT + r"your mask is inverted: True where a position is blocked"),
    (lambda size: torch.ones(1, size, size, dtype=torch.bool).tril(-1),
     HINT + r"your diagonal is off by one: position i may not see itself"),
    (lambda size: torch.ones(1, size, size, dtype=torch.bool).tril(1),
     HINT + r"your diagonal is off by one: position i also sees position i \+ 1"),
    (lambda size: torch.ones(1, size, size, dtype=torch.bool).triu(),
     HINT + r"you kept the upper triangle"),
    (lambda size: torch.ones(size, size, dtype=torch.bool).tril(),
     r"wrong shape: expected result \(1, 4, 4\), got \(4, 4\)\.\nHint: add the leading axis"),
    (lambda size: torch.ones(1, size, size).tril(),
     r"wrong dtype of the result: expected torch\.bool, got torch\.float32\.\nHint: return "
     r"a bool tensor"),
    (lambda size: (torch.triu(torch.ones(1, size, size), diagonal=1) == 0).to(torch.uint8),
     r"test 'size 4' \(size=4\): wrong dtype of the result: expected torch\.bool, got "
     r"torch\.uint8\.\nHint: return a bool tensor"),
    (lambda size: nn.Transformer.generate_square_subsequent_mask(size).unsqueeze(0),
     HINT[:-len("it looks like ")] + r"this looks like an additive float mask"),
    (causal_one_wrong_at_7,
     r"test 'size 7' \(size=7\): wrong values: 1 of the 49 entries differ\.\nHint: print "
     r"your mask for size 4"),
]
SUBSEQUENT_IDS = ["inverted", "no_self", "one_ahead", "upper", "no_batch_axis", "float",
                  "uint8", "additive", "general"]


@pytest.mark.parametrize("fn, pattern", SUBSEQUENT_MISTAKES, ids=SUBSEQUENT_IDS)
def test_check_subsequent_mask_names_the_mistake(fn, pattern):
    assert_fails(check_subsequent_mask, fn, pattern)


def test_check_subsequent_mask_first_failure_names_the_size():
    fn = lambda size: ~subsequent_mask(size)  # noqa: E731
    assert first_line(check_subsequent_mask, fn) == (
        "check_subsequent_mask: on test 'size 4' (size=4): wrong values: 16 of the 16 "
        "entries differ.")


# ---------------------------------------------------------------- padding mask


def pad_ne(tokens, pad_id):
    return (tokens != pad_id).unsqueeze(1)


def pad_index(tokens, pad_id):
    return tokens.ne(pad_id)[:, None, :]


def pad_lengths(tokens, pad_id):  # fine here: none of the tests pads in the middle
    return torch.logical_not(tokens == pad_id).view(tokens.shape[0], 1, -1)


@pytest.mark.parametrize("fn", [pad_ne, pad_index, pad_lengths, padding_mask])
def test_check_padding_mask_accepts_correct(fn, capsys):
    assert check_padding_mask(fn) is None
    assert_one_line(capsys, check_padding_mask)


PADDING_MISTAKES = [
    (lambda tokens, pad_id: (tokens == pad_id).unsqueeze(1),
     HINT + r"your mask is inverted: True on the padding"),
    (lambda tokens, pad_id: (tokens != pad_id).unsqueeze(-1),
     r"expected result \(2, 1, 5\), got \(2, 5, 1\)\." + HINT
     + r"you added the new axis in the wrong place"),
    (lambda tokens, pad_id: tokens != pad_id,
     r"got \(2, 5\)\.\nHint: add the query axis"),
    (lambda tokens, pad_id: (tokens != pad_id).unsqueeze(0),
     r"expected result \(2, 1, 5\), got \(1, 2, 5\)\." + HINT
     + r"you inserted the new axis first, `\(1, B, S\)`"),
    (lambda tokens, pad_id: (tokens != pad_id).unsqueeze(1).expand(-1, tokens.shape[1], -1),
     r"got \(2, 5, 5\)\.\nHint: you expanded the mask to `\(B, S, S\)`"),
    (lambda tokens, pad_id: (tokens != 0).unsqueeze(1),
     r"test 'pad id 1, token 0 is a word' \(tokens \(2, 4\), pad_id=1, int64\): wrong "
     r"values: 5 of the 8 entries differ\." + HINT + r"you compared with 0 instead of "
     r"the `pad_id` argument"),
    (lambda tokens, pad_id: (tokens > pad_id).unsqueeze(1),
     HINT + r"you compared the ids by size \(`tokens > pad_id`\)"),
    (lambda tokens, pad_id: (tokens != pad_id).unsqueeze(1).long(),
     r"expected torch\.bool, got torch\.int64\.\nHint: return a bool tensor"),
    (lambda tokens, pad_id: (tokens != pad_id).unsqueeze(1).float(),
     r"expected torch\.bool, got torch\.float32\.\nHint: return a bool tensor"),
    (lambda tokens, pad_id: (torch.arange(tokens.shape[1])
                             < (tokens != pad_id).sum(1, keepdim=True)).unsqueeze(1),
     r"test 'left-padded' .*: wrong values: 6 of the 12 entries differ\." + HINT
     + r"you built the mask from each sentence's length"),
    (lambda tokens, pad_id: (tokens != pad_id).cumprod(-1).bool().unsqueeze(1),
     r"test 'left-padded' .*: wrong values: 5 of the 12 entries differ\." + HINT
     + r"you blocked everything after a row's first pad \(a `cumprod` along the row\)"),
    (lambda tokens, pad_id: pad_ne(tokens, pad_id) & (tokens != 8).unsqueeze(1),
     r"test 'pad id 9' .*: wrong values: 1 of the 9 entries differ\.\nHint: print your "
     r"mask for this test's tokens"),
]
PADDING_IDS = ["inverted", "query_axis", "no_axis", "batch_axis", "square", "zero_pad",
               "ordered", "long", "float", "from_lengths", "cumprod", "general"]


@pytest.mark.parametrize("fn, pattern", PADDING_MISTAKES, ids=PADDING_IDS)
def test_check_padding_mask_names_the_mistake(fn, pattern):
    assert_fails(check_padding_mask, fn, pattern)


def test_check_padding_mask_reports_an_exception_with_the_inputs():
    def learner(tokens, pad_id):
        return tokens.unsqueeze(1).masked_fill(pad_id)  # wrong call: raises TypeError

    with pytest.raises(AssertionError) as info:
        check_padding_mask(learner)
    assert isinstance(info.value.__context__, TypeError)
    assert re.search(r"^check_padding_mask: on test 'the source's batch' \(tokens \(2, 5\), "
                     r"pad_id=0, int64\): your function raised TypeError: .*\nHint: compare "
                     r"the ids with the pad id", unwrap(str(info.value)))


def test_check_padding_mask_rejects_writing_into_tokens():
    def learner(tokens, pad_id):
        mask = pad_ne(tokens, pad_id)
        tokens[tokens == pad_id] = -1  # "marks" the padding in the caller's tensor
        return mask

    assert_fails(check_padding_mask, learner, r"your function wrote into its input tokens")


@pytest.mark.parametrize("checker", [check_subsequent_mask, check_padding_mask])
def test_non_callable_is_a_type_error(checker):
    with pytest.raises(TypeError, match=rf"^{checker.__name__} expects your function itself"):
        checker(subsequent_mask(3))


@pytest.mark.parametrize("checker", [check_subsequent_mask, check_padding_mask])
def test_none_result_is_reported(checker):
    assert_fails(checker, lambda *args: None, r"returned None \(did you forget `return`\?\)")


@pytest.mark.parametrize("checker, fn", [
    *[pytest.param(check_subsequent_mask, fn, id=f"subsequent-{i}")
      for (fn, _), i in zip(SUBSEQUENT_MISTAKES, SUBSEQUENT_IDS, strict=True)],
    *[pytest.param(check_padding_mask, fn, id=f"padding-{i}")
      for (fn, _), i in zip(PADDING_MISTAKES, PADDING_IDS, strict=True)],
])
def test_no_line_of_a_failure_message_is_too_long(checker, fn):
    with pytest.raises(AssertionError) as info:
        checker(fn)
    assert all(len(line) <= MAX_LINE for line in str(info.value).splitlines())


def test_the_global_seed_is_untouched():
    torch.manual_seed(123)
    before = torch.get_rng_state()
    check_subsequent_mask(subsequent_mask)
    check_padding_mask(padding_mask)
    assert torch.equal(torch.get_rng_state(), before)
