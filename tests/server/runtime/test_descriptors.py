"""A server process raises its own limit on open descriptors to hold the connections it is configured for."""

from __future__ import annotations

import resource
import subprocess
import sys
import textwrap
from collections.abc import Iterator
from pathlib import Path

import pytest
import uvicorn

from nardy.server import __main__ as server_main
from nardy.server.runtime.descriptors import HEADROOM, descriptors_wanted, raise_descriptor_limit


@pytest.fixture
def soft_limit_restored() -> Iterator[tuple[int, int]]:
    """This process's descriptor limits, put back after the test."""
    limits = resource.getrlimit(resource.RLIMIT_NOFILE)
    try:
        yield limits
    finally:
        resource.setrlimit(resource.RLIMIT_NOFILE, limits)


def _below_hard(hard: int, wanted: int) -> None:
    if hard != resource.RLIM_INFINITY and hard < wanted:
        pytest.skip(f"the hard limit here is {hard}")


def test_the_soft_limit_is_raised_to_what_is_wanted(soft_limit_restored: tuple[int, int]) -> None:
    _, hard = soft_limit_restored
    _below_hard(hard, 3_000)
    resource.setrlimit(resource.RLIMIT_NOFILE, (1_024, hard))
    assert raise_descriptor_limit(3_000) == 3_000
    assert resource.getrlimit(resource.RLIMIT_NOFILE) == (3_000, hard)


def test_a_higher_soft_limit_is_never_lowered(soft_limit_restored: tuple[int, int]) -> None:
    _, hard = soft_limit_restored
    _below_hard(hard, 5_000)
    resource.setrlimit(resource.RLIMIT_NOFILE, (5_000, hard))
    assert raise_descriptor_limit(3_000) == 5_000
    assert resource.getrlimit(resource.RLIMIT_NOFILE) == (5_000, hard)


@pytest.mark.parametrize("soft", [256, 512])
def test_past_the_hard_limit_the_process_gets_the_hard_limit_and_says_so(soft: int) -> None:
    _below_hard(resource.getrlimit(resource.RLIMIT_NOFILE)[1], 512)
    script = textwrap.dedent(f"""
        import logging, resource, sys
        from nardy.server.runtime.descriptors import raise_descriptor_limit
        logging.basicConfig(stream=sys.stdout, format="%(levelname)s %(message)s")
        resource.setrlimit(resource.RLIMIT_NOFILE, ({soft}, 512))  # lowered for good, in this child only
        print(raise_descriptor_limit(3_000), resource.getrlimit(resource.RLIMIT_NOFILE))
    """)
    out = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, check=True,
                         cwd=Path(__file__).resolve().parents[2]).stdout
    assert "WARNING at most 512 open descriptors (the hard limit), 3000 wanted" in out
    assert out.rstrip().endswith("512 (512, 512)")


def test_the_server_raises_it_for_its_connections_and_database_pool_before_serving(
    soft_limit_restored: tuple[int, int], monkeypatch: pytest.MonkeyPatch, tmp_path: Path,
) -> None:
    _, hard = soft_limit_restored
    wanted = descriptors_wanted(4_000, 20 + 40)
    assert wanted == 4_060 + HEADROOM
    _below_hard(hard, wanted)
    resource.setrlimit(resource.RLIMIT_NOFILE, (1_024, hard))
    limits_when_served: list[tuple[int, int]] = []
    monkeypatch.setattr(uvicorn, "run", lambda *_, **__: limits_when_served.append(
        resource.getrlimit(resource.RLIMIT_NOFILE)))
    for name in ("NARDY_DATABASE_POOL_SIZE", "NARDY_DATABASE_POOL_OVERFLOW"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("NARDY_MAX_CONNECTIONS", "4000")
    monkeypatch.setenv("NARDY_DATA_DIR", str(tmp_path))
    server_main.main()
    assert limits_when_served == [(wanted, hard)]
