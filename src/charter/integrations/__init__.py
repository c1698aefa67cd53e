"""Front doors for agents: Claude Code hooks and the MCP server."""
