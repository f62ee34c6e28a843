//! Test fixtures: tournaments at cancellation, built by hand, in euro cents.

use crate::snapshot::{Bounty, Entry, Format, Paid, Snapshot, Standing, Tables};
use crate::statement::{Cancellation, LineKind};
use floor_events::payouts::PrizeBand;
use floor_events::tournament::EntryLedger;
use floor_events::{Currency, EntryNo, Money, PlayerId};

/// Euro cents.
pub fn eur(amount: u64) -> Money {
    Money::new(amount, Currency::EUR)
}

/// A purchase: `prize_pool` into the pool (of which `bounty` to the bounty pool), `fee` on top.
pub fn paid(prize_pool: u64, fee: u64, bounty: u64) -> Paid {
    Paid { ledger: EntryLedger { paid_in: eur(prize_pool + fee), fee: eur(fee), prize_pool: eur(prize_pool) }, bounty }
}

/// Player `p<no>`.
pub fn player(no: u32) -> PlayerId {
    PlayerId::parse(&format!("p{no:03}")).unwrap()
}

/// Entry `no` of player `p<no>`, still in with `chips`.
pub fn still_in(no: u32, buy_in: Paid, chips: u64) -> Entry {
    Entry {
        entry: EntryNo(no),
        player: player(no),
        buy_in,
        rebuys: vec![],
        add_ons: vec![],
        standing: Standing::Remaining { chips },
        bounty: Bounty::default(),
        carried_chips: 0,
    }
}

/// Entry `no` of player `p<no>`, out in `place` with `prize` paid.
pub fn out(no: u32, buy_in: Paid, place: u32, prize: u64) -> Entry {
    Entry { standing: Standing::Eliminated { place, prize }, ..still_in(no, buy_in, 0) }
}

/// One band per place, first place first.
pub fn prizes(amounts: &[u64]) -> Vec<PrizeBand> {
    amounts.iter().enumerate().map(|(i, &amount)| PrizeBand { from: i as u32 + 1, to: i as u32 + 1, amount }).collect()
}

/// A multi-table tournament.
pub const MULTI: Format = Format { tables: Tables::Multi, sit_and_go: false, twister: false };
/// A single-table tournament (scheduled).
pub const SINGLE: Format = Format { tables: Tables::Single, sit_and_go: false, twister: false };
/// A single-table sit & go.
pub const SIT_AND_GO: Format = Format { tables: Tables::Single, sit_and_go: true, twister: false };

/// A snapshot of these entries.
pub fn snapshot(format: Format, entries: Vec<Entry>, table: &[u64]) -> Snapshot {
    Snapshot {
        currency: Currency::EUR,
        format,
        entries,
        prizes: prizes(table),
        guarantee: None,
        buying_open: false,
        deal: None,
        transferred_in: 0,
    }
}

/// The 100-entry field of the examples (004 §4.37 worked example, PokerStars' pool): €90 into
/// the pool + €10 fee each, pool €9,000, 15 places paid:
/// 2,700 / 1,800 / 1,125 / 810 / 630 / 495 / 405 / 315 / 270 / 75 × 6 (sums to 9,000).
pub const TABLE_9000: [u64; 15] =
    [270_000, 180_000, 112_500, 81_000, 63_000, 49_500, 40_500, 31_500, 27_000, 7_500, 7_500, 7_500, 7_500, 7_500, 7_500];

/// The 100-entry field with entries 1..=`left` still in holding `chips[k]`, the rest out in
/// the place equal to their entry number, each paid the table's prize for it.
pub fn field_of_100(chips: &[u64]) -> Snapshot {
    let left = chips.len() as u32;
    let entries = (1..=100)
        .map(|no| {
            if no <= left {
                still_in(no, paid(9_000, 1_000, 0), chips[no as usize - 1])
            } else {
                out(no, paid(9_000, 1_000, 0), no, TABLE_9000.get(no as usize - 1).copied().unwrap_or(0))
            }
        })
        .collect();
    snapshot(MULTI, entries, &TABLE_9000)
}

/// The 10-entry field: €100 into the pool + €10 fee each, pool €1,000, 3 paid: 500 / 300 / 200
/// (002 §2.8's illustration). Entries 1..=`left` still in with `chips[k]`, the rest out in
/// their entry number's place and paid for it.
pub fn field_of_10(format: Format, chips: &[u64]) -> Snapshot {
    let table = [50_000, 30_000, 20_000];
    let left = chips.len() as u32;
    let entries = (1..=10)
        .map(|no| {
            if no <= left {
                still_in(no, paid(10_000, 1_000, 0), chips[no as usize - 1])
            } else {
                out(no, paid(10_000, 1_000, 0), no, table.get(no as usize - 1).copied().unwrap_or(0))
            }
        })
        .collect();
    snapshot(format, entries, &table)
}

/// The lines of one entry: (kind, amount), in order.
pub fn lines(c: &Cancellation, entry: u32) -> Vec<(LineKind, u64)> {
    c.statements.iter().flat_map(|s| &s.lines).filter(|l| l.entry == EntryNo(entry)).map(|l| (l.kind, l.amount)).collect()
}

/// What a player is paid in all.
pub fn total(c: &Cancellation, no: u32) -> u64 {
    c.statement(&player(no)).map_or(0, |s| s.total)
}
