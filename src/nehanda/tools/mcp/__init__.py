"""MCP servers' tools as a ``Toolset``: the client and its lifecycle, the tools' names,
arguments and results, and ToolSearch for when there are too many to describe."""
