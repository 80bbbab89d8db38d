"""A mode's outcomes summed up: the row of the exam's table, and each task's record; pure."""

from __future__ import annotations

import statistics
from dataclasses import dataclass

from nehanda.exam.runner import ModeRun, Status, TaskRun
from nehanda.exam.tasks import Task
from nehanda.providers.mode import Mode


@dataclass(frozen=True)
class TaskSummary:
    name: str
    skill: str
    runs: int
    passed: int
    failures: tuple[str, ...]  # each distinct reason once, in the order first seen

    @property
    def flaky(self) -> bool:
        return 0 < self.passed < self.runs


@dataclass(frozen=True)
class ModeSummary:
    mode: Mode
    status: Status
    reason: str | None
    task_runs: int
    passed: int
    leaked: int
    malformed: int
    false_calls: int
    median_seconds: float | None
    median_tokens: int | None
    input_tokens: int
    output_tokens: int
    tasks: tuple[TaskSummary, ...]

    @property
    def flaky(self) -> tuple[str, ...]:
        return tuple(task.name for task in self.tasks if task.flaky)


def summarize(run: ModeRun, tasks: tuple[Task, ...]) -> ModeSummary:
    outcomes = run.tasks
    tokens = [o.input_tokens + o.output_tokens for o in outcomes if o.input_tokens]
    return ModeSummary(
        mode=run.mode,
        status=run.status,
        reason=run.reason,
        task_runs=len(outcomes),
        passed=sum(o.passed for o in outcomes),
        leaked=sum(o.leaked for o in outcomes),
        malformed=sum(o.malformed for o in outcomes),
        false_calls=sum(o.false_calls for o in outcomes),
        median_seconds=statistics.median(o.seconds for o in outcomes) if outcomes else None,
        median_tokens=round(statistics.median(tokens)) if tokens else None,
        input_tokens=sum(o.input_tokens for o in outcomes),
        output_tokens=sum(o.output_tokens for o in outcomes),
        tasks=tuple(_task(task, [o for o in outcomes if o.task == task.name]) for task in tasks),
    )


def _task(task: Task, outcomes: list[TaskRun]) -> TaskSummary:
    failures = dict.fromkeys(o.failure for o in outcomes if o.failure)
    return TaskSummary(
        task.name, task.skill, len(outcomes), sum(o.passed for o in outcomes), tuple(failures)
    )
