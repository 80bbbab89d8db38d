"""Native or rescue tool calling: the specification's four activation rules, pure.

Rescue (tool schemas in the system prompt, calls parsed from the model's text) is
active when any rule holds; otherwise the provider's native tool calling is used.
"""

from __future__ import annotations

from dataclasses import dataclass

from nehanda.config.profiles import profile_for
from nehanda.types import Origin

Mode = Origin  # the mode a call came through is its origin


@dataclass(frozen=True)
class ModeDecision:
    mode: Mode
    reason: str


def decide_mode(
    provider_type: str,
    *,
    force_manual_tools: bool = False,
    native_tools: bool | None = None,
    tools_refused: bool = False,
) -> ModeDecision:
    """Picks the tool-calling path.

    ``native_tools`` is what the provider detected for the model (``None``: it cannot
    tell in advance); ``tools_refused`` is true once the provider has answered that
    the model does not support tools.
    """
    profile = profile_for(provider_type)
    if force_manual_tools:
        return ModeDecision("rescue", "force_manual_tools is set for this provider")
    if profile.forces_rescue:
        return ModeDecision("rescue", f"the {provider_type} endpoint does not accept native tools")
    if native_tools is False:
        if profile.tools_detected_by:
            return ModeDecision("rescue", f"{profile.tools_detected_by} lists no tools capability")
        return ModeDecision("rescue", "the model does not advertise native tool support")
    if tools_refused:
        return ModeDecision("rescue", "the provider answered that the model does not support tools")
    if native_tools and profile.tools_detected_by:
        return ModeDecision("native", f"{profile.tools_detected_by} lists the tools capability")
    return ModeDecision(
        "native", f"the {provider_type} profile says so; a refusal would switch to rescue"
    )
