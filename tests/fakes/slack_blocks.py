"""Block Kit validation now lives in the package (`bot.standin.blocks`); this is its old name."""

from bot.standin.blocks import VIEW_MAX_BLOCKS, block_errors

__all__ = ["VIEW_MAX_BLOCKS", "block_errors"]
