"""Tests of ``nardy.bots``."""
