"""Subagents: the ``Task`` tool, which runs a task in a conversation of its own.

Above the engine (a subagent is an engine ``Agent``) and below the front ends; its calls
go through the session's own toolset, permission gate and sandbox included.
"""
