"""Hooks: user commands run at points of a session, in Claude Code's protocol."""
