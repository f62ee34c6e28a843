"""Watch Floor's lobby from NATS, without Floor's code: every tournament's document in KV bucket
`floor-lobby` (key = tournament id, value = the JSON document), as it is now and at every
change. One line per document revision:

    2026-11-30T10:00:01Z  Sunday Major  running  players 812/1000  level 4 (100/200, ante 200)

Documents are whole states, not changes, so a watcher that starts late or misses one just reads
the next. The document's fields: docs/lobby-feed.md.

    pip install -r requirements.txt
    python lobby_watch.py --nats nats://127.0.0.1:4222 [--json] [--history]
"""

import argparse
import asyncio
import json
import signal
import sys

import nats
from nats.js.errors import BucketNotFoundError
from nats.js.kv import KV_DEL, KV_PURGE

BUCKET = "floor-lobby"


def describe(doc: dict) -> str:
    """One line: name, state, players left of entrants, and the clock."""
    clock = doc.get("clock") or {}
    if clock.get("on_break"):
        level = f"break {clock['on_break']}"
    elif clock.get("level"):
        blinds = clock.get("blinds") or {}
        level = f"level {clock['level']}"
        if blinds:
            level += f" ({blinds['small_blind']}/{blinds['big_blind']}"
            level += f", ante {blinds['ante']})" if blinds.get("ante") else ")"
    else:
        level = "no level yet"
    if clock.get("status") == "paused":
        level += f", paused: {clock.get('paused_reason') or 'no reason given'}"
    return f"{doc['name']}  {doc['state']}  players {doc['live_entries']}/{doc['entrants']}  {level}"


async def watch(url: str, as_json: bool, history: bool) -> None:
    nc = await nats.connect(url, name="lobby-watch-python", max_reconnect_attempts=-1)
    js = nc.jetstream()
    while True:
        try:
            kv = await js.key_value(BUCKET)
            break
        except BucketNotFoundError:
            # The lobby creates the bucket when it starts; wait for it.
            print(f"waiting for bucket {BUCKET}…", file=sys.stderr, flush=True)
            await asyncio.sleep(1)
    # Every key; with --history every stored revision first (the bucket keeps one per key).
    watcher = await kv.watchall(include_history=history)
    async for entry in watcher:
        if entry is None:
            # The current value of every key has been delivered; what follows are changes.
            print("-- caught up; now live", file=sys.stderr, flush=True)
            continue
        if entry.operation in (KV_DEL, KV_PURGE):
            print(f"{entry.key}  removed", flush=True)
            continue
        try:
            doc = json.loads(entry.value)
        except ValueError:
            print(f"{entry.key}  revision {entry.revision}: not JSON", file=sys.stderr, flush=True)
            continue
        if as_json:
            print(json.dumps({"revision": entry.revision, "key": entry.key, "document": doc}), flush=True)
        else:
            when = f"{entry.created:%Y-%m-%dT%H:%M:%SZ}" if entry.created else "-"
            print(f"{when}  {describe(doc)}", flush=True)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--nats", default="nats://127.0.0.1:4222", help="a NATS URL of the platform")
    parser.add_argument("--json", action="store_true", help="print each revision as one JSON line (revision, key, document)")
    parser.add_argument("--history", action="store_true", help="start from every revision the bucket still holds")
    args = parser.parse_args()
    loop = asyncio.new_event_loop()
    task = loop.create_task(watch(args.nats, args.json, args.history))
    for sig in (signal.SIGINT, signal.SIGTERM):
        loop.add_signal_handler(sig, task.cancel)
    try:
        loop.run_until_complete(task)
    except asyncio.CancelledError:
        pass


if __name__ == "__main__":
    main()
