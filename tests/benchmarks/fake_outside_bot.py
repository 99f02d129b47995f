"""A stand-in outside bot for tests/benchmarks/test_outside_player.py, speaking benchmarks/outside_player.py's
protocol: ``python fake_outside_bot.py MODE`` answers each request line according to MODE.

* ``last``: the index of the last play;
* ``steps``: the steps of the last play, as the outside bot's own play;
* ``refused``: steps that move a checker from the mover's furthest point by seven pips, a play no roll makes;
* ``out-of-range``: an index past the end of the plays;
* ``die-after-one``: answers the first request like ``last``, then exits without answering the second;
* ``garbage``: a line that is not JSON;
* ``silent``: reads and never answers.
"""

from __future__ import annotations

import json
import sys
import time


def main() -> None:
    mode = sys.argv[1]
    for count, line in enumerate(sys.stdin):
        request = json.loads(line)
        plays = request["plays"]
        if mode == "die-after-one" and count == 1:
            sys.exit(3)
        if mode == "silent":
            time.sleep(60)
        if mode == "garbage":
            answer = "not json"
        elif mode == "steps":
            answer = json.dumps({"steps": plays[-1]["steps"]})
        elif mode == "refused":
            source = max(i + 1 for i, count in enumerate(request["points"]) if count > 0)
            answer = json.dumps({"steps": [[source, source - 7, 7]]})
        elif mode == "out-of-range":
            answer = json.dumps({"play": len(plays)})
        else:
            answer = json.dumps({"play": len(plays) - 1})
        print(answer, flush=True)


if __name__ == "__main__":
    main()
