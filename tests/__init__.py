"""The test suite: one package per part of ``nardy`` (and the benchmarks, the browser client, the outside oracles)."""
