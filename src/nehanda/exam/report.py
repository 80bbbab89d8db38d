"""The exam's findings for people (a table per mode, the failures, the recommendation)
and for programs (one JSON object, documented in ``docs/output.md``); pure."""

from __future__ import annotations

from typing import Any

from nehanda.exam.estimate import Estimate
from nehanda.exam.runner import Exam, TaskRun
from nehanda.exam.save import SaveResult
from nehanda.exam.summary import ModeSummary
from nehanda.exam.verdict import Verdict
from nehanda.providers.mode import Mode

COLUMNS = ("mode", "passed", "leaked", "malformed", "false", "median time", "median tokens")
_LATE = {"refused": "refused native tools", "skipped": "not examined", "not run": "not run"}


def estimate_line(exam: Exam, estimates: dict[Mode, Estimate]) -> str:
    requests = sum(e.requests for e in estimates.values())
    tokens = sum(e.tokens for e in estimates.values())
    parts = ", ".join(f"{mode} {_thousands(e.tokens)}" for mode, e in estimates.items())
    runs = f" x {exam.runs} runs" if exam.runs > 1 else ""
    return (
        f"{len(exam.tasks)} tasks{runs} in {' and '.join(estimates)}: {requests} requests, "
        f"about {_thousands(tokens)} tokens ({parts}). Ctrl-C stops and keeps the table so far."
    )


def progress_line(outcome: TaskRun, done: int, total: int) -> str:
    """One finished task: how far the exam is, its name, time, tokens and result."""
    verdict = "pass" if outcome.passed else f"FAIL {outcome.failure}"
    run = f" #{outcome.run}" if outcome.run > 1 else ""
    spent = outcome.input_tokens + outcome.output_tokens
    tokens = f"{_thousands(spent):>6} tokens" if spent else "     ? tokens"
    place = f"{done:>{len(str(total))}}/{total}"
    return (
        f"  {place}  {outcome.mode:6}  {outcome.task + run:22}  {outcome.seconds:5.1f} s"
        f"  {tokens}  {verdict}"
    )


def spending_question(exam: Exam, tokens: int) -> str:
    return (
        f"send about {_thousands(tokens)} tokens to {exam.provider} ({exam.provider_type}) "
        f"at {exam.base_url}, a paid endpoint?"
    )


def spending_refused(exam: Exam, tokens: int) -> str:
    return (
        f"the exam would send about {_thousands(tokens)} tokens to {exam.provider} "
        f"({exam.provider_type}) at {exam.base_url}, a paid endpoint, and there is no terminal "
        "to ask: pass --yes to send them"
    )


def render_text(
    exam: Exam, summaries: list[ModeSummary], verdict: Verdict, saved: SaveResult | None
) -> str:
    lines = [f"exam of {exam.model} on {exam.provider} ({exam.provider_type}) at {exam.base_url}"]
    rows = [COLUMNS, *(_row(summary) for summary in summaries)]
    full = [row for row in rows if len(row) == len(COLUMNS)]  # a mode not run says why instead
    widths = [max(len(row[i]) for row in full) for i in range(len(COLUMNS))]
    lines += ["  ".join(v.ljust(w) for v, w in zip(row, widths, strict=False)) for row in rows]
    lines += _failures(summaries)
    if exam.interrupted:
        lines.append("interrupted: the table holds the tasks finished before Ctrl-C")
    if exam.error:
        lines.append(f"stopped: {exam.error}")
    if verdict.hint:
        lines.append(verdict.hint)
    if verdict.mode:
        lines.append(f"recommended: {verdict.mode} ({verdict.reason})")
    else:
        lines.append(f"no mode recommended: {verdict.reason}")
    if saved:
        lines.append(("saved: " if saved.written else "not saved: ") + saved.message)
    return "\n".join(line.rstrip() for line in lines)


def _row(summary: ModeSummary) -> tuple[str, ...]:
    if summary.status in _LATE and not summary.task_runs:
        return (summary.mode, f"{_LATE[summary.status]}: {summary.reason or 'interrupted'}")
    seconds = summary.median_seconds
    return (
        summary.mode,
        f"{summary.passed}/{summary.task_runs}",
        str(summary.leaked) if summary.mode == "native" else "-",
        str(summary.malformed),
        str(summary.false_calls),
        f"{seconds:.1f} s" if seconds is not None else "-",
        _thousands(summary.median_tokens) if summary.median_tokens else "-",
    )


def _failures(summaries: list[ModeSummary]) -> list[str]:
    lines = []
    for summary in summaries:
        if summary.status == "refused" and summary.task_runs:
            lines.append(f"{summary.mode}: refused native tools: {summary.reason}")
        for task in summary.tasks:
            if task.passed < task.runs:
                runs = f" ({task.passed}/{task.runs} runs passed)" if task.runs > 1 else ""
                lines.append(f"  {summary.mode} {task.name}{runs}: {'; '.join(task.failures)}")
    return ["failed:", *lines] if lines else []


def _thousands(tokens: int | None) -> str:
    if tokens is None:
        return "-"
    return f"{tokens / 1000:.1f}k" if tokens >= 1000 else str(tokens)


def exam_json(
    exam: Exam, summaries: list[ModeSummary], verdict: Verdict, saved: SaveResult | None
) -> dict[str, Any]:
    return {
        "type": "exam",
        "provider": exam.provider,
        "provider_type": exam.provider_type,
        "model": exam.model,
        "base_url": exam.base_url,
        "tasks": len(exam.tasks),
        "runs": exam.runs,
        "interrupted": exam.interrupted,
        "error": exam.error,
        "modes": [_mode_json(summary) for summary in summaries],
        "recommended": verdict.mode,
        "reason": verdict.reason,
        "parser_hint": verdict.hint,
        "saved": _saved_json(saved) if saved else None,
    }


def _mode_json(summary: ModeSummary) -> dict[str, Any]:
    return {
        "mode": summary.mode,
        "status": summary.status,
        "reason": summary.reason,
        "task_runs": summary.task_runs,
        "passed": summary.passed,
        "leaked": summary.leaked,
        "malformed": summary.malformed,
        "false_calls": summary.false_calls,
        "median_seconds": summary.median_seconds,
        "median_tokens": summary.median_tokens,
        "input_tokens": summary.input_tokens,
        "output_tokens": summary.output_tokens,
        "flaky": list(summary.flaky),
        "tasks": [
            {
                "name": task.name,
                "skill": task.skill,
                "runs": task.runs,
                "passed": task.passed,
                "failures": list(task.failures),
            }
            for task in summary.tasks
        ],
    }


def _saved_json(saved: SaveResult) -> dict[str, Any]:
    return {
        "written": saved.written,
        "message": saved.message,
        "path": str(saved.path) if saved.path else None,
        "provider": saved.provider,
        "force_manual_tools": saved.value,
    }
