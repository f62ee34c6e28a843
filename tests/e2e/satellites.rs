//! Satellites (issue 36), against a real nats-server: a four-handed sit & go whose prize is
//! seats in a scheduled tournament (EUR 10 + 1, the seat value EUR 11) is played to its stop.
//! Its pool (4 × EUR 6) buys two seats and EUR 2 of leftover: the second player out is paid the
//! EUR 2 in cash, and play stops with two left, each winning a seat. Each seat is a ticket
//! issued once and spent at once on the target: the winner is registered there, the entry
//! naming the ticket; both tournaments' books balance on their own; the `satellite` and
//! `tickets` verbs show the spent tickets. Killed while a seat is being taken and restarted,
//! the platform finishes it: each seat is registered exactly once.
//!
//! A winner already registered in the target, in a satellite that passes such a seat down: the
//! seat goes to the next finisher (the leftover's), who is registered by a new ticket; the
//! winner's ticket is void; both books balance; killed as the seat passes down, the platform
//! registers the next finisher once after its restart. The target cancelled: every ticket that paid an
//! entry there comes back, and a seat won after stays a ticket with the target's code. Ticket
//! life: a ticket converted to cash where the satellite allows it, and one recorded expired as
//! of the operator's time, neither spendable after; the ticket ledger balanced.

use floor_events::registration::{CancelTournament, TournamentEvent, Unregister};
use floor_events::satellites::{
    IfRegistered, SatelliteEvent, SatelliteOf, SatellitePrize, SatelliteTerms, SatelliteView, SpendTicket, TicketRef, TicketState,
    TicketView, TicketsOf,
};
use floor_events::table::SeatStack;
use floor_events::tournament::{Fee, TournamentDefinition};
use floor_events::{codes, subjects, CommandId, Currency, EntryNo, Money, PlayerId, Reply, TournamentId};
use floor_tests::{four_handed, freezeout, World};
use std::collections::BTreeMap;

const NAMES: [&str; 4] = ["ann", "bob", "cat", "dan"];

fn eur(cents: u64) -> Money {
    Money::new(cents, Currency::EUR)
}

/// A scheduled tournament tomorrow, EUR 10 + 1 (an entry costs 1,100), room for 100.
fn target() -> TournamentDefinition {
    TournamentDefinition { guarantee: None, ..freezeout(100) }
}

/// A four-handed sit & go at EUR 6 + 0.50 whose prize is seats in `target` worth 1,100 each.
fn satellite(target: TournamentId) -> TournamentDefinition {
    TournamentDefinition {
        name: "E2E Satellite".into(),
        buy_in: eur(600),
        fee: Fee::OnTop(eur(50)),
        satellite: Some(SatelliteTerms::new(target, eur(1_100))),
        ..four_handed()
    }
}

/// The target and its satellite, created; the four registered in the satellite (which starts
/// with the fourth); the first player out. Returns both ids and the three left.
async fn to_three(world: &World) -> (TournamentId, TournamentId, Vec<SeatStack>) {
    let major = world.create(target()).await;
    let sat = world.create(satellite(major)).await;
    for p in NAMES {
        assert!(matches!(world.register(sat, p).await, Reply::Ok(_)), "{p} registers");
    }
    let seats = world.seated(sat, 4).await;
    let three = world.bust(sat, 1, &seats, seats[0], seats[1]).await;
    (major, sat, three)
}

fn player_of(entry: EntryNo) -> PlayerId {
    PlayerId::parse(NAMES[entry.0 as usize - 1]).unwrap()
}

/// The target's entries paid by a ticket: ticket → (entry, player), failing on a ticket that
/// paid two entries.
async fn ticket_entries(world: &World, major: TournamentId) -> BTreeMap<TicketRef, (EntryNo, PlayerId)> {
    let mut paid = BTreeMap::new();
    for e in world.commits(major).await.into_iter().flat_map(|c| c.events) {
        if let TournamentEvent::EntryRegistered(r) = e {
            if let Some(ticket) = r.ticket {
                assert_eq!(r.ledger.paid_in, eur(1_100), "the ticket pays the entry's price");
                assert!(paid.insert(ticket, (r.entry, r.player)).is_none(), "ticket {ticket} paid two entries");
            }
        }
    }
    paid
}

/// The satellite's log: each ticket issued once, each spent once on `major`.
async fn tickets_in_log(world: &World, sat: TournamentId, major: TournamentId) -> BTreeMap<TicketRef, EntryNo> {
    let subject = subjects::event_subject(subjects::aggregate::SATELLITE, sat.0);
    let commits: Vec<floor_runtime::store::StoredCommit<SatelliteEvent>> =
        floor_runtime::JetStreamStore::new(&world.backbone).load(&subject, 0).await.expect("the satellite's log");
    let (mut issued, mut spent) = (Vec::new(), BTreeMap::new());
    for e in commits.into_iter().flat_map(|c| c.events) {
        match e {
            SatelliteEvent::TicketIssued(i) => {
                assert!(!issued.contains(&i.ticket), "ticket {} issued twice", i.ticket);
                assert_eq!((i.value, i.target, i.prize), (eur(1_100), major, SatellitePrize::Seat));
                issued.push(i.ticket);
            }
            SatelliteEvent::TicketSpent(s) => {
                assert_eq!(s.tournament, major);
                assert!(spent.insert(s.ticket, s.entry).is_none(), "ticket {} spent twice", s.ticket);
            }
            SatelliteEvent::SeatRefused(r) => panic!("seat refused: {r:?}"),
            _ => {}
        }
    }
    assert_eq!(issued.len(), spent.len(), "every ticket issued was spent");
    spent
}

/// The two seats are registered in the target, each once, paid by its ticket; the satellite's
/// log and the target's agree; both books balance.
async fn assert_two_seats_taken(world: &World, sat: TournamentId, major: TournamentId, survivors: &[SeatStack]) {
    let mut log = world.watch_events::<SatelliteEvent>(subjects::aggregate::SATELLITE, sat).await;
    for _ in 0..2 {
        log.next_where(|e| matches!(e, SatelliteEvent::TicketSpent(_))).await;
    }
    let spent = tickets_in_log(world, sat, major).await;
    let paid = ticket_entries(world, major).await;
    let winners: Vec<TicketRef> = survivors.iter().map(|s| TicketRef { satellite: sat, entry: s.entry }).collect();
    assert_eq!(
        spent.keys().copied().collect::<Vec<_>>(),
        {
            let mut w = winners.clone();
            w.sort();
            w
        },
        "a ticket per survivor"
    );
    assert_eq!(paid.len(), 2, "two seats taken in the target: {paid:?}");
    for ticket in &winners {
        let (entry, player) = paid.get(ticket).unwrap_or_else(|| panic!("{ticket} paid no entry"));
        assert_eq!(*player, player_of(ticket.entry), "the seat is the winner's");
        assert_eq!(spent[ticket], *entry, "the satellite's log names the target's entry");
    }

    let books_sat = world.books(sat).await;
    assert!(books_sat.balanced, "the satellite's books: {books_sat:?}");
    assert_eq!((books_sat.prize_pool, books_sat.prizes_paid), (2_400, 2_400), "two seats and the leftover paid: {books_sat:?}");
    let books_major = world.books(major).await;
    assert!(books_major.balanced, "the target's books: {books_major:?}");
    assert_eq!((books_major.entries, books_major.paid_in), (2, 2_200), "the tickets paid the target's entries: {books_major:?}");

    // The read model: the satellite and each winner's ticket, spent.
    world.read_by(subjects::service::SATELLITES, sat, u64::MAX).await;
    let view: SatelliteView = match world.request(subjects::service::SATELLITES, "satellite", &SatelliteOf { tournament_id: sat }).await {
        Reply::Ok(v) => serde_json::from_value(v).expect("a satellite view"),
        Reply::Error(e) => panic!("satellite refused: {e:?}"),
    };
    assert_eq!(view.terms.target, major);
    assert_eq!(view.tickets.len(), 2);
    assert!(view.tickets.iter().all(|t| t.state == TicketState::Spent && t.spent_on.is_some_and(|(on, _)| on == major)), "{view:?}");
    let winner = survivors[0];
    let theirs: Vec<TicketView> =
        match world.request(subjects::service::SATELLITES, "tickets", &TicketsOf { player: player_of(winner.entry) }).await {
            Reply::Ok(v) => serde_json::from_value(v).expect("tickets"),
            Reply::Error(e) => panic!("tickets refused: {e:?}"),
        };
    assert_eq!(theirs.iter().map(|t| (t.ticket.entry, t.state)).collect::<Vec<_>>(), vec![(winner.entry, TicketState::Spent)]);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_satellite_s_survivors_at_its_stop_are_registered_in_the_target_by_their_tickets() {
    let world = World::start_configured(|c| c.skip("scheduler")).await;
    let (major, sat, three) = to_three(&world).await;
    // The second out is third: the EUR 2 leftover, in cash; two are left, as many as the seats.
    let two = world.bust(sat, 2, &three, three[0], three[1]).await;
    assert_two_seats_taken(&world, sat, major, &two).await;
    let finished = world.commits(sat).await.into_iter().flat_map(|c| c.events).find_map(|e| match e {
        TournamentEvent::TournamentFinished(f) => Some(f),
        _ => None,
    });
    let shared: Vec<EntryNo> = finished.expect("the satellite stops").shared_by.iter().map(|s| s.entry).collect();
    assert_eq!(shared.len(), 2, "the survivors share the stop: {shared:?}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn killed_while_a_seat_is_taken_the_platform_registers_each_seat_once_after_its_restart() {
    let mut world = World::start_configured(|c| c.skip("scheduler")).await;
    let (major, sat, three) = to_three(&world).await;
    let mut log = world.watch_events::<SatelliteEvent>(subjects::aggregate::SATELLITE, sat).await;
    let two = world.bust(sat, 2, &three, three[0], three[1]).await;
    // Killed once the first seat is being taken: registration may or may not have been asked.
    log.next_where(|e| matches!(e, SatelliteEvent::TicketSpending(_))).await;
    world.kill_platform();
    world.restart_platform().await;
    assert_two_seats_taken(&world, sat, major, &two).await;
}

async fn spend(world: &World, ticket: TicketRef, player: &PlayerId, on: TournamentId, command_id: CommandId) -> Reply<serde_json::Value> {
    let request = SpendTicket { command_id, ticket, player: player.clone(), tournament_id: on };
    world.request(subjects::service::SATELLITES, "spend_ticket", &request).await
}

/// A target with one place left takes one seat and refuses the other: that winner keeps a
/// ticket, with the reason. Nobody else may spend it, a spent ticket is not spent again, and an
/// unknown one is refused; spent on the full target it is refused by registration and back in
/// its holder's hands; once a place is free (a cash entry unregisters) it pays an entry. The
/// entry a ticket paid, unregistered, gives the ticket back.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_seat_a_full_target_refuses_stays_a_ticket_its_winner_spends_later_and_a_refund_gives_it_back() {
    let world = World::start_configured(|c| c.skip("scheduler")).await;
    let major = world.create(TournamentDefinition { capacity: 2, ..target() }).await;
    assert!(matches!(world.register(major, "zoe").await, Reply::Ok(_)), "zoe pays cash");
    let sat = world.create(satellite(major)).await;
    for p in NAMES {
        assert!(matches!(world.register(sat, p).await, Reply::Ok(_)), "{p} registers");
    }
    let mut log = world.watch_events::<SatelliteEvent>(subjects::aggregate::SATELLITE, sat).await;
    let seats = world.seated(sat, 4).await;
    let three = world.bust(sat, 1, &seats, seats[0], seats[1]).await;
    world.bust(sat, 2, &three, three[0], three[1]).await;

    let (mut spent, mut refused) = (None, None);
    while spent.is_none() || refused.is_none() {
        match log.next_where(|e| matches!(e, SatelliteEvent::TicketSpent(_) | SatelliteEvent::SeatRefused(_))).await {
            SatelliteEvent::TicketSpent(s) => spent = Some(s),
            SatelliteEvent::SeatRefused(r) => refused = Some(r),
            other => unreachable!("{other:?}"),
        }
    }
    let (spent, refused) = (spent.unwrap(), refused.unwrap());
    let (holder, other) = (player_of(refused.ticket.entry), player_of(spent.ticket.entry));

    // Refused: another player's, an unknown ticket, a spent one.
    let code = |reply: Reply<serde_json::Value>| match reply {
        Reply::Error(e) => e.code,
        Reply::Ok(v) => panic!("expected a refusal, got {v}"),
    };
    assert_eq!(code(spend(&world, refused.ticket, &other, major, CommandId::new()).await), codes::TICKET_NOT_YOURS);
    let unknown = TicketRef { satellite: sat, entry: EntryNo(99) };
    assert_eq!(code(spend(&world, unknown, &holder, major, CommandId::new()).await), codes::UNKNOWN_TICKET);
    assert_eq!(code(spend(&world, spent.ticket, &other, major, CommandId::new()).await), codes::TICKET_SPENT);

    // Still full: registration refuses, and the ticket is the holder's again.
    let full = code(spend(&world, refused.ticket, &holder, major, CommandId::new()).await);
    assert!(
        ![codes::TICKET_NOT_YOURS, codes::UNKNOWN_TICKET, codes::TICKET_SPENT].contains(&full.as_str()),
        "registration's refusal: {full}"
    );
    log.next_where(|e| matches!(e, SatelliteEvent::SpendingFailed(f) if f.ticket == refused.ticket)).await;

    // A place frees: the ticket pays an entry (a retry of the same request answers the same).
    let zoe = Unregister { command_id: CommandId::new(), tournament_id: major, player: PlayerId::parse("zoe").unwrap(), entry: None };
    assert!(matches!(world.send("unregister", &zoe).await, Reply::Ok(_)), "zoe leaves");
    let id = CommandId::new();
    let view: TicketView = match spend(&world, refused.ticket, &holder, major, id).await {
        Reply::Ok(v) => serde_json::from_value(v).expect("a ticket"),
        Reply::Error(e) => panic!("spend refused: {e:?}"),
    };
    assert_eq!(view.state, TicketState::Spent);
    assert!(view.seat_refused.is_some(), "the refusal is remembered: {view:?}");
    let again: TicketView = match spend(&world, refused.ticket, &holder, major, id).await {
        Reply::Ok(v) => serde_json::from_value(v).expect("a ticket"),
        Reply::Error(e) => panic!("the retry refused: {e:?}"),
    };
    assert_eq!(again, view, "a retry is answered, not spent twice");
    let paid = ticket_entries(&world, major).await;
    assert_eq!(paid.len(), 2, "{paid:?}");
    assert_eq!(paid[&refused.ticket], (view.spent_on.unwrap().1, holder.clone()));

    // The other winner unregisters: the ticket is back, to spend again.
    let out = Unregister { command_id: CommandId::new(), tournament_id: major, player: other.clone(), entry: None };
    assert!(matches!(world.send("unregister", &out).await, Reply::Ok(_)), "the other winner leaves");
    log.next_where(|e| matches!(e, SatelliteEvent::TicketRefunded(r) if r.ticket == spent.ticket && r.tournament == major)).await;
    world.read_by(subjects::service::SATELLITES, sat, u64::MAX).await;
    let theirs: Vec<TicketView> = match world.request(subjects::service::SATELLITES, "tickets", &TicketsOf { player: other.clone() }).await
    {
        Reply::Ok(v) => serde_json::from_value(v).expect("tickets"),
        Reply::Error(e) => panic!("tickets refused: {e:?}"),
    };
    assert_eq!(theirs.iter().map(|t| (t.ticket, t.state)).collect::<Vec<_>>(), vec![(spent.ticket, TicketState::Issued)]);
    let major_books = world.books(major).await;
    assert!(major_books.balanced, "{major_books:?}");
}

/// The same satellite, passing a seat won by a player already in the target down.
fn passing_down(target: TournamentId) -> TournamentDefinition {
    let mut definition = satellite(target);
    definition.satellite = definition.satellite.map(|t| SatelliteTerms { if_registered: IfRegistered::PassDown, ..t });
    definition
}

async fn satellite_view(world: &World, sat: TournamentId) -> SatelliteView {
    world.read_by(subjects::service::SATELLITES, sat, u64::MAX).await;
    match world.request(subjects::service::SATELLITES, "satellite", &SatelliteOf { tournament_id: sat }).await {
        Reply::Ok(v) => serde_json::from_value(v).expect("a satellite view"),
        Reply::Error(e) => panic!("satellite refused: {e:?}"),
    }
}

fn refusal(reply: Reply<serde_json::Value>) -> String {
    match reply {
        Reply::Error(e) => e.code,
        Reply::Ok(v) => panic!("expected a refusal, got {v}"),
    }
}

/// Issue 36, the winner already registered, `pass_down`: the first of the two survivors paid
/// cash for the target before the stop. Their seat is refused (`already_registered`) and goes
/// to the next finisher below the last seat, the third (paid the EUR 2 leftover), who is
/// registered in the target by a new ticket; the winner's ticket is void and cannot be spent.
/// The target holds the winner's cash entry and two entries by ticket, the satellite two seats
/// and the leftover: both books balance.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_seat_won_by_a_player_already_in_the_target_passes_down_to_the_next_finisher() {
    let world = World::start_configured(|c| c.skip("scheduler")).await;
    let major = world.create(target()).await;
    let sat = world.create(passing_down(major)).await;
    for p in NAMES {
        assert!(matches!(world.register(sat, p).await, Reply::Ok(_)), "{p} registers");
    }
    let mut log = world.watch_events::<SatelliteEvent>(subjects::aggregate::SATELLITE, sat).await;
    let seats = world.seated(sat, 4).await;
    let three = world.bust(sat, 1, &seats, seats[0], seats[1]).await;
    let (already, third) = (three[0], three[1]);
    let winner = player_of(already.entry);
    assert!(matches!(world.register(major, winner.as_str()).await, Reply::Ok(_)), "{winner} pays cash for the target");
    let two = world.bust(sat, 2, &three, three[0], three[1]).await;
    let other = two.iter().copied().find(|s| s.entry != already.entry).expect("the other survivor");

    let passed = match log.next_where(|e| matches!(e, SatelliteEvent::SeatPassedDown(_))).await {
        SatelliteEvent::SeatPassedDown(p) => p,
        other => unreachable!("{other:?}"),
    };
    let (void, new) = (TicketRef { satellite: sat, entry: already.entry }, TicketRef { satellite: sat, entry: third.entry });
    assert_eq!((passed.ticket, passed.to, passed.place), (void, new, 3), "to the third, below the last seat: {passed:?}");
    assert_eq!((passed.player.clone(), passed.code.as_str()), (player_of(third.entry), codes::ALREADY_REGISTERED));
    log.next_where(|e| matches!(e, SatelliteEvent::TicketSpent(s) if s.ticket == new)).await;

    // The target: the winner's cash entry, the other survivor's and the third's by ticket, each
    // ticket once; the void ticket paid nothing.
    let paid = ticket_entries(&world, major).await;
    assert_eq!(paid.keys().copied().collect::<Vec<_>>(), {
        let mut both = vec![TicketRef { satellite: sat, entry: other.entry }, new];
        both.sort();
        both
    });
    assert_eq!(paid[&new].1, player_of(third.entry), "the seat is the third's");
    let view = satellite_view(&world, sat).await;
    let states: BTreeMap<TicketRef, (TicketState, Option<TicketRef>, Option<TicketRef>)> =
        view.tickets.iter().map(|t| (t.ticket, (t.state, t.passed_to, t.passed_from))).collect();
    assert_eq!(states.len(), 3, "{view:?}");
    assert_eq!(states[&void], (TicketState::PassedDown, Some(new), None));
    assert_eq!(states[&new], (TicketState::Spent, None, Some(void)));
    assert_eq!(states[&TicketRef { satellite: sat, entry: other.entry }].0, TicketState::Spent);
    assert_eq!(refusal(spend(&world, void, &winner, major, CommandId::new()).await), codes::TICKET_PASSED_DOWN);

    let books_sat = world.books(sat).await;
    assert!(books_sat.balanced, "the satellite's books: {books_sat:?}");
    assert_eq!((books_sat.prize_pool, books_sat.prizes_paid), (2_400, 2_400), "{books_sat:?}");
    let books_major = world.books(major).await;
    assert!(books_major.balanced, "the target's books: {books_major:?}");
    assert_eq!((books_major.entries, books_major.paid_in), (3, 3_300), "a cash entry and two by ticket: {books_major:?}");
}

/// Killed as soon as a seat is passed down (the new ticket issued, its seat perhaps not yet
/// asked for) and restarted: the policy takes the passed seat from its checkpointed log, once;
/// the target holds exactly the two entries by ticket and the winner's cash entry.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn killed_as_a_seat_passes_down_the_next_finisher_is_registered_once_after_the_restart() {
    let mut world = World::start_configured(|c| c.skip("scheduler")).await;
    let major = world.create(target()).await;
    let sat = world.create(passing_down(major)).await;
    for p in NAMES {
        assert!(matches!(world.register(sat, p).await, Reply::Ok(_)), "{p} registers");
    }
    let mut log = world.watch_events::<SatelliteEvent>(subjects::aggregate::SATELLITE, sat).await;
    let seats = world.seated(sat, 4).await;
    let three = world.bust(sat, 1, &seats, seats[0], seats[1]).await;
    let (already, third) = (three[0], three[1]);
    assert!(matches!(world.register(major, player_of(already.entry).as_str()).await, Reply::Ok(_)));
    world.bust(sat, 2, &three, three[0], three[1]).await;
    log.next_where(|e| matches!(e, SatelliteEvent::SeatPassedDown(_))).await;
    world.kill_platform();
    world.restart_platform().await;

    let new = TicketRef { satellite: sat, entry: third.entry };
    let mut log = world.watch_events::<SatelliteEvent>(subjects::aggregate::SATELLITE, sat).await;
    log.next_where(|e| matches!(e, SatelliteEvent::TicketSpent(s) if s.ticket == new)).await;
    let paid = ticket_entries(&world, major).await;
    assert_eq!(paid.len(), 2, "{paid:?}");
    assert_eq!(paid[&new].1, player_of(third.entry));
    let passes = {
        let subject = subjects::event_subject(subjects::aggregate::SATELLITE, sat.0);
        let commits: Vec<floor_runtime::store::StoredCommit<SatelliteEvent>> =
            floor_runtime::JetStreamStore::new(&world.backbone).load(&subject, 0).await.expect("the satellite's log");
        commits.into_iter().flat_map(|c| c.events).filter(|e| matches!(e, SatelliteEvent::SeatPassedDown(_))).count()
    };
    assert_eq!(passes, 1, "the seat passed down once");
    let books_major = world.books(major).await;
    assert!(books_major.balanced, "{books_major:?}");
    assert_eq!((books_major.entries, books_major.paid_in), (3, 3_300), "{books_major:?}");
}

/// Plays a four-handed satellite to its stop: the two left win the seats.
async fn to_the_stop(world: &World, sat: TournamentId) -> Vec<SeatStack> {
    let seats = world.seated(sat, 4).await;
    let three = world.bust(sat, 1, &seats, seats[0], seats[1]).await;
    world.bust(sat, 2, &three, three[0], three[1]).await
}

/// Issue 36, the target cancelled: a satellite's two seats are registered in the target, which
/// is then cancelled: both tickets come back, issued, to spend again (and not on another
/// tournament: the terms allow only the target). A second satellite to the same target, which
/// passes seats down, stops after the cancellation: both seats are refused with the target's
/// code and stay their winners' tickets.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_target_cancelled_gives_every_ticket_back_and_a_seat_won_after_stays_a_ticket() {
    let world = World::start_configured(|c| c.skip("scheduler")).await;
    let major = world.create(target()).await;
    let (first, second) = (world.create(satellite(major)).await, world.create(passing_down(major)).await);
    for sat in [first, second] {
        for p in NAMES {
            assert!(matches!(world.register(sat, p).await, Reply::Ok(_)), "{p} registers");
        }
    }
    let mut log = world.watch_events::<SatelliteEvent>(subjects::aggregate::SATELLITE, first).await;
    let two = to_the_stop(&world, first).await;
    for _ in 0..2 {
        log.next_where(|e| matches!(e, SatelliteEvent::TicketSpent(_))).await;
    }
    assert_eq!(ticket_entries(&world, major).await.len(), 2);

    let cancel = CancelTournament { command_id: CommandId::new(), tournament_id: major, reason: "no room".into() };
    assert!(matches!(world.send("cancel_tournament", &cancel).await, Reply::Ok(_)), "the target is cancelled");
    for _ in 0..2 {
        log.next_where(|e| matches!(e, SatelliteEvent::TicketRefunded(r) if r.tournament == major)).await;
    }
    let view = satellite_view(&world, first).await;
    assert_eq!(view.tickets.len(), 2);
    assert!(view.tickets.iter().all(|t| t.state == TicketState::Issued && t.spent_on.is_none()), "every ticket back: {view:?}");
    let holder = player_of(two[0].entry);
    let back = TicketRef { satellite: first, entry: two[0].entry };
    assert_eq!(refusal(spend(&world, back, &holder, second, CommandId::new()).await), codes::TICKET_WRONG_TOURNAMENT);

    let mut later = world.watch_events::<SatelliteEvent>(subjects::aggregate::SATELLITE, second).await;
    let winners = to_the_stop(&world, second).await;
    let mut refused = Vec::new();
    for _ in 0..2 {
        match later.next_where(|e| matches!(e, SatelliteEvent::SeatRefused(_) | SatelliteEvent::TicketSpent(_))).await {
            SatelliteEvent::SeatRefused(r) => refused.push(r),
            other => panic!("a seat in a cancelled target: {other:?}"),
        }
    }
    assert!(refused.iter().all(|r| r.code == codes::TOURNAMENT_CANCELLED), "{refused:?}");
    let view = satellite_view(&world, second).await;
    let mut held: Vec<(EntryNo, TicketState)> = view.tickets.iter().map(|t| (t.ticket.entry, t.state)).collect();
    held.sort_by_key(|h| h.0);
    let mut expected: Vec<(EntryNo, TicketState)> = winners.iter().map(|s| (s.entry, TicketState::Issued)).collect();
    expected.sort_by_key(|h| h.0);
    assert_eq!(held, expected, "each winner keeps a ticket: {view:?}");
    assert!(view.tickets.iter().all(|t| t.seat_refused.as_deref().is_some_and(|r| r.starts_with(codes::TOURNAMENT_CANCELLED))));
}

/// Issue 36, ticket life: a satellite whose prize is a ticket, valid 30 days and convertible to
/// cash (004 §4.36.4: the win is an amount the player may use freely). Played to its stop, its
/// two winners hold tickets. One converts hers (`convert_ticket`): converted, paid at its value,
/// and no longer spendable; the other's cannot be converted by someone else. Expired as of a
/// day later, nothing; as of 31 days later, the ticket still held is recorded expired and cannot
/// be spent. The satellite's ticket ledger: 2 × EUR 11 issued, one converted, one expired.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_ticket_converts_to_cash_where_allowed_and_expires_as_of_the_operator_s_time() {
    use floor_events::satellites::{ConvertTicket, ExpireTickets};
    let world = World::start_configured(|c| c.skip("scheduler")).await;
    let major = world.create(target()).await;
    let mut definition = satellite(major);
    definition.satellite =
        definition.satellite.map(|t| SatelliteTerms { prize: SatellitePrize::Ticket, convertible: true, ticket_valid_days: Some(30), ..t });
    let sat = world.create(definition).await;
    for p in NAMES {
        assert!(matches!(world.register(sat, p).await, Reply::Ok(_)), "{p} registers");
    }
    let mut log = world.watch_events::<SatelliteEvent>(subjects::aggregate::SATELLITE, sat).await;
    let two = to_the_stop(&world, sat).await;
    for _ in 0..2 {
        log.next_where(|e| matches!(e, SatelliteEvent::TicketIssued(_))).await;
    }
    let (first, second) = (TicketRef { satellite: sat, entry: two[0].entry }, TicketRef { satellite: sat, entry: two[1].entry });
    let (ann, other) = (player_of(two[0].entry), player_of(two[1].entry));
    let convert = |ticket: TicketRef, player: &PlayerId| ConvertTicket { command_id: CommandId::new(), ticket, player: player.clone() };
    let refused = world.request(subjects::service::SATELLITES, "convert_ticket", &convert(second, &ann)).await;
    assert_eq!(refusal(refused), codes::TICKET_NOT_YOURS);
    let converted: TicketView = match world.request(subjects::service::SATELLITES, "convert_ticket", &convert(first, &ann)).await {
        Reply::Ok(v) => serde_json::from_value(v).expect("a ticket"),
        Reply::Error(e) => panic!("convert refused: {e:?}"),
    };
    assert_eq!(converted.state, TicketState::Converted);
    assert_eq!(refusal(spend(&world, first, &ann, major, CommandId::new()).await), codes::TICKET_SPENT);

    let expire = |days: i64| ExpireTickets {
        command_id: CommandId::new(),
        tournament_id: sat,
        as_of: chrono::Utc::now() + chrono::Duration::days(days),
    };
    match world.request(subjects::service::SATELLITES, "expire_tickets", &expire(1)).await {
        Reply::Ok(v) => assert_eq!(v, serde_json::json!([]), "nothing expires before its time"),
        Reply::Error(e) => panic!("expire refused: {e:?}"),
    }
    let expired: Vec<TicketView> = match world.request(subjects::service::SATELLITES, "expire_tickets", &expire(31)).await {
        Reply::Ok(v) => serde_json::from_value(v).expect("tickets"),
        Reply::Error(e) => panic!("expire refused: {e:?}"),
    };
    assert_eq!(expired.iter().map(|t| (t.ticket, t.state)).collect::<Vec<_>>(), vec![(second, TicketState::Expired)]);
    assert_eq!(refusal(spend(&world, second, &other, major, CommandId::new()).await), codes::TICKET_EXPIRED);
    let view = satellite_view(&world, sat).await;
    assert_eq!((view.ledger.issued, view.ledger.converted, view.ledger.expired, view.ledger.held), (2_200, 1_100, 1_100, 0));
    assert!(view.ledger.balanced(), "{view:?}");
}
