"""Letting a server process hold the connections it is configured for.

Every WebSocket, request and database connection holds a file descriptor,
and most systems start a process with a soft limit of 1,024 of them (a
systemd service, a login shell), however high the hard limit: a process
serving some 500 games would then fail to accept the next connection
("Too many open files") long before ``max_connections``. A process may
raise its own soft limit up to the hard one without privilege, as nginx
(``worker_rlimit_nofile``) and Go's runtime do, so the server does that at
start and says so where even the hard limit is too low.
"""

from __future__ import annotations

import logging
import resource

log = logging.getLogger(__name__)

HEADROOM = 64
"""Descriptors for what is not a connection: the listening socket, log files, pipes, a probe's child."""


def descriptors_wanted(max_connections: int, database_connections: int) -> int:
    """The descriptors a process needs to hold ``max_connections`` clients and its database connections."""
    return max_connections + database_connections + HEADROOM


def raise_descriptor_limit(wanted: int) -> int:
    """Raise this process's soft limit on open descriptors to ``wanted`` (at most the hard limit, never
    lowering it), warn where it stays below, and return it (``resource.RLIM_INFINITY``: none)."""
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    target = wanted if hard == resource.RLIM_INFINITY else min(wanted, hard)
    if soft != resource.RLIM_INFINITY and soft < target:
        resource.setrlimit(resource.RLIMIT_NOFILE, (target, hard))
        soft = target
    if soft != resource.RLIM_INFINITY and soft < wanted:
        log.warning(
            "at most %d open descriptors (the hard limit), %d wanted: raise it (ulimit -Hn, LimitNOFILE) or "
            "lower NARDY_MAX_CONNECTIONS", soft, wanted,
        )
    return soft
