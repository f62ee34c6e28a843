"""A table server for Floor, written from docs/table-servers.md and schemas/ alone.

It deals every table of one tournament: it reads the tournament's instructions, applies them in
`sequence` order at hand boundaries, confirms what the docs say Floor waits for
(`remove_player`, `add_chips`), and deals simple scripted hands until every table is closed.
A hand is either "everyone folds to the big blind" (the blinds and antes go to the big blind) or
an all-in between two players drawn at random, the winner drawn at random too. Chips are
conserved; a player whose stack reaches zero is reported as a bust and keeps the seat, dealt
out, until Floor sends `remove_player` or `add_chips`.

What it reads and writes, all on stream FLOOR_TABLES, nothing else:
  floor.table.<tournament>.*.in        instructions (one durable pull consumer for all tables)
  floor.table.<tournament>.*.rejected  Floor's rejections of its reports (a second consumer)
  floor.table.<tournament>.<t>.out     its reports, with Nats-Msg-Id = <tournament>.<table>.<report_id>

It does not handle a rebuy offer's deadline (it waits for Floor's word on a player at zero) nor
hand-for-hand timing beyond `hold_for_deal` / `deal_hand`; pauses stop dealing until `resume`.

Usage: python table_server.py --nats nats://127.0.0.1:4222 --tournament <id> [--seed 7]
With a table credential in the environment (`eval $(floor credentials table --tournament <id>)`
exports NATS_USER and NATS_PASSWORD when run with `set -a`; docs/security.md), it connects as
that table server and may touch nothing but its tournament's tables.
Prints one JSON line at the end: hands, moves, tables closed, winner, rejections.
Exit code 0 when the tournament ended with no report rejected, 1 otherwise.
"""

import argparse
import asyncio
import json
import os
import random
import sys
import time

import nats
from nats.js.api import AckPolicy, ConsumerConfig, DeliverPolicy

STREAM = "FLOOR_TABLES"


class Table:
    """One table as this server sees it: seats, chips, instructions waiting, the hand count."""

    def __init__(self, number):
        self.number = number
        self.size = 0  # seats, from open_table
        self.seats = {}  # seat -> {"entry", "player", "chips", "waiting"}
        self.inbox = {}  # sequence -> (instruction, message to acknowledge)
        self.applied = 0  # last sequence applied
        self.hand = 0
        self.button = None
        self.blinds = None
        self.paused = False
        self.held = False  # hand-for-hand: deal only on deal_hand
        self.released = []  # the `hand` of each deal_hand not dealt yet, oldest first
        self.closed = False
        self.awaiting_word = set()  # entries at zero waiting for remove_player / add_chips
        self.reports = 0

    def receive(self, sequence, instruction, message):
        """Keeps an instruction until it can be applied in order; a duplicate is only acknowledged."""
        if sequence <= self.applied or sequence in self.inbox:
            return False
        self.inbox[sequence] = (instruction, message)
        return True

    def seat_of(self, entry):
        return next((s for s, p in self.seats.items() if p["entry"] == entry), None)

    def dealable(self):
        """Seats dealt into the next hand, clockwise from seat 1."""
        return sorted(s for s, p in self.seats.items() if p["chips"] > 0 and not p["waiting"])

    def may_deal(self):
        if self.closed or self.applied == 0 or self.paused or self.awaiting_word:
            return False
        if self.held and not self.released:
            return False
        if self.blinds is None:
            return False
        return len(self.dealable()) >= 2


class TableServer:
    def __init__(self, js, tournament, rng):
        self.js = js
        self.tournament = tournament
        self.rng = rng
        self.tables = {}
        self.hands = 0
        self.moves = 0
        self.closed = 0
        self.eliminated = 0
        self.rejections = []
        self.winner = None

    # --- reports -------------------------------------------------------------------------------

    async def report(self, table, report):
        table.reports += 1
        report_id = f"py-{self.tournament}-{table.number}-{table.reports}"
        body = {"tournament_id": self.tournament, "table": table.number, "report_id": report_id, "report": report}
        subject = f"floor.table.{self.tournament}.{table.number}.out"
        # The publish acknowledgement is the only proof the report was stored (docs: Subjects).
        await self.js.publish(subject, json.dumps(body).encode(), stream=STREAM, headers={"Nats-Msg-Id": f"{self.tournament}.{table.number}.{report_id}"})

    # --- instructions --------------------------------------------------------------------------

    async def apply_ready(self, table):
        """Between hands: applies every instruction that follows without a gap, in order."""
        while table.applied + 1 in table.inbox:
            sequence = table.applied + 1
            instruction, message = table.inbox.pop(sequence)
            confirm = self.apply(table, instruction)
            table.applied = sequence
            if confirm:
                await self.report(table, {"type": "instruction_applied", "sequence": sequence})
            await message.ack()

    def apply(self, table, instruction):
        """Applies one instruction; returns whether Floor waits for `instruction_applied`."""
        kind = instruction["type"]
        if kind == "open_table":
            table.size = instruction["seats"]
            return False
        if kind == "seat_player":
            table.seats[instruction["seat"]] = {
                "entry": instruction["entry"],
                "player": instruction["player"],
                "chips": instruction["stack"],
                "waiting": instruction["wait_for_button"],
            }
            if instruction["stack"] == 0:
                # Moved at zero during a rebuy period: Floor's word (add_chips or
                # remove_player) comes to this table now.
                table.awaiting_word.add(instruction["entry"])
            # Seats need no confirmation (docs: "Which instructions need instruction_applied").
            return False
        if kind == "remove_player":
            seat = table.seat_of(instruction["entry"])
            if seat is not None:
                del table.seats[seat]
            table.awaiting_word.discard(instruction["entry"])
            if instruction["reason"]["kind"] == "moved":
                self.moves += 1
            else:
                self.eliminated += 1
            return True
        if kind == "add_chips":
            seat = table.seat_of(instruction["entry"])
            if seat is not None:
                table.seats[seat]["chips"] += instruction["chips"]
            table.awaiting_word.discard(instruction["entry"])
            return True
        if kind == "blinds":
            table.blinds = instruction
        elif kind == "pause":
            table.paused = True
        elif kind == "resume":
            # Ends a pause and hand-for-hand alike: deal freely again.
            table.paused = False
            table.held = False
            table.released = []
        elif kind == "hold_for_deal":
            table.held = True
        elif kind == "deal_hand":
            table.released.append(instruction["hand"])
        elif kind == "close_table":
            table.closed = True
            self.closed += 1
            survivors = [p for p in table.seats.values() if p["chips"] > 0]
            if len(survivors) == 1 and all(t.closed for t in self.tables.values()):
                self.winner = survivors[0]["entry"]
        # rebuy_offered: the player at zero already holds the table until Floor's word.
        return False

    # --- hands ---------------------------------------------------------------------------------

    def positions(self, table, dealt):
        """Button, small blind, big blind seats of the next hand among the players dealt in."""
        after = [s for s in dealt if table.button is None or s > table.button]
        button = after[0] if after else dealt[0]
        i = dealt.index(button)
        if len(dealt) == 2:
            return button, button, dealt[(i + 1) % 2]
        return button, dealt[(i + 1) % len(dealt)], dealt[(i + 2) % len(dealt)]

    async def deal(self, table):
        dealt = table.dealable()
        button, small, big = self.positions(table, dealt)
        # A player waiting for the button is dealt in once it has passed their seat: their seat
        # lies clockwise after the last button, up to this one.
        if table.button is not None:
            moved = (button - table.button) % table.size
            for seat, p in table.seats.items():
                if p["waiting"] and 0 < (seat - table.button) % table.size <= moved:
                    p["waiting"] = False
        table.button = button
        table.hand += 1
        start = {s: table.seats[s]["chips"] for s in dealt}
        stacks = [{"seat": s, "entry": table.seats[s]["entry"], "chips": start[s]} for s in dealt]
        started = {"type": "hand_started", "hand": table.hand, "button": button, "stacks": stacks}
        if table.held:
            # A deal on a deal_hand names it (else Floor takes it for one that crossed the hold).
            started["deal_hand"] = table.released.pop(0)
        await self.report(table, started)

        after, busts = self.outcome(table, dealt, small, big, start)
        for s in dealt:
            table.seats[s]["chips"] = after[s]
        for b in busts:
            table.awaiting_word.add(b["entry"])
        finished = [{"seat": s, "entry": table.seats[s]["entry"], "chips": after[s]} for s in dealt if after[s] > 0]
        await self.report(table, {"type": "hand_finished", "hand": table.hand, "stacks": finished, "busts": busts})
        self.hands += 1

    def outcome(self, table, dealt, small, big, start):
        """Chips after the hand, and the busts with the pots that took their chips."""
        b = table.blinds
        ante_each = 0 if b["big_blind_ante"] else b["ante"]
        posts = {s: ante_each for s in dealt}
        posts[small] += b["small_blind"] if small != big else 0
        posts[big] += b["big_blind"] + (b["ante"] if b["big_blind_ante"] else 0)
        if self.rng.random() < 0.4 and all(posts[s] < start[s] for s in dealt):
            # Everyone folds to the big blind, who takes what was posted.
            after = {s: start[s] - posts[s] for s in dealt}
            after[big] += sum(posts.values())
            return after, []
        # An all-in between two players: the smaller stack is all in, the winner drawn at random.
        a, c = self.rng.sample(dealt, 2)
        at_risk = min(start[a], start[c])
        winner, loser = (a, c) if self.rng.random() < 0.5 else (c, a)
        after = dict(start)
        after[winner] += at_risk
        after[loser] -= at_risk
        busts = []
        if after[loser] == 0:
            entry, won_by = table.seats[loser]["entry"], table.seats[winner]["entry"]
            busts.append({"entry": entry, "stack_at_start": start[loser], "pots": [{"winners": [won_by], "chips": start[loser]}]})
        return after, busts

    # --- the loop ------------------------------------------------------------------------------

    def take(self, message):
        body = json.loads(message.data)
        number = body["table"]
        table = self.tables.setdefault(number, Table(number))
        return table.receive(body["sequence"], body["instruction"], message)

    def done(self):
        """Every table seen is closed. Instructions may still follow a close (a remove_player for
        a player who busted in the last hand or is moved again): the loop keeps reading them for
        a while (--linger)."""
        return bool(self.tables) and all(t.closed for t in self.tables.values())


async def fetch(subscription, batch, timeout):
    try:
        return await subscription.fetch(batch, timeout=timeout)
    except (nats.errors.TimeoutError, asyncio.TimeoutError):
        return []


def credentials():
    """The table credential from the environment, as `floor credentials table` prints it
    (NATS_USER and NATS_PASSWORD), or a token or a .creds file (docs/security.md)."""
    env = os.environ
    if env.get("NATS_CREDS"):
        return {"user_credentials": env["NATS_CREDS"]}
    if env.get("NATS_USER"):
        return {"user": env["NATS_USER"], "password": env.get("NATS_PASSWORD", "")}
    if env.get("NATS_TOKEN"):
        return {"token": env["NATS_TOKEN"]}
    return {}


async def run(args):
    nc = await nats.connect(args.nats, name="python-table-server", **credentials())
    js = nc.jetstream()
    rng = random.Random(args.seed)
    server = TableServer(js, args.tournament, rng)
    consumer = f"python-tables-{args.tournament}"
    settings = dict(ack_policy=AckPolicy.EXPLICIT, deliver_policy=DeliverPolicy.ALL, ack_wait=60, inactive_threshold=3600)
    instructions = await js.pull_subscribe(
        f"floor.table.{args.tournament}.*.in", durable=consumer, stream=STREAM, config=ConsumerConfig(**settings)
    )
    rejections = await js.pull_subscribe(
        f"floor.table.{args.tournament}.*.rejected", durable=consumer + "-rejected", stream=STREAM, config=ConsumerConfig(**settings)
    )
    deadline = time.monotonic() + args.timeout
    last_instruction = time.monotonic()
    try:
        # After every table is closed, read on for --linger seconds after the last instruction:
        # a closed table can still be told to let a player go (docs: "When play overtakes a move").
        while not (server.done() and time.monotonic() - last_instruction > args.linger):
            if time.monotonic() > deadline:
                print(f"python-table-server: no end after {args.timeout} s", file=sys.stderr)
                break
            dealing = any(t.may_deal() or (t.applied + 1) in t.inbox for t in server.tables.values())
            wait = 0.05 if dealing else (0.2 if server.done() else 1.0)
            for message in await fetch(instructions, 256, wait):
                last_instruction = time.monotonic()
                if not server.take(message):
                    await message.ack()
            for message in await fetch(rejections, 64, 0.01):
                server.rejections.append(json.loads(message.data))
                await message.ack()
            if server.rejections:
                # Floor and this server no longer agree on a table: dealing on would only be
                # rejected again. A real table server would alert its operator here.
                print(f"python-table-server: Floor rejected {server.rejections}", file=sys.stderr)
                break
            for table in list(server.tables.values()):
                await server.apply_ready(table)
                if table.may_deal():
                    await server.deal(table)
        # Rejections of the last reports arrive after them: read what is there now.
        for message in await fetch(rejections, 64, 0.5):
            server.rejections.append(json.loads(message.data))
            await message.ack()
    finally:
        # The docs: delete your consumers once every table they read is closed.
        if server.done():
            for name in (consumer, consumer + "-rejected"):
                await js.delete_consumer(STREAM, name)
        await nc.close()
    summary = {
        "tournament": args.tournament,
        "finished": server.done(),
        "hands": server.hands,
        "moves": server.moves,
        "eliminated": server.eliminated,
        "tables": len(server.tables),
        "tables_closed": server.closed,
        "winner": server.winner,
        "rejections": server.rejections,
    }
    print(json.dumps(summary))
    return 0 if server.done() and not server.rejections else 1


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    # NATS_URL and FLOOR_TOURNAMENT are what `floor table-check --exec` sets.
    parser.add_argument("--nats", default=os.environ.get("NATS_URL"), help="NATS URL of the Floor platform (default: $NATS_URL)")
    parser.add_argument("--tournament", default=os.environ.get("FLOOR_TOURNAMENT"), help="the tournament id to deal (default: $FLOOR_TOURNAMENT)")
    parser.add_argument("--seed", type=int, default=7, help="seed of the scripted hands")
    parser.add_argument("--timeout", type=float, default=300, help="give up after this many seconds")
    parser.add_argument("--linger", type=float, default=2.0, help="seconds to read on after every table closed and nothing arrives")
    args = parser.parse_args()
    if not args.nats or not args.tournament:
        parser.error("--nats and --tournament (or NATS_URL and FLOOR_TOURNAMENT) are needed")
    sys.exit(asyncio.run(run(args)))


if __name__ == "__main__":
    main()
