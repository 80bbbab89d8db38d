"""Checkpoints: what each turn changed in the workspace, recorded before the change, and
``undo`` (and ``/rewind``) taking it back."""
