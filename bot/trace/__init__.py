"""bot.trace: the engine, pure (no I/O). Its modules may run compiled: bot/engine.py."""
