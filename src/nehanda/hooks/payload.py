"""The JSON object a hook reads on stdin, as Claude Code sends it; pure.

Every event carries ``session_id``, ``transcript_path``, ``cwd``, ``permission_mode`` and
``hook_event_name``; each adds its own fields (``tool_name``, ``tool_input``,
``tool_use_id``; ``tool_response``; ``prompt``; ``stop_hook_active``; ``source``;
``reason``; ``trigger`` and ``custom_instructions``; ``message`` and
``notification_type``).
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True)
class Common:
    """What every hook of a session is told."""

    session_id: str
    transcript_path: str
    cwd: str
    permission_mode: str


def hook_input(event: str, common: Common, fields: dict[str, Any]) -> bytes:
    body = {
        "session_id": common.session_id,
        "transcript_path": common.transcript_path,
        "cwd": common.cwd,
        "permission_mode": common.permission_mode,
        "hook_event_name": event,
        **fields,
    }
    return json.dumps(body, ensure_ascii=False).encode()


def project_environment(workspace: str) -> dict[str, str]:
    """The variables a hook finds its project by, nehanda's name and Claude Code's."""
    return {"NEHANDA_PROJECT_DIR": workspace, "CLAUDE_PROJECT_DIR": workspace}
