"""Tests of ``nardy.store``."""
