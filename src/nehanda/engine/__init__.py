"""The engine: the turn loop over a provider and a ``Toolset``, its guards, the session log."""
