"""Tests of ``nardy.notation``."""
