"""Tests of ``nardy.rules``."""
