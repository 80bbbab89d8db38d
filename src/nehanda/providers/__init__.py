"""Providers: one adapter per wire API, all streaming the same events, and the
tool-calling policy over them (``calling``: native or rescue, fallback, leaks)."""
