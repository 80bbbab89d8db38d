"""Which mode to use, from the two modes' summaries; and what to tell the server's owner
when its parser let native calls through as text. Pure.

The better mode passed more tasks; on a tie, the one with fewer false calls, then fewer
malformed calls, then fewer leaked calls (a leak works only through nehanda's recovery,
and the user sees the call's markup as text); on a full tie, native, which costs no tool
prompt. Nothing is recommended from a partial exam, from one mode alone, or when
neither mode passed a task.
"""

from __future__ import annotations

from dataclasses import dataclass

from nehanda.exam.summary import ModeSummary
from nehanda.providers.mode import Mode

_OPENAI_COMPATIBLE_HINT = (
    "start vLLM with --enable-auto-tool-choice and the --tool-call-parser for this model "
    "(hermes for Qwen, llama3_json for Llama 3, mistral for Mistral); start llama.cpp's "
    "llama-server with --jinja; in LM Studio, use a model whose chat template supports tools"
)
PARSER_HINTS: dict[str, str] = {
    "vllm": _OPENAI_COMPATIBLE_HINT,
    "openai": _OPENAI_COMPATIBLE_HINT,
    "lmstudio": "LM Studio parses calls only with a chat template that supports tools: "
    "use such a model build, or rescue mode",
    "ollama": "this model's Ollama template does not parse its calls: update the model "
    "(ollama pull) or use rescue mode",
}
_DEFAULT_HINT = "the server's tool-call parser does not read this model's calls"


@dataclass(frozen=True)
class Verdict:
    mode: Mode | None
    reason: str
    hint: str | None = None  # for the server's parser, when native calls leaked


def recommend(
    summaries: list[ModeSummary], provider_type: str, *, complete: bool = True
) -> Verdict:
    hint = parser_hint(summaries, provider_type)
    by_mode = {summary.mode: summary for summary in summaries}
    if not complete:
        return Verdict(None, "the exam was stopped before it finished", hint)
    native, rescue = by_mode.get("native"), by_mode.get("rescue")
    if native is None or rescue is None:
        only = " and ".join(summary.mode for summary in summaries) or "no mode"
        return Verdict(None, f"only {only} was examined; --mode both compares the two", hint)
    if native.status != "done":
        if rescue.passed:
            why = f"native tools are not available here ({native.reason})"
            return Verdict("rescue", f"{why}; rescue passed {_score(rescue)}", hint)
        return Verdict(None, f"native tools are not available and rescue passed {_score(rescue)}")
    if not (native.passed or rescue.passed):
        return Verdict(
            None,
            "the model passed no task in either mode: it does not call tools reliably on "
            "this server; try a larger or tool-trained model",
            hint,
        )
    winner, loser = (rescue, native) if _key(rescue) > _key(native) else (native, rescue)
    return Verdict(winner.mode, _why(winner, loser), hint)


def _key(summary: ModeSummary) -> tuple[int, int, int, int]:
    return (summary.passed, -summary.false_calls, -summary.malformed, -summary.leaked)


def _why(winner: ModeSummary, loser: ModeSummary) -> str:
    scores = f"{winner.mode} passed {_score(winner)}, {loser.mode} {_score(loser)}"
    if winner.passed != loser.passed:
        return scores
    if winner.false_calls != loser.false_calls:
        return f"{scores}; {winner.mode} made fewer false calls"
    if winner.malformed != loser.malformed:
        return f"{scores}; {winner.mode} wrote fewer malformed calls"
    if winner.leaked != loser.leaked:
        return f"{scores}; native worked only by recovering {loser.leaked} calls leaked as text"
    return f"{scores}; native needs no tool prompt"


def _score(summary: ModeSummary) -> str:
    return f"{summary.passed} of {summary.task_runs}"


def parser_hint(summaries: list[ModeSummary], provider_type: str) -> str | None:
    """When native calls leaked: the server's parser missed them, and how to fix that."""
    native = next((s for s in summaries if s.mode == "native"), None)
    if native is None or not native.leaked:
        return None
    fix = PARSER_HINTS.get(provider_type, _DEFAULT_HINT)
    return (
        f"leaked: the server's parser missed {native.leaked} native call"
        f"{'s' if native.leaked != 1 else ''} (nehanda recovered them from the text); {fix}"
    )
