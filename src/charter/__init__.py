"""Charter: a context engine for AI coding agents.

Charter decides what an agent sees on each turn and holds it to what the user already
decided. The library is the product; the CLI, hooks and MCP server are thin front doors.
"""

__version__ = "0.1.0"
