"""``--profile``: py-spy attached to a server for the measured window, and its samples summed by function.

The window's CPU per action says how much a server spends; the profile says where, in the same run
and under the same load, so that a change in the first can be traced in the second.
"""

from __future__ import annotations

import shutil
import subprocess
import sys
from collections import Counter
from pathlib import Path


def start_recording(pid: int, seconds: float, path: Path, *, native: bool) -> subprocess.Popen[bytes]:
    """Attach ``py-spy record`` to process ``pid`` for ``seconds``, its collapsed stacks written to ``path``."""
    spy = shutil.which("py-spy") or str(Path(sys.executable).parent / "py-spy")
    command = [spy, "record", "--pid", str(pid), "--duration", str(max(1, round(seconds))),
               "--rate", "200", *(["--native"] if native else ["--nonblocking"]),
               "--format", "raw", "-o", str(path)]
    return subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, stdin=subprocess.DEVNULL)


def finish_recording(profiler: subprocess.Popen[bytes]) -> None:
    """Wait for py-spy to write its file (a minute at most), and say so where it failed."""
    try:
        _, spy_errors = profiler.communicate(timeout=60)
    except subprocess.TimeoutExpired:
        profiler.kill()
        _, spy_errors = profiler.communicate()
    if profiler.returncode:
        print(f"py-spy failed: {spy_errors.decode(errors='replace')[-500:]}")


def print_profile(path: Path, games: int, top: int = 25) -> None:
    """Self and inclusive time per function from py-spy's raw (collapsed stack) output."""
    own: Counter[str] = Counter()  # with --profile-native, C frames are named too
    inclusive: Counter[str] = Counter()
    total = 0
    for line in path.read_text(errors="replace").splitlines():
        stack, _, count_text = line.rpartition(" ")
        if not stack or not count_text.isdigit():
            continue
        count = int(count_text)
        total += count
        frames = [frame_name(f) for f in stack.split(";") if not f.startswith("process ") and not f.startswith("thread ")]
        if not frames:
            continue
        own[frames[-1]] += count
        for name in set(frames):
            inclusive[name] += count
    if not total:
        return
    print(f"\n#### py-spy profile of the server during the window, {games} games "
          f"({total:,} non-idle samples at 200 Hz, {path})\n")
    print("| own % | function |\n| ---: | --- |")
    for name, count in own.most_common(top):
        print(f"| {count / total * 100:.1f} | `{name}` |")
    print("\n| inclusive % | function |\n| ---: | --- |")
    for name, count in inclusive.most_common(top + 15):
        print(f"| {count / total * 100:.1f} | `{name}` |")


def frame_name(frame: str) -> str:
    """``function (path/to/file.py:123)`` → ``function (file.py)``, so lines of one function add up."""
    name, _, where = frame.partition(" (")
    where = where.rstrip(")")
    file = where.rsplit(":", 1)[0]
    parts = Path(file).parts
    if "site-packages" in parts:
        file = "/".join(parts[parts.index("site-packages") + 1 :])
    elif "nardy" in parts:
        file = "/".join(parts[parts.index("nardy") :])
    else:
        file = Path(file).name
    return f"{name} ({file})"
