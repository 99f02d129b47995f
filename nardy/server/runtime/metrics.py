"""What the server counts and times for ``GET /metrics``: one object, handed to the few places that measure.

Each figure is taken at the narrowest point that sees all of it: players'
actions where the directory hands them to a table's service, sockets where
the socket layer accepts and ends them, the live tables where a service
takes a table into memory or drops it, the database pool where SQLAlchemy
lends and takes back a connection, Redis where a batch of publishes makes
its round trip, the analysis queue where it claims and finishes a job, and
errors as the log records them. The places call a :class:`Metrics`; with
``NARDY_METRICS=off`` (the default) it is this silent one, whose methods do
nothing, so a server without metrics pays a method call at most.
:func:`make_metrics` builds the Prometheus one
(:mod:`nardy.server.runtime.prometheus`) when metrics are on.
"""

from __future__ import annotations


class Metrics:
    """The measuring points of the server; this base measures nothing (metrics off)."""

    enabled = False
    """Whether anything is measured: a figure that costs a query (the analysis queue's depth) is read only then."""

    def start(self) -> None:
        """Begin counting the errors the log records (metrics on)."""

    def stop(self) -> None:
        """Stop counting errors; this process's gauges no longer count among the live processes'."""

    def action(self, action: str, refusal: str | None, seconds: float) -> None:
        """A player's action of type ``action`` was accepted (``refusal`` None) or refused with that code, after
        ``seconds`` from its arrival at the directory to its answer."""

    def socket_opened(self) -> None:
        """A WebSocket was accepted into the connection limits."""

    def socket_closed(self) -> None:
        """A WebSocket counted by :meth:`socket_opened` ended."""

    def live_tables(self, kind: str, count: int) -> None:
        """This process now holds ``count`` tables of ``kind`` (``match``, ``chouette``) in memory."""

    def pool_use(self, in_use: int, held: int, limit: int) -> None:
        """The database pool lends ``in_use`` connections and holds ``held`` open (lent or idle), of ``limit``."""

    def redis_publish(self, seconds: float) -> None:
        """A round trip publishing a batch of messages to Redis took ``seconds``."""

    def analysis_queue(self, depth: int) -> None:
        """``depth`` analyses wait in the database for a worker (of any process)."""

    def analysis_done(self, seconds: float, *, failed: bool) -> None:
        """An analysis this process claimed ended (stored, or failed) ``seconds`` after the claim."""

    def exposition(self) -> tuple[bytes, str]:
        """The figures in Prometheus' text format, with their content type."""
        raise LookupError("metrics are off")


SILENT = Metrics()
"""The metrics of a server that measures nothing: the default of every measuring point."""


def make_metrics(enabled: bool) -> Metrics:
    """The Prometheus metrics when ``enabled``, else :data:`SILENT`.

    prometheus-client is imported here, when first wanted, not with the
    server: it decides at import whether it runs in multi-process mode
    (``PROMETHEUS_MULTIPROC_DIR`` set), and a process forked from one that
    imported the server without it must still be able to choose.
    """
    if not enabled:
        return SILENT
    from nardy.server.runtime.prometheus import PrometheusMetrics

    return PrometheusMetrics()
