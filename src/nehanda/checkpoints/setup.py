"""A session's recorder, from the ``[checkpoints]`` settings; the store pruned first."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from nehanda.checkpoints.recorder import Limits, Recorder
from nehanda.checkpoints.store import Store, prune
from nehanda.config.settings import CheckpointsTable

_MB = 1024 * 1024


def session_recorder(
    settings: CheckpointsTable,
    session_id: str,
    workspace: Path,
    hidden: Callable[[Path], bool],
    store: Store | None = None,
) -> Recorder | None:
    """The recorder of ``session_id``'s turns; ``None`` with checkpoints turned off."""
    if not settings.enabled:
        return None
    store = store or Store.default()
    prune(store, keep_days=settings.keep_days, max_bytes=int(settings.max_size_mb * _MB))
    recorder = Recorder(store, session_id, workspace, Limits(int(settings.max_file_mb * _MB)))
    recorder.hidden = hidden
    return recorder
