"""Claude Code integration: hook handlers, a warm worker, and the settings installer."""
