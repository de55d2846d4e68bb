"""Tests for illustrated.exercises._runner: what every checker does alike (refusing a
non-function, reporting exceptions and None, one Hint line, the global seed untouched)."""
import re

import pytest
import torch

from illustrated.exercises import (
    check_attention,
    check_scores,
    check_self_attention,
    check_soft_lookup,
    check_softmax,
)

from . import test_attention, test_lookup, test_self_attention, test_softmax
from .helpers import MAX_LINE, assert_fails, assert_one_line, softmax_torch, unwrap
from .test_attention import attention_package, scores_matmul
from .test_lookup import lookup_softmax
from .test_self_attention import self_attention_package

CHECKERS = [check_softmax, check_scores, check_attention, check_soft_lookup,
            check_self_attention]


CORRECT = {check_softmax: softmax_torch, check_scores: scores_matmul,
           check_attention: attention_package, check_soft_lookup: lookup_softmax,
           check_self_attention: self_attention_package}


@pytest.mark.parametrize("checker", CHECKERS, ids=lambda c: c.__name__)
def test_non_callable_is_a_type_error(checker):
    with pytest.raises(TypeError, match=rf"^{checker.__name__} expects your function itself, "
                                        rf"e\.g\. {checker.__name__}\(my_function\), got "
                                        rf"Tensor$"):
        checker(torch.ones(3))


@pytest.mark.parametrize("checker", CHECKERS, ids=lambda c: c.__name__)
def test_exception_is_chained_and_names_the_input(checker):
    def learner(*args, **kwargs):
        raise ValueError("boom")

    with pytest.raises(AssertionError) as info:
        checker(learner)
    assert isinstance(info.value.__cause__, ValueError)
    assert re.search(rf"^{checker.__name__}: on test '[^']+' \(\w+ \([\d, ]+\).*\): your "
                     r"function raised ValueError: boom\nHint: \S", unwrap(str(info.value)))


@pytest.mark.parametrize("checker", CHECKERS, ids=lambda c: c.__name__)
def test_none_result_is_reported(checker):
    assert_fails(checker, lambda *args, **kwargs: None,
                 r"returned None \(did you forget `return`\?\)")


@pytest.mark.parametrize("checker", CHECKERS, ids=lambda c: c.__name__)
def test_a_function_that_writes_into_its_inputs_is_judged_fairly(checker, capsys):
    def learner(*args, **kwargs):
        result = CORRECT[checker](*args, **kwargs)
        for a in args:
            if a.is_floating_point():
                a.zero_()
        return result

    assert checker(learner) is None
    assert_one_line(capsys, checker)


@pytest.mark.parametrize("checker", CHECKERS, ids=lambda c: c.__name__)
def test_every_diagnosis_is_reachable_from_the_hint_prefix(checker):
    """A failing check always ends with exactly one Hint line."""
    with pytest.raises(AssertionError) as info:
        checker(lambda *args, **kwargs: torch.zeros(()))
    message = str(info.value)
    assert len(re.findall(r"\nHint: ", message)) == 1
    assert message.startswith(f"{checker.__name__}: on test '")


PLANTED = [  # every planted mistake of every checker: (checker, wrong function)
    pytest.param(checker, fn, id=f"{checker.__name__}-{name}")
    for checker, mistakes, names in [
        (check_softmax, test_softmax.MISTAKES, test_softmax.MISTAKE_IDS),
        (check_scores, test_attention.SCORES_MISTAKES, test_attention.SCORES_MISTAKE_IDS),
        (check_attention, test_attention.MISTAKES, test_attention.MISTAKE_IDS),
        (check_soft_lookup, test_lookup.MISTAKES, test_lookup.MISTAKE_IDS),
        (check_self_attention, test_self_attention.MISTAKES, test_self_attention.MISTAKE_IDS),
    ]
    for (fn, _), name in zip(mistakes, names, strict=True)
]


@pytest.mark.parametrize("checker, fn", PLANTED)
def test_no_line_of_a_failure_message_is_too_long_for_the_book(checker, fn):
    with pytest.raises(AssertionError) as info:
        checker(fn)
    lines = str(info.value).splitlines()
    assert max(len(line) for line in lines) <= MAX_LINE, lines
    assert lines[0].startswith(f"{checker.__name__}: on test '")
    assert sum(line.startswith("Hint: ") for line in lines) == 1, lines


def test_checkers_leave_the_global_seed_alone(capsys):
    torch.manual_seed(123)
    expected = torch.rand(3)
    torch.manual_seed(123)
    for checker in CHECKERS:
        checker(CORRECT[checker])
    assert torch.equal(torch.rand(3), expected)
    assert capsys.readouterr().out.count("\n") == len(CHECKERS)
