// A table server for Floor in TypeScript on Node, written from docs/table-servers.md and the
// JSON Schemas in schemas/tables/ only: it uses no Floor code.
//
// It deals every table of one tournament. It reads the tournament's instructions with one
// durable pull consumer, applies them per table in `sequence` order between hands, confirms
// `remove_player` and `add_chips` with `instruction_applied`, and deals scripted hands (everyone
// folds to the big blind, or two players are all in) until every table is closed and nothing
// has arrived for --linger seconds (a closed table may still be told to let a player go).
//
//   floor.table.<tournament>.*.in        instructions            (consumer node-tables-<tournament>)
//   floor.table.<tournament>.*.rejected  Floor's rejections      (consumer node-tables-<tournament>-rejected)
//   floor.table.<tournament>.<t>.out     reports, Nats-Msg-Id = <tournament>.<table>.<report_id>
//
// Usage: node dist/table_server.js [--nats URL] [--tournament ID] [--seed N] [--timeout S] [--linger S]
// (NATS_URL and FLOOR_TOURNAMENT in the environment are the defaults: what `floor table-check
// --exec` sets). NATS_USER/NATS_PASSWORD or NATS_TOKEN authenticate (docs/security.md).
// Prints one JSON line at the end; exit code 0 when every table closed and no report was
// rejected, 1 otherwise.

import { AckPolicy, connect, DeliverPolicy, headers, JetStreamClient, JsMsg, nanos } from "nats";
import type { ConnectionOptions } from "nats";

const STREAM = "FLOOR_TABLES";

// --- The contract's messages (schemas/tables/instruction.json, report.json) ------------------

type Instruction =
  | { type: "open_table"; seats: number }
  | { type: "seat_player"; entry: number; player: string; seat: number; stack: number; wait_for_button: boolean }
  | { type: "remove_player"; entry: number; reason: { kind: "moved"; to_table: number; to_seat: number } | { kind: "eliminated" } }
  | { type: "add_chips"; entry: number; chips: number }
  | { type: "blinds"; level: number; small_blind: number; big_blind: number; ante: number; big_blind_ante: boolean }
  | { type: "rebuy_offered"; entry: number; until: string }
  | { type: "pause"; reason: string }
  | { type: "resume" }
  | { type: "hold_for_deal" }
  | { type: "deal_hand"; hand: number }
  | { type: "close_table" };

interface TableInstruction {
  tournament_id: string;
  table: number;
  sequence: number;
  instruction: Instruction;
}

interface SeatStack {
  seat: number;
  entry: number;
  chips: number;
}

interface Bust {
  entry: number;
  stack_at_start: number;
  pots: { winners: number[]; chips: number }[];
}

type Report =
  | { type: "hand_started"; hand: number; button: number; stacks: SeatStack[]; deal_hand?: number }
  | { type: "hand_finished"; hand: number; stacks: SeatStack[]; busts: Bust[] }
  | { type: "instruction_applied"; sequence: number };

type Blinds = Extract<Instruction, { type: "blinds" }>;

// --- A table as this server sees it ----------------------------------------------------------

interface Player {
  entry: number;
  chips: number;
  waitingForButton: boolean;
}

class Table {
  size = 0;
  seats = new Map<number, Player>(); // seat -> player
  inbox = new Map<number, { instruction: Instruction; message: JsMsg }>(); // sequence -> waiting
  applied = 0; // the last sequence applied
  hand = 0;
  button: number | null = null;
  blinds: Blinds | null = null;
  paused = false;
  held = false; // hand-for-hand: deal only on deal_hand
  released: number[] = []; // the `hand` of each deal_hand not dealt yet
  closed = false;
  awaitingWord = new Set<number>(); // entries at zero waiting for add_chips or remove_player
  reports = 0;

  constructor(readonly number: number) {}

  seatOf(entry: number): number | undefined {
    for (const [seat, p] of this.seats) if (p.entry === entry) return seat;
    return undefined;
  }

  /** Seats dealt into the next hand, in seat order. */
  dealable(): number[] {
    return [...this.seats.entries()]
      .filter(([, p]) => p.chips > 0 && !p.waitingForButton)
      .map(([s]) => s)
      .sort((a, b) => a - b);
  }

  /** docs: "When to deal". */
  mayDeal(): boolean {
    if (this.closed || this.applied === 0 || this.blinds === null || this.paused) return false;
    if (this.inbox.size > 0) return false; // an instruction waits for an earlier one (a gap)
    if (this.awaitingWord.size > 0) return false;
    if (this.held && this.released.length === 0) return false;
    return this.dealable().length >= 2;
  }
}

// --- Seeded randomness (mulberry32): the same seed deals the same hands ----------------------

function rng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

// --- The server --------------------------------------------------------------------------------

class TableServer {
  tables = new Map<number, Table>();
  hands = 0;
  moves = 0;
  eliminated = 0;
  closed = 0;
  rejections: unknown[] = [];
  lastInstruction = Date.now();

  constructor(
    private readonly js: JetStreamClient,
    private readonly tournament: string,
    private readonly random: () => number,
  ) {}

  /** Keeps an instruction until it can be applied in order; false for a duplicate. */
  take(message: JsMsg): boolean {
    this.lastInstruction = Date.now();
    const body = JSON.parse(message.string()) as TableInstruction;
    let table = this.tables.get(body.table);
    if (!table) {
      table = new Table(body.table);
      this.tables.set(body.table, table);
    }
    if (body.sequence <= table.applied || table.inbox.has(body.sequence)) return false;
    table.inbox.set(body.sequence, { instruction: body.instruction, message });
    return true;
  }

  /** Publishes a report and waits for the stream's acknowledgement (docs: "Subjects"). */
  async report(table: Table, report: Report): Promise<void> {
    table.reports += 1;
    const reportId = `node-${table.number}-${table.reports}`;
    const body = { tournament_id: this.tournament, table: table.number, report_id: reportId, report };
    const h = headers();
    h.set("Nats-Msg-Id", `${this.tournament}.${table.number}.${reportId}`);
    await this.js.publish(`floor.table.${this.tournament}.${table.number}.out`, JSON.stringify(body), { headers: h });
  }

  /** Between hands: applies every instruction that follows without a gap, in order. */
  async applyReady(table: Table): Promise<void> {
    for (;;) {
      const next = table.inbox.get(table.applied + 1);
      if (!next) return;
      table.inbox.delete(table.applied + 1);
      table.applied += 1;
      if (this.apply(table, next.instruction)) {
        await this.report(table, { type: "instruction_applied", sequence: table.applied });
      }
      next.message.ack();
    }
  }

  /** Applies one instruction; true when Floor waits for `instruction_applied`. */
  apply(table: Table, i: Instruction): boolean {
    switch (i.type) {
      case "open_table":
        table.size = i.seats;
        return false;
      case "seat_player":
        table.seats.set(i.seat, { entry: i.entry, chips: i.stack, waitingForButton: i.wait_for_button });
        // Seated at zero (moved during a rebuy period): Floor's word on them comes here.
        if (i.stack === 0) table.awaitingWord.add(i.entry);
        return false; // seats need no confirmation
      case "remove_player": {
        const seat = table.seatOf(i.entry);
        if (seat !== undefined) table.seats.delete(seat);
        table.awaitingWord.delete(i.entry);
        if (i.reason.kind === "moved") this.moves += 1;
        else this.eliminated += 1;
        return true;
      }
      case "add_chips": {
        const seat = table.seatOf(i.entry);
        if (seat !== undefined) table.seats.get(seat)!.chips += i.chips;
        table.awaitingWord.delete(i.entry);
        return true;
      }
      case "blinds":
        table.blinds = i; // from the next hand
        return false;
      case "pause":
        table.paused = true;
        return false;
      case "resume": // ends a pause and hand-for-hand alike
        table.paused = false;
        table.held = false;
        table.released = [];
        return false;
      case "hold_for_deal":
        table.held = true;
        return false;
      case "deal_hand":
        table.released.push(i.hand);
        return false;
      case "close_table":
        if (!table.closed) this.closed += 1;
        table.closed = true;
        return false;
      case "rebuy_offered":
        // The player at zero already holds the next hand until Floor's word.
        return false;
    }
  }

  /** Button, small blind and big blind of the next hand among the seats dealt in. */
  positions(table: Table, dealt: number[]): [number, number, number] {
    const after = dealt.filter((s) => table.button === null || s > table.button);
    const button = after.length > 0 ? after[0] : dealt[0];
    const i = dealt.indexOf(button);
    if (dealt.length === 2) return [button, button, dealt[(i + 1) % 2]];
    return [button, dealt[(i + 1) % dealt.length], dealt[(i + 2) % dealt.length]];
  }

  async deal(table: Table): Promise<void> {
    let dealt = table.dealable();
    const [button, small, big] = this.positions(table, dealt);
    // A player waiting for the button joins once it has passed their seat.
    if (table.button !== null && table.size > 0) {
      const passed = (button - table.button + table.size) % table.size;
      for (const [seat, p] of table.seats) {
        const d = (seat - table.button + table.size) % table.size;
        if (p.waitingForButton && d > 0 && d <= passed) p.waitingForButton = false;
      }
    }
    table.button = button;
    table.hand += 1;
    const start = new Map(dealt.map((s) => [s, table.seats.get(s)!.chips]));
    const stacks = dealt.map((s) => ({ seat: s, entry: table.seats.get(s)!.entry, chips: start.get(s)! }));
    const started: Report = { type: "hand_started", hand: table.hand, button, stacks };
    if (table.held) started.deal_hand = table.released.shift(); // names the deal_hand it answers
    await this.report(table, started);

    const [after, busts] = this.outcome(table, dealt, small, big, start);
    for (const s of dealt) table.seats.get(s)!.chips = after.get(s)!;
    for (const b of busts) table.awaitingWord.add(b.entry);
    dealt = dealt.filter((s) => after.get(s)! > 0);
    const finished = dealt.map((s) => ({ seat: s, entry: table.seats.get(s)!.entry, chips: after.get(s)! }));
    await this.report(table, { type: "hand_finished", hand: table.hand, stacks: finished, busts });
    this.hands += 1;
  }

  /** Chips after the hand, and the busts with the pots that took their chips. */
  outcome(table: Table, dealt: number[], small: number, big: number, start: Map<number, number>): [Map<number, number>, Bust[]] {
    const b = table.blinds!;
    const posts = new Map(dealt.map((s) => [s, b.big_blind_ante ? 0 : b.ante]));
    if (small !== big) posts.set(small, posts.get(small)! + b.small_blind);
    posts.set(big, posts.get(big)! + b.big_blind + (b.big_blind_ante ? b.ante : 0));
    if (this.random() < 0.4 && dealt.every((s) => posts.get(s)! < start.get(s)!)) {
      // Everyone folds to the big blind, who takes what was posted.
      const after = new Map(dealt.map((s) => [s, start.get(s)! - posts.get(s)!]));
      let pot = 0;
      for (const p of posts.values()) pot += p;
      after.set(big, after.get(big)! + pot);
      return [after, []];
    }
    // Two players all in: the smaller stack is at risk, the winner drawn at random.
    const first = dealt[Math.floor(this.random() * dealt.length)];
    const others = dealt.filter((s) => s !== first);
    const second = others[Math.floor(this.random() * others.length)];
    const [winner, loser] = this.random() < 0.5 ? [first, second] : [second, first];
    const atRisk = Math.min(start.get(first)!, start.get(second)!);
    const after = new Map(start);
    after.set(winner, after.get(winner)! + atRisk);
    after.set(loser, after.get(loser)! - atRisk);
    const busts: Bust[] = [];
    if (after.get(loser) === 0) {
      const entry = table.seats.get(loser)!.entry;
      busts.push({ entry, stack_at_start: start.get(loser)!, pots: [{ winners: [table.seats.get(winner)!.entry], chips: start.get(loser)! }] });
    }
    return [after, busts];
  }

  allClosed(): boolean {
    return this.tables.size > 0 && [...this.tables.values()].every((t) => t.closed);
  }
}

// --- Command line and the loop -------------------------------------------------------------------

function options(argv: string[]): { nats: string; tournament: string; seed: number; timeout: number; linger: number } {
  const get = (name: string): string | undefined => {
    const i = argv.indexOf(`--${name}`);
    return i >= 0 ? argv[i + 1] : undefined;
  };
  const nats = get("nats") ?? process.env.NATS_URL;
  const tournament = get("tournament") ?? process.env.FLOOR_TOURNAMENT;
  if (!nats || !tournament) {
    console.error("usage: table_server.js --nats URL --tournament ID [--seed N] [--timeout S] [--linger S] (or NATS_URL, FLOOR_TOURNAMENT)");
    process.exit(2);
  }
  return { nats, tournament, seed: Number(get("seed") ?? 7), timeout: Number(get("timeout") ?? 300), linger: Number(get("linger") ?? 2) };
}

function credentials(): Partial<ConnectionOptions> {
  const env = process.env;
  if (env.NATS_USER) return { user: env.NATS_USER, pass: env.NATS_PASSWORD ?? "" };
  if (env.NATS_TOKEN) return { token: env.NATS_TOKEN };
  return {};
}

async function main(): Promise<number> {
  const args = options(process.argv.slice(2));
  const nc = await connect({ servers: args.nats, name: "node-table-server", ...credentials() });
  const jsm = await nc.jetstreamManager();
  const js = nc.jetstream();
  const server = new TableServer(js, args.tournament, rng(args.seed));

  // docs: "Streams and consumers": a durable pull consumer of our own, deliver all, explicit acks.
  const durable = `node-tables-${args.tournament}`;
  const settings = { ack_policy: AckPolicy.Explicit, deliver_policy: DeliverPolicy.All, ack_wait: nanos(60_000), inactive_threshold: nanos(3_600_000) };
  await jsm.consumers.add(STREAM, { ...settings, durable_name: durable, filter_subject: `floor.table.${args.tournament}.*.in` });
  await jsm.consumers.add(STREAM, { ...settings, durable_name: `${durable}-rejected`, filter_subject: `floor.table.${args.tournament}.*.rejected` });

  let wake: () => void = () => {};
  const arrived: JsMsg[] = [];
  const instructions = await (await js.consumers.get(STREAM, durable)).consume({ max_messages: 256 });
  const rejections = await (await js.consumers.get(STREAM, `${durable}-rejected`)).consume({ max_messages: 64 });
  void (async () => {
    for await (const m of instructions) {
      arrived.push(m);
      wake();
    }
  })();
  void (async () => {
    for await (const m of rejections) {
      server.rejections.push(JSON.parse(m.string()));
      m.ack();
      wake();
    }
  })();

  const deadline = Date.now() + args.timeout * 1000;
  while (!(server.allClosed() && Date.now() - server.lastInstruction > args.linger * 1000)) {
    if (Date.now() > deadline) {
      console.error(`node-table-server: no end after ${args.timeout} s`);
      break;
    }
    for (const m of arrived.splice(0)) if (!server.take(m)) m.ack();
    if (server.rejections.length > 0) {
      // Floor and this server no longer agree on a table: dealing on would only be rejected.
      console.error(`node-table-server: Floor rejected ${JSON.stringify(server.rejections)}`);
      break;
    }
    let dealt = false;
    for (const table of server.tables.values()) {
      await server.applyReady(table);
      if (table.mayDeal()) {
        await server.deal(table);
        dealt = true;
      }
    }
    if (!dealt && arrived.length === 0) {
      // Nothing to do: wait for the next instruction (or a moment, to look at the clock).
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, 200);
        wake = () => {
          clearTimeout(timer);
          resolve();
        };
      });
      wake = () => {};
    }
  }
  instructions.stop();
  rejections.stop();
  const finished = server.allClosed();
  if (finished) {
    // docs: delete your consumers once every table they read is closed.
    await jsm.consumers.delete(STREAM, durable).catch(() => false);
    await jsm.consumers.delete(STREAM, `${durable}-rejected`).catch(() => false);
  }
  await nc.close();
  const summary = {
    tournament: args.tournament,
    finished,
    hands: server.hands,
    moves: server.moves,
    eliminated: server.eliminated,
    tables: server.tables.size,
    tables_closed: server.closed,
    rejections: server.rejections,
  };
  console.log(JSON.stringify(summary));
  return finished && server.rejections.length === 0 ? 0 : 1;
}

// Stopped (by `floor table-check`, or Ctrl-C): exit at once; the durable consumer keeps our place.
for (const signal of ["SIGTERM", "SIGINT"] as const) process.on(signal, () => process.exit(0));

main().then(
  (code) => process.exit(code),
  (e) => {
    console.error(`node-table-server: ${e instanceof Error ? e.message : String(e)}`);
    process.exit(1);
  },
);
