"""Tests for illustrated.exercises._runner: what every checker does alike (refusing a
non-function, reporting exceptions and None, rejecting a function that writes into its
inputs, one Hint paragraph, lines that fit the book, the global seed untouched)."""
import math
import os
import re
import traceback

import pytest
import torch

import illustrated.exercises
from illustrated.exercises import (
    check_attention,
    check_scores,
    check_self_attention,
    check_soft_lookup,
    check_softmax,
    check_transformer,
)
from illustrated.model import Transformer

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
def test_exception_is_kept_and_names_the_input(checker):
    def learner(*args, **kwargs):
        raise ValueError("boom")

    with pytest.raises(AssertionError) as info:
        checker(learner)
    assert isinstance(info.value.__context__, ValueError)  # kept, not printed twice
    assert info.value.__suppress_context__
    assert re.search(rf"^{checker.__name__}: on test '[^']+' \(\w+ \([\d, ]+\).*\): your "
                     r"function raised ValueError: boom\nHint: \S", unwrap(str(info.value)))


@pytest.mark.parametrize("checker", CHECKERS, ids=lambda c: c.__name__)
def test_none_result_is_reported(checker):
    assert_fails(checker, lambda *args, **kwargs: None,
                 r"returned None \(did you forget `return`\?\)")


INPUTS = {check_softmax: ["x"], check_scores: ["q", "k"],
          check_attention: ["q", "k", "v", "mask"], check_soft_lookup: ["query", "keys", "values"],
          check_self_attention: ["x", "w_q", "w_k", "w_v"]}


@pytest.mark.parametrize("checker, i, name", [
    pytest.param(checker, i, name, id=f"{checker.__name__}-{name}")
    for checker, names in INPUTS.items() for i, name in enumerate(names)])
def test_a_function_that_writes_into_an_input_is_rejected(checker, i, name):
    """The right result is not enough: the caller's tensors must come back unchanged."""

    def learner(*args, **kwargs):
        result = CORRECT[checker](*args, **kwargs)
        if i < len(args):  # the mask comes in its own tests only
            args[i].logical_not_() if args[i].dtype == torch.bool else args[i].mul_(2)
        return result

    assert_fails(checker, learner, rf"^{checker.__name__}: on test '[^']+' \(.*\): your "
                                   rf"function wrote into its input {name}: \d+ of the \d+ "
                                   rf"values of {name} differ after the call\.\nHint: your "
                                   rf"function changed its input `{name}` in place \(.*\); "
                                   rf"the caller's tensor is modified\. Compute into a new "
                                   rf"tensor: `{name} = {name} - …` instead of "
                                   rf"`{name} -= …`\.$")


def test_every_input_a_function_wrote_into_is_named():
    def learner(q, k):
        q -= 1
        k -= 1
        return scores_matmul(q + 1, k + 1)

    assert_fails(check_scores, learner, r"wrote into its inputs q and k: 18 of the 18 values "
                                        r"of q differ")


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
    """The book's output boxes cut long lines: wrapped at 64, never inside `code`."""
    with pytest.raises(AssertionError) as info:
        checker(fn)
    message = str(info.value)
    lines = message.splitlines()
    assert max(len(line) for line in lines) <= MAX_LINE, lines
    assert lines[0].startswith(f"{checker.__name__}: on test '")
    assert sum(line.startswith("Hint: ") for line in lines) == 1, lines
    assert message.count("`") % 2 == 0, message
    kept_whole = re.findall(r"`[^`]*`|\w+\s\([\d,\s]*\)", message)  # code, a shape
    broken = [code for code in kept_whole if "\n" in code]
    assert not broken, f"code or a shape broken across lines: {broken}"


def test_checkers_leave_the_global_seed_alone(capsys):
    torch.manual_seed(123)
    expected = torch.rand(3)
    torch.manual_seed(123)
    for checker in CHECKERS:
        checker(CORRECT[checker])
    assert torch.equal(torch.rand(3), expected)
    assert capsys.readouterr().out.count("✓ ") == len(CHECKERS)  # one success each


# ---------------------------------------------------------------- the two rules of diagnosis


def test_a_mistake_that_equals_the_reference_is_never_named():
    """No diagnosis by coincidence: a planted mistake that gives the reference's own output
    on this case (here: one that changes nothing) is skipped, even when the learner's
    output equals it too."""
    from illustrated.exercises._runner import Case, equals, run

    def reference(x):
        return x * 2

    def mistakes(case):
        x = case.inputs["x"]
        return [("it looks like the coincidence.", equals(lambda: x * 2)),
                ("it looks like another coincidence.", equals(lambda: x + x))]

    case = Case("one", {"x": torch.ones(3, dtype=torch.float64)})
    with pytest.raises(AssertionError) as info:  # float32: right values, wrong dtype
        run("check_demo", lambda x: (x * 2).float(), [case], reference, mistakes,
             error_hint="-", general_hint="the general hint.", success="-")
    assert "coincidence" not in str(info.value)
    assert "Hint: keep the inputs' dtype" in str(info.value)


def test_a_correct_float32_lookup_is_told_its_dtype_not_the_temperature():
    """At temperature 1, multiplying by it equals dividing: a right answer in float32 must
    hear about its dtype, not about the temperature."""
    from illustrated.exercises.lookup import _soft_lookup_reference

    message = assert_fails(check_soft_lookup,
                           lambda *a, **kw: _soft_lookup_reference(*a, **kw).float(),
                           r"wrong dtype of the result.*\nHint: keep the inputs' dtype")
    assert "temperature" not in message.split("Hint: ")[1]


def test_nan_from_0_by_0_is_recognised_before_minus_inf():
    """A NaN that first arose from 0/0 is not blamed on a -inf fill, even where the
    planted -inf mistake gives the same NaN."""
    from illustrated.exercises._runner import Case, equals, run

    def reference(w):
        return w / w.sum(-1, keepdim=True).clamp_min(1)  # a zero row stays 0

    def mistakes(case):
        w = case.inputs["w"]  # -inf - (-inf): the same NaN, made another way
        return [("it looks like the -inf fill.",
                 equals(lambda: (w - math.inf) - (w - math.inf)))]

    case = Case("zero row", {"w": torch.zeros(2, 2, dtype=torch.float64)})
    with pytest.raises(AssertionError) as info:
        run("check_demo", lambda w: w / w.sum(-1, keepdim=True), [case], reference,
             mistakes, error_hint="-", general_hint="-", success="-",
             zero_by_zero="it looks like 0/0.")
    assert str(info.value).endswith("Hint: it looks like 0/0.")
    with pytest.raises(AssertionError) as info:  # in place, on a copy: 0/0 all the same
        run("check_demo", lambda w: w.clone().div_(w.sum(-1, keepdim=True)), [case],
             reference, mistakes, error_hint="-", general_hint="-", success="-",
             zero_by_zero="it looks like 0/0.")
    assert str(info.value).endswith("Hint: it looks like 0/0.")
    with pytest.raises(AssertionError) as info:  # NaN from another cause: the mistake
        run("check_demo", lambda w: (w - math.inf) - (w - math.inf), [case], reference,
             mistakes, error_hint="-", general_hint="-", success="-",
             zero_by_zero="it looks like 0/0.")
    assert str(info.value).endswith("Hint: it looks like the -inf fill.")


# ---------------------------------------------------------------- what a learner's error shows

EXERCISES = os.path.dirname(os.path.abspath(illustrated.exercises.__file__))
FUNCTION_CHECKERS = [n for n in illustrated.exercises.__all__ if n != "check_transformer"]


def _helper():
    return torch.ones(2).sum(dim=5)  # IndexError inside a torch op, under the NaN watch


def _learner(*args, **kwargs):
    return _helper()


def _frames(error: BaseException) -> list:
    """(file name, function) of each frame of the error's traceback, outermost first;
    files of illustrated/exercises by name, others as 'learner'."""
    return [(os.path.basename(f.filename) if os.path.dirname(os.path.abspath(f.filename))
             == EXERCISES else "learner", f.name)
            for f in traceback.extract_tb(error.__traceback__)]


@pytest.mark.parametrize("name", FUNCTION_CHECKERS)
def test_a_learners_error_shows_their_frames_and_the_message_only(name):
    """The checker's AssertionError carries the learner's frames (down to the line that
    raised), not the checker's, the runner's or the NaN watch's; the one frame left from
    illustrated/exercises, the wrapper's raise, is marked for IPython and pytest to hide."""
    with pytest.raises(AssertionError) as info:
        getattr(illustrated.exercises, name)(_learner)
    frames = _frames(info.value)
    ours = [f for f in frames if f[0] != "learner"]
    assert ours == [("_frames.py", "checker")], frames
    assert frames[-2:] == [("learner", "_learner"), ("learner", "_helper")], frames
    tb = info.value.__traceback__.tb_next  # the wrapper's frame, after this test's
    assert tb.tb_frame.f_locals.get("__tracebackhide__") is True
    assert "your function raised IndexError" in " ".join(str(info.value).split())


def test_check_transformer_shows_the_learners_frames_only():
    class Raises(Transformer):
        def forward(self, *args):
            return _helper()

    with pytest.raises(AssertionError) as info:
        check_transformer(Raises)
    frames = _frames(info.value)
    assert [f for f in frames if f[0] != "learner"] == [("_frames.py", "checker")], frames
    assert frames[-2:] == [("learner", "forward"), ("learner", "_helper")], frames


def test_in_ipython_the_traceback_is_the_learners_and_the_message():
    """What Jupyter prints: the cell's call, '[... skipping hidden 1 frame]', the
    learner's lines, the message; none of this package's files."""
    ultratb = pytest.importorskip("IPython.core.ultratb")
    with pytest.raises(AssertionError) as info:
        check_softmax(_learner)
    text = ultratb.VerboseTB(theme_name="nocolor").text(
        AssertionError, info.value, info.value.__traceback__)
    assert "skipping hidden 1 frame" in text, text
    assert "return torch.ones(2).sum(dim=5)" in text, text
    assert "check_softmax: on test" in text and "Hint:" in text, text
    assert EXERCISES not in text, text  # no file of illustrated/exercises is shown
