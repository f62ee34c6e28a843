"""The lobby's NATS-native feed from a non-Rust client (issue 23, "Live"):
examples/lobby-watch-python/lobby_watch.py, run as its README says, watches KV `floor-lobby`
while a `floor sim` plays, and prints the tournament's documents as they change."""

import queue
import re
import subprocess
import sys
import threading
import time
from pathlib import Path

from conftest import PATIENCE_S

EXAMPLE = Path(__file__).resolve().parents[2] / "examples" / "lobby-watch-python" / "lobby_watch.py"
LINE = re.compile(r"^\S+  (?P<name>.+)  (?P<state>registering|running|finished|cancelled)  players (?P<left>\d+)/(?P<entrants>\d+)  (?P<clock>.*)$")


def test_the_python_example_prints_lobby_documents_as_they_change(world):
    watcher = subprocess.Popen(
        [sys.executable, str(EXAMPLE), "--nats", world.nats_url], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, bufsize=1
    )
    lines: queue.Queue = queue.Queue()
    threading.Thread(target=lambda: [lines.put(line.rstrip("\n")) for line in watcher.stdout], daemon=True).start()
    try:
        world.sim(entrants=30, hand_every=1)
        seen: list[dict] = []
        deadline = time.monotonic() + PATIENCE_S
        # Until the watcher has shown the tournament running, with a later level and fewer
        # players than it first showed it running with.
        while time.monotonic() < deadline:
            try:
                line = lines.get(timeout=1)
            except queue.Empty:
                assert watcher.poll() is None, f"the example exited: {watcher.stderr.read()}"
                continue
            m = LINE.match(line)
            assert m, f"not a document line: {line!r}"
            seen.append(m.groupdict())
            running = [s for s in seen if s["state"] == "running" and s["clock"].startswith("level")]
            if running:
                level = lambda s: int(re.match(r"level (\d+)", s["clock"]).group(1))  # noqa: E731
                if level(running[-1]) > level(running[0]) and int(running[-1]["left"]) < int(running[0]["left"]):
                    break
        else:
            raise AssertionError(f"no changing documents in {PATIENCE_S} s; saw {seen[-5:]}")
        assert {s["name"] for s in seen} == {seen[0]["name"]}, "one tournament, the sim's"
        assert len(seen) >= 3, seen
    finally:
        watcher.terminate()
        watcher.wait(timeout=10)
