"""Differential tests against GNU Backgammon, run as an outside program."""
