"""Computer opponents: the bot interface and the bots that implement it."""

from nardy.bots.base import BOT_LEVELS, Bot, make_bot
from nardy.bots.random_bot import RandomBot

__all__ = ["BOT_LEVELS", "Bot", "RandomBot", "make_bot"]
