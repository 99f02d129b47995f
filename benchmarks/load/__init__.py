"""Load test of the game server: N concurrent games of simulated players over WebSocket.

Run::

    python -m benchmarks.load [--games 100 500 1000] [--think 2.0] [--duration 60]
                              [--warmup 10] [--clients 1] [--variants ...] [--profile DIR]
                              [--server LABEL=DIR ...] [--server-env LABEL:KEY=VALUE ...] [--rounds R]
                              [--analysis-backlog LABEL=N ...]

Several processes: ``--processes 2 --database postgresql`` starts two servers on
one fresh PostgreSQL database (created on ``--postgres-url``'s server, dropped
after the level) with Redis (``--redis-url``), behind HAProxy (Debian's
``haproxy``, started by the benchmark), which keeps both players' WebSockets of
a table on one process by the ``table`` in their URL and spreads the HTTP
requests. CPU and memory are then the sums over the processes; the CPU of the
machine's PostgreSQL and Redis processes is reported beside them, per action.

Scale-out on a small machine: ``--cpu-per-process 0.4`` caps every server
process at that share of a core (:mod:`benchmarks.cpu_cap`, a cgroup's CPU
quota; needs root), so that one process is a fixed amount of CPU whatever
else runs, and the throughput of one and of two processes at the same tail
can be compared while PostgreSQL, Redis, HAProxy and the client run
uncapped on what is left.

Side by side: ``--server before=/tmp/old-checkout --server after=.`` runs every
level against both servers, one after the other (``--rounds`` times,
interleaved), so that two revisions or two settings are compared in one run
on one machine.

For each N in ``--games`` a fresh server is started as ONE process (the
``nardy.server`` module run as ``__main__``, as ``python -m nardy.server`` does,
behind a few lines that log its garbage collections; ``NARDY_ENVIRONMENT=testing``
so no time controls are forced, a fresh temporary data directory, the default
SQLite database, a free port on 127.0.0.1). The simulated players run in separate client
processes (``--clients``, default 1), each an asyncio event loop with one
``websockets`` connection per player. Only loopback traffic.

Per level:

1. *Setup* (not timed): 2N guest users via ``POST /api/guest``, N tables
   (``POST /api/tables`` by the first player, ``POST /api/tables/{id}/join``
   by the second; match length 1), 2N WebSocket connections, each
   subscribed to its table. The guests are a pool: when a match ends, the
   same two players open and join a new table of the same variant.
2. *Play*: the player whose decision the table waits for (``state.actor``)
   waits an exponential think time with mean ``--think`` seconds, then acts:
   ``roll`` when the phase is rolling, else ``move`` with a uniformly random
   legal play (``Position.legal_plays``, computed in the client process from
   ``state.game.boards[seat]``). Every action, roll or move, gets its own
   think time, so a turn is two actions and the offered load is about
   N / think actions a second. Nobody doubles or resigns.
3. *Measure*: after ``--warmup`` seconds, a window of ``--duration`` seconds:
   accepted actions a second (acks received in the window), the round trip of
   each action sent in the window (send to ``ack``), errors (any ``error``
   message, a dropped connection, an action unanswered at the end, a game
   that did not change during the window, a failed HTTP request; HAProxy's
   log lines for the connections concerned), the server's CPU (utime + stime of the process, all
   threads) and RSS (``VmRSS``), each client process's CPU, and the whole
   machine's CPU (``/proc/stat``), so that other load on the machine shows.
   Also the server's CPU per accepted action (what bounds a single process),
   how often its threads slept per action (each sleep is a wake-up, which on
   a virtual machine runs the next work cold: :func:`benchmarks.load.probes.sleeps`), in all and by
   thread (the launcher gives each thread its Python name in ``/proc``), its garbage
   collections and its collector's probes in the window, and the round trips
   under way during those. The clients play on, untimed, for a few seconds
   after the window, while the server's collector is asked what it tracks
   (a census that stops the server for up to a second).

Against the computer: ``--computer 0.3`` has that share of the game slots
played by one simulated person against the server's computer player at
``--computer-level`` (``intermediate`` by default); the server then waits the
think time before each computer action, so such a game offers about the same
actions a second, of which only the person's are timed and counted as
accepted. For a soak, a long ``--duration`` with ``--rss-every 60`` reports the
server's RSS every minute and its trend over the window's second half.

Analysis workers busy: ``--analysis-backlog busy=120`` has accounts play 120 rated matches on the server
named ``busy`` before each warm-up, whose background analyses keep its analysis workers busy through the
window; the level reports how many ended in it (:mod:`benchmarks.load.backlog`).

Tables: ``--variants``, by default 50 % backgammon, 20 % georgian and 30 %
long-traditional (long nardy), match length 1. The client offers
permessage-deflate, as browsers do (``--no-compression`` to turn it off).

Every phase has a timeout and the run stops itself. ``--profile DIR`` attaches
``py-spy record`` (``pip install py-spy``) to each server for the measured
window and prints the functions where the server spent its time.

The package, one job per module:

- :mod:`~benchmarks.load.__main__`: the command's flags, the run's header, the levels in turn;
- :mod:`~benchmarks.load.options`: the flags that name variants and servers, turned into what a level needs;
- :mod:`~benchmarks.load.levels`: one level from start to end (cluster, clients, window, logs);
- :mod:`~benchmarks.load.sampling`: the server and the machine read at the window's bounds and each second;
- :mod:`~benchmarks.load.measurements`: what one level measured, and the figures derived from it;
- :mod:`~benchmarks.load.report`: the tables printed per level and in summary, and the JSON;
- :mod:`~benchmarks.load.cluster`, :mod:`~benchmarks.load.server`, :mod:`~benchmarks.load.proxy`: the
  servers under test, one process or several behind HAProxy on one database;
- :mod:`~benchmarks.load.backlog`: the rated matches played before the window, and their analyses read back;
- :mod:`~benchmarks.load.launcher`: the lines that start a server and log its collector, and their log's reader;
- :mod:`~benchmarks.load.probes`: CPU, memory and sleeps read from ``/proc``;
- :mod:`~benchmarks.load.profiling`: py-spy attached for the window, and its samples summed by function;
- :mod:`~benchmarks.load.client_processes`, :mod:`~benchmarks.load.client`,
  :mod:`~benchmarks.load.players`: the simulated players, their processes and what they measure.
"""
