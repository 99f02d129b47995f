"""nardy: backgammon and its Eastern relatives — rules, notation and tools."""

__version__ = "0.1.0"
