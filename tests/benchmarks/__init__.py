"""Tests of ``benchmarks``: the measuring code itself, on small inputs."""
