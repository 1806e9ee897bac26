"""bot.trace: the engine, pure (no I/O)."""
