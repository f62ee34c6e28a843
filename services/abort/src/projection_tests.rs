//! The abort service's folds of the log, tested: the snapshot a cancel builds from them.

use super::*;
use floor_events::payouts::PlaceAward;
use floor_events::registration::{EntryKind, EntryRegistered, TournamentCreated, TournamentStarted};
use floor_events::table::{SeatNo, SeatStack};
use floor_events::tournament::{purchase_ledger, TournamentDefinition};
use floor_events::{EntryNo, Money, TournamentId};

fn at(s: &str) -> DateTime<Utc> {
    s.parse().unwrap()
}

/// An entry reads back from its snapshot form unchanged, rebuys, add-ons and place included,
/// in a fraction of the named-field form's bytes.
#[test]
fn an_entry_reads_back_from_its_snapshot_form() {
    let l = |paid: u64| purchase_ledger(Money::new(paid, Currency::EUR), Money::new(paid / 10, Currency::EUR));
    let entry = EntryView {
        player: PlayerId::parse("sim-123456").unwrap(),
        buy_in: l(1_100),
        rebuys: vec![l(1_000), l(550)],
        add_ons: vec![l(1_000)],
        chips: u64::MAX,
        out: true,
        placed: Some((17, 2_500)),
        bounty: EntryBounty { buy_in: Some(500), rebuys: vec![Some(250), None], head: 1_250, collected: 125, knocked_out: true },
    };
    let json = serde_json::to_string(&entry).unwrap();
    assert_eq!(serde_json::from_str::<EntryView>(&json).unwrap(), entry, "{json}");
    let plain = EntryView { rebuys: vec![], add_ons: vec![], placed: None, bounty: EntryBounty::default(), ..entry };
    let json = serde_json::to_string(&plain).unwrap();
    assert!(json.len() < 80, "{} bytes: {json}", json.len());
}

fn definition() -> TournamentDefinition {
    TournamentDefinition {
        name: "Tuesday 10".into(),
        start: Start::At(at("2026-11-24T18:00:00Z")),
        table_size: 2,
        late_registration_until: Some(at("2026-11-24T19:00:00Z")),
        guarantee: Some(Money::new(50_000, Currency::EUR)),
        profile: RuleProfile::SvenskaSpel2012,
        ..TournamentDefinition::example()
    }
}

fn ledger() -> EntryLedger {
    purchase_ledger(Money::new(1_000, Currency::EUR), Money::new(100, Currency::EUR))
}

fn registered(no: u32, player: &str) -> TournamentEvent {
    TournamentEvent::EntryRegistered(EntryRegistered {
        entry: EntryNo(no),
        player: PlayerId::parse(player).unwrap(),
        kind: EntryKind::Registration,
        new_player: true,
        ledger: ledger(),
        at: at("2026-11-24T17:00:00Z"),
        ticket: None,
    })
}

fn seat(entry: u32, chips: u64) -> SeatStack {
    SeatStack { seat: SeatNo(u8::try_from(entry).unwrap()), entry: EntryNo(entry), chips }
}

/// Three entries at two tables. Table 1 finished a hand (1 busted 2, placed 3rd) and is
/// between hands; table 2 is in the middle of a hand that started with 9,000 for entry 3.
fn played() -> TournamentView {
    let mut v = TournamentView::default();
    let created = TournamentCreated { tournament_id: TournamentId::new(), definition: definition(), at: at("2026-11-24T12:00:00Z") };
    v.on_tournament(&[TournamentEvent::TournamentCreated(created), registered(1, "ann"), registered(2, "bob"), registered(3, "cat")]);
    v.on_tournament(&[TournamentEvent::TournamentStarted(TournamentStarted {
        entries: 3,
        cause: floor_events::registration::StartCause::Scheduled,
        at: at("2026-11-24T18:00:00Z"),
    })]);
    let joined = |no: u32, p: &str| SeatingEvent::EntryJoined { entry: EntryNo(no), player: PlayerId::parse(p).unwrap(), stack: 10_000 };
    v.on_seating(&[joined(1, "ann"), joined(2, "bob"), joined(3, "cat")]);
    v.on_seating(&[
        SeatingEvent::HandStarted { table: 1, hand: 1, button: SeatNo(1), stacks: vec![seat(1, 10_000), seat(2, 10_000)], crossing: false },
        SeatingEvent::HandFinished { table: 1, hand: 1, stacks: vec![seat(1, 21_000)], busts: vec![] },
        SeatingEvent::EntryEliminated { entry: EntryNo(2), players_left: 2, stack_at_start: None, table: None },
        // Table 2's hand 1 took 1,000 from entry 3 (to a player not shown); hand 2 is on.
        SeatingEvent::HandFinished { table: 2, hand: 1, stacks: vec![seat(3, 9_000)], busts: vec![] },
        SeatingEvent::HandStarted { table: 2, hand: 2, button: SeatNo(3), stacks: vec![seat(3, 9_000)], crossing: false },
    ]);
    v
}

#[test]
fn the_snapshot_takes_the_chips_at_the_start_of_each_interrupted_hand_and_the_places_from_payouts() {
    let mut v = played();
    let now = at("2026-11-24T20:00:00Z");
    let early = v.snapshot(now).unwrap_err();
    assert_eq!(early.code, codes::SNAPSHOT_UNAVAILABLE, "entry 2 is out and not placed yet: {early:?}");
    let award = PlaceAward { entry: EntryNo(2), player: PlayerId::parse("bob").unwrap(), place: 3, shared: 1, amount: 0 };
    v.on_payouts(&[PayoutEvent::PlacesAwarded { players_left_before: 3, awards: vec![award], hand_for_hand: None }]);
    let (profile, s) = v.snapshot(now).unwrap();
    assert_eq!(profile, RuleProfile::SvenskaSpel2012);
    let standings: Vec<Standing> = s.entries.iter().map(|e| e.standing).collect();
    assert_eq!(
        standings,
        [Standing::Remaining { chips: 21_000 }, Standing::Eliminated { place: 3, prize: 0 }, Standing::Remaining { chips: 9_000 }]
    );
    assert_eq!(s.entries[0].buy_in.ledger, ledger());
    assert_eq!(s.format.tables, Tables::Multi, "100 seats at tables of 2");
    assert_eq!((s.guarantee, s.buying_open), (Some(50_000), false), "late registration closed at 19:00");
    assert!(v.snapshot(at("2026-11-24T18:30:00Z")).unwrap().1.buying_open, "open before 19:00");
}

#[test]
fn what_cannot_be_built_is_refused_with_a_code() {
    let mut not_started = TournamentView::default();
    assert_eq!(not_started.snapshot(at("2026-11-24T20:00:00Z")).unwrap_err().code, codes::UNKNOWN_TOURNAMENT);
    let created = TournamentCreated { tournament_id: TournamentId::new(), definition: definition(), at: at("2026-11-24T12:00:00Z") };
    not_started.on_tournament(&[TournamentEvent::TournamentCreated(created)]);
    assert_eq!(not_started.in_play().unwrap_err().code, codes::TOURNAMENT_NOT_STARTED);
    let mut won = played();
    won.on_payouts(&[PayoutEvent::TournamentPaid { prizes_paid: Money::new(3_000, Currency::EUR) }]);
    assert_eq!(won.in_play().unwrap_err().code, codes::TOURNAMENT_FINISHED);
}

fn eur(cents: u64) -> Money {
    Money::new(cents, Currency::EUR)
}

fn player(name: &str) -> PlayerId {
    PlayerId::parse(name).unwrap()
}

/// [`played`] as a progressive knockout: each entry put 500 into the bounty pool, and
/// entry 1 knocked entry 2 out (250 in cash, 250 onto its own head).
fn played_pko() -> TournamentView {
    let mut v = played();
    v.bounties = true;
    let terms = BountyTerms::Progressive { share_bps: 5_000, cash_share_bps: 5_000 };
    v.on_bounties(&[BountyEvent::BountiesConfigured { tournament_id: TournamentId::new(), terms, currency: Currency::EUR }]);
    let paid_in =
        |no: u32, p: &str| BountyEvent::BountyPaidIn { entry: EntryNo(no), player: player(p), by: PaidInBy::Entry, amount: eur(500) };
    v.on_bounties(&[paid_in(1, "ann"), paid_in(2, "bob"), paid_in(3, "cat")]);
    let award = PlaceAward { entry: EntryNo(2), player: player("bob"), place: 3, shared: 1, amount: 0 };
    v.on_payouts(&[PayoutEvent::PlacesAwarded { players_left_before: 3, awards: vec![award], hand_for_hand: None }]);
    v
}

fn knockout_of_bob() -> Vec<BountyEvent> {
    vec![
        BountyEvent::EntryKnockedOut { entry: EntryNo(2), player: player("bob"), bounty: eur(500), unclaimed: false },
        BountyEvent::BountyPaid {
            to: EntryNo(1),
            player: player("ann"),
            eliminated: EntryNo(2),
            eliminated_player: player("bob"),
            cash: eur(250),
            added_to_own: eur(250),
        },
    ]
}

/// The bounties' ledger goes into the snapshot: each purchase's bounty part, each head
/// (with what a progressive knockout added to it), the cash collected; the tally adds up.
#[test]
fn a_bounty_tournament_s_snapshot_carries_the_bounties_ledger() {
    let mut v = played_pko();
    v.on_bounties(&knockout_of_bob());
    let (_, s) = v.snapshot(at("2026-11-24T20:00:00Z")).unwrap();
    let bounties: Vec<(u64, u64, u64)> = s.entries.iter().map(|e| (e.buy_in.bounty, e.bounty.head, e.bounty.collected)).collect();
    assert_eq!(bounties, [(500, 750, 250), (500, 0, 0), (500, 500, 0)]);
    let tally = crate::Tally::of(&s).unwrap();
    assert_eq!((tally.bounty_paid_in, tally.bounties_paid, tally.heads), (1_500, 250, 1_250));
    let cancellation = crate::cancel(&s, RuleProfile::Tda2024, crate::Method::RollForward).unwrap();
    let own: u64 =
        cancellation.statements.iter().flat_map(|st| &st.lines).filter(|l| l.kind == crate::LineKind::OwnBounty).map(|l| l.amount).sum();
    assert_eq!(own, 1_250, "each entry still in gets the bounty on its head");
}

/// A purchase whose bounty part, or a bust whose knockout, the bounties' ledger has not
/// recorded yet: refused, never guessed.
#[test]
fn a_bounty_ledger_behind_the_others_refuses_the_snapshot() {
    let now = at("2026-11-24T20:00:00Z");
    let v = played_pko();
    let behind = v.snapshot(now).unwrap_err();
    assert_eq!(behind.code, codes::SNAPSHOT_UNAVAILABLE);
    assert!(behind.message.contains("entry 2: its knockout"), "{}", behind.message);
    let mut v = played_pko();
    v.on_bounties(&knockout_of_bob());
    v.on_rebuys(&[RebuyEvent::RebuyTaken {
        entry: EntryNo(3),
        player: player("cat"),
        number: 1,
        chips: 10_000,
        ledger: ledger(),
        at: now,
    }]);
    let behind = v.snapshot(now).unwrap_err();
    assert!(behind.message.contains("entry 3: the bounty part of rebuy 1"), "{}", behind.message);
    let part = BountyEvent::BountyPaidIn { entry: EntryNo(3), player: player("cat"), by: PaidInBy::Rebuy { number: 1 }, amount: eur(500) };
    v.on_bounties(&[part]);
    let (_, s) = v.snapshot(now).unwrap();
    assert_eq!(s.entries[2].rebuys[0].bounty, 500);
    assert_eq!(s.entries[2].bounty.head, 1_000, "the rebuy's bounty part is on the head too");
}

/// An agreed deal goes into the snapshot with the parts of the entries still in.
#[test]
fn an_agreed_deal_is_in_the_snapshot_for_the_entries_still_in() {
    let mut v = played();
    let award = PlaceAward { entry: EntryNo(2), player: player("bob"), place: 3, shared: 1, amount: 0 };
    v.on_payouts(&[PayoutEvent::PlacesAwarded { players_left_before: 3, awards: vec![award], hand_for_hand: None }]);
    let share =
        |no: u32, p: &str, amount: u64| floor_events::payouts::DealShare { entry: EntryNo(no), player: player(p), chips: 0, amount };
    v.on_payouts(&[PayoutEvent::DealAgreed {
        shares: vec![share(1, "ann", 1_800), share(3, "cat", 1_000)],
        left_to_play_for: 200,
        ends_tournament: false,
    }]);
    let now = at("2026-11-24T20:00:00Z");
    let deal = v.snapshot(now).unwrap().1.deal.expect("the deal");
    assert_eq!(deal.parts, [DealPart { entry: EntryNo(1), amount: 1_800 }, DealPart { entry: EntryNo(3), amount: 1_000 }]);
    assert_eq!(deal.left_to_play_for, 200);
    v.on_seating(&[SeatingEvent::EntryEliminated { entry: EntryNo(3), players_left: 1, stack_at_start: None, table: None }]);
    let award = PlaceAward { entry: EntryNo(3), player: player("cat"), place: 2, shared: 1, amount: 1_000 };
    v.on_payouts(&[PayoutEvent::PlacesAwarded { players_left_before: 2, awards: vec![award], hand_for_hand: None }]);
    let deal = v.snapshot(now).unwrap().1.deal.expect("the deal");
    assert_eq!(deal.parts, [DealPart { entry: EntryNo(1), amount: 1_800 }], "entry 3 was paid its part when it went out");
}
