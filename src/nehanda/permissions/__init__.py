"""Whether a tool call may run, and the gate every call of a session goes through.

``rules`` reads permission rules, ``shell`` analyses commands, ``decision`` is the pure
``decide``, ``approver`` says how a user is asked, and ``gate`` wraps a ``Toolset`` with
all of it. Import the module you need: this package pulls nothing in by itself.
"""
