"""The recommendation from two modes' summaries, and the server-parser hint; pure."""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from nehanda.exam.runner import ModeRun, TaskRun
from nehanda.exam.summary import ModeSummary, summarize
from nehanda.exam.tasks import TASKS
from nehanda.exam.verdict import recommend


def mode(name: Any, passed: int = 12, status: Any = "done", **counts: Any) -> ModeSummary:
    fields = {"leaked": 0, "malformed": 0, "false_calls": 0, "reason": None, **counts}
    return ModeSummary(
        mode=name, status=status, task_runs=12, passed=passed, median_seconds=1.0,
        median_tokens=900, input_tokens=0, output_tokens=0, tasks=(), **fields,
    )  # fmt: skip


@pytest.mark.parametrize(
    ("native", "rescue", "chosen", "reason"),
    [
        (mode("native"), mode("rescue"), "native",
         "native passed 12 of 12, rescue 12 of 12; native needs no tool prompt"),
        (mode("native", 9), mode("rescue", 11), "rescue", "rescue passed 11 of 12, native 9 of 12"),
        (mode("native", 11), mode("rescue", 10, leaked=0), "native",
         "native passed 11 of 12, rescue 10 of 12"),
        (mode("native", false_calls=2), mode("rescue"), "rescue",
         "rescue passed 12 of 12, native 12 of 12; rescue made fewer false calls"),
        (mode("native"), mode("rescue", malformed=1), "native",
         "native passed 12 of 12, rescue 12 of 12; native wrote fewer malformed calls"),
        (mode("native", leaked=5), mode("rescue"), "rescue",
         "rescue passed 12 of 12, native 12 of 12; native worked only by recovering 5 calls "
         "leaked as text"),
        (mode("native", 0), mode("rescue", 0), None,
         "the model passed no task in either mode: it does not call tools reliably on this "
         "server; try a larger or tool-trained model"),
        (mode("native", 0, "skipped", reason="this provider always uses rescue mode"),
         mode("rescue", 7), "rescue",
         "native tools are not available here (this provider always uses rescue mode); "
         "rescue passed 7 of 12"),
        (mode("native", 0, "refused", reason="tools refused"), mode("rescue", 0), None,
         "native tools are not available and rescue passed 0 of 12"),
    ],
)  # fmt: skip
def test_the_better_mode_wins(
    native: ModeSummary, rescue: ModeSummary, chosen: str | None, reason: str
) -> None:
    verdict = recommend([native, rescue], "vllm")
    assert (verdict.mode, verdict.reason) == (chosen, reason)


def test_nothing_is_recommended_from_a_partial_exam_or_one_mode() -> None:
    assert recommend([mode("native")], "vllm", complete=False).mode is None
    only = recommend([mode("rescue")], "vllm")
    assert (only.mode, only.reason) == (
        None,
        "only rescue was examined; --mode both compares the two",
    )


@pytest.mark.parametrize(
    ("provider_type", "says"),
    [
        ("vllm", "--tool-call-parser"),
        ("vllm", "--jinja"),
        ("ollama", "ollama pull"),
        ("lmstudio", "LM Studio"),
        ("anthropic", "does not read this model's calls"),
    ],
)
def test_leaks_come_with_the_fix_for_that_server(provider_type: str, says: str) -> None:
    verdict = recommend([mode("native", leaked=1), mode("rescue")], provider_type)
    assert verdict.hint is not None
    assert verdict.hint.startswith("leaked: the server's parser missed 1 native call (")
    assert says in verdict.hint
    assert recommend([mode("native"), mode("rescue")], provider_type).hint is None


def test_a_summary_counts_runs_medians_and_flaky_tasks() -> None:
    run = ModeRun("native", "done")
    first, second = TASKS[0].name, TASKS[1].name
    run.tasks += [
        TaskRun(first, "native", 1, True, seconds=1.0, input_tokens=100, output_tokens=10),
        TaskRun(second, "native", 1, False, "no call", malformed=1, seconds=3.0),
        TaskRun(first, "native", 2, False, "no call", false_calls=1, seconds=2.0,
                input_tokens=300, output_tokens=30),
        TaskRun(second, "native", 2, False, "no call", leaked=2, seconds=9.0),
    ]  # fmt: skip
    summary = summarize(run, TASKS)
    assert (summary.task_runs, summary.passed, summary.leaked) == (4, 1, 2)
    assert (summary.malformed, summary.false_calls) == (1, 1)
    assert summary.median_seconds == 2.5
    assert summary.median_tokens == 220  # only tasks whose server reported usage
    assert (summary.input_tokens, summary.output_tokens) == (400, 40)
    assert summary.flaky == (first,)
    assert summary.tasks[1].failures == ("no call",)
    assert summary.tasks[2].runs == 0


counts = st.integers(min_value=0, max_value=12)


@given(counts, counts, counts, counts, counts, counts, counts)
def test_the_recommended_mode_is_never_the_worse_one(
    native_passed: int,
    rescue_passed: int,
    native_false: int,
    rescue_false: int,
    native_malformed: int,
    rescue_malformed: int,
    leaked: int,
) -> None:
    native = mode("native", native_passed, false_calls=native_false,
                  malformed=native_malformed, leaked=leaked)  # fmt: skip
    rescue = mode("rescue", rescue_passed, false_calls=rescue_false, malformed=rescue_malformed)
    verdict = recommend([native, rescue], "vllm")
    if not (native_passed or rescue_passed):
        assert verdict.mode is None
        return
    chosen, other = (native, rescue) if verdict.mode == "native" else (rescue, native)
    assert verdict.mode is not None and chosen.passed >= other.passed
    if chosen.passed == other.passed and chosen.false_calls != other.false_calls:
        assert chosen.false_calls < other.false_calls
    assert (verdict.hint is not None) == (leaked > 0)
    assert recommend([rescue, native], "vllm") == verdict  # the order they ran in is no matter
