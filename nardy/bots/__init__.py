"""Computer opponents: the bot interface and the bots that implement it.

``sage`` is the short board's engine (bgsage rating our legal plays and
deciding the cube); ``engines`` says which engine plays each variant
(bgsage, our network or a heuristic), ``base`` builds the bot of a level.

``encoding`` turns positions into network inputs, ``network`` is the MLP,
``evaluator`` the interface every position evaluator offers, ``neural`` the
trained evaluator and bot, ``search`` the n-ply expectimax, and ``training``
the TD(λ) self-play that made the shipped weights (``weights/*.npz``).
"""

from nardy.bots.base import BOT_LEVELS, Bot, level_offered, levels_for, make_bot
from nardy.bots.evaluator import Evaluator
from nardy.bots.neural import NeuralBot, NeuralEvaluator
from nardy.bots.random_bot import RandomBot

__all__ = ["BOT_LEVELS", "Bot", "Evaluator", "NeuralBot", "NeuralEvaluator", "RandomBot", "level_offered", "levels_for", "make_bot"]
