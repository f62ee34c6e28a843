//! Suspend, resume and cancel a tournament in play (issue 22), against a real nats-server: a
//! sit & go played part way is suspended, resumed and cancelled under tda-2024; the statements
//! use the chips at the start of the interrupted hand, sum to the money distributed and close
//! the books; the clock pauses and resumes with the tournament, across a restart of the
//! platform; bad requests get their codes and store nothing.

use floor_events::abort::statement::{Books, LineKind};
use floor_events::abort::{self, AbortEvent, Statements};
use floor_events::clock::ClockEvent;
use floor_events::table::{BustReport, PotWon, Report, SeatStack};
use floor_events::tournament::TournamentDefinition;
use floor_events::{codes, subjects, CommandId, Reply, TournamentId};
use floor_tests::{four_handed, freezeout, http_get, recorded, refusal_code, World};
use serde_json::Value;

async fn abort_request<T: serde::Serialize>(world: &World, verb: &str, request: &T) -> Reply<Value> {
    world.request(subjects::service::ABORT, verb, request).await
}

/// Sends `cancel` until the abort service has read the elimination's place from payouts
/// (`snapshot_unavailable` meanwhile: it never guesses), then returns the reply.
async fn cancel_when_ready(world: &World, cancel: &abort::Cancel) -> Reply<Value> {
    world.request_once_read(subjects::service::ABORT, "cancel", cancel, codes::SNAPSHOT_UNAVAILABLE).await
}

#[tokio::test]
async fn a_sit_and_go_cancelled_mid_hand_pays_by_the_chips_at_the_hand_s_start_and_balances_the_books() {
    let mut world = World::start().await;
    let t: TournamentId = world.create(four_handed()).await;
    // Follows the clock's commits from now on.
    let mut clock = world.watch_clock(t).await;
    let request = abort::AbortRequest { command_id: CommandId::new(), tournament_id: t };
    let suspend = |reason: &str| abort::Suspend { command_id: CommandId::new(), tournament_id: t, reason: reason.into() };

    // Before the start the abort service refuses: registration cancels (and refunds) then.
    let early = abort_request(&world, "suspend", &suspend("too early")).await;
    assert!(
        [codes::TOURNAMENT_NOT_STARTED, codes::UNKNOWN_TOURNAMENT].contains(&refusal_code(&early)),
        "{early:?}: not started (or not read yet)"
    );

    for p in ["ann", "bob", "cat", "dan"] {
        assert!(matches!(world.register(t, p).await, Reply::Ok(_)), "{p} registers");
    }
    let seats = world.seated(t, 4).await;
    let (s0, s1, s2, s3) = (seats[0], seats[1], seats[2], seats[3]);
    // Hand 1: s0 busts s1 (10,000 more), s2 wins 2,000 from s3. Hand 2 starts from 20,000,
    // 12,000 and 8,000, and is interrupted: its bets go back.
    world.report(t, "h1-start", Report::HandStarted { hand: 1, button: s0.seat, stacks: seats.clone(), deal_hand: None }).await;
    let bust = BustReport {
        entry: s1.entry,
        stack_at_start: 10_000,
        pots: vec![PotWon { winners: vec![s0.entry], chips: 10_000 }],
        best_high_hand: None,
    };
    let after = vec![SeatStack { chips: 20_000, ..s0 }, SeatStack { chips: 12_000, ..s2 }, SeatStack { chips: 8_000, ..s3 }];
    world.report(t, "h1-end", Report::HandFinished { hand: 1, stacks: after.clone(), busts: vec![bust] }).await;
    world.report(t, "h2-start", Report::HandStarted { hand: 2, button: s2.seat, stacks: after.clone(), deal_hand: None }).await;

    // The clock started with the sit & go (a suspension before that would find no clock to pause:
    // `docs/abort.md`).
    clock.next_where(|e| matches!(e, ClockEvent::StepStarted { .. })).await;

    // Resume with nothing suspended: refused, nothing stored.
    let resume_first = world.request_once_read(subjects::service::ABORT, "resume", &request, codes::TOURNAMENT_NOT_STARTED).await;
    assert_eq!(refusal_code(&resume_first), codes::NOT_SUSPENDED);

    // Suspend, suspend again (refused), resume.
    let suspended = recorded::<AbortEvent>(abort_request(&world, "suspend", &suspend("power cut in the card room")).await);
    assert!(matches!(suspended.as_slice(), [AbortEvent::Suspended { .. }]), "{suspended:?}");
    // The clock pauses (the abort policy's order).
    let (paused, _) = clock.next_where(|e| matches!(e, ClockEvent::Paused { .. })).await;
    assert!(matches!(&paused, ClockEvent::Paused { reason, .. } if reason == "suspended: power cut in the card room"), "{paused:?}");
    // The table is told to stop after its hand in progress (seating's reaction), with why.
    let pause = floor_events::table::Instruction::Pause { reason: "tournament suspended: power cut in the card room".into() };
    world.instructions_when(t, |i| i.iter().any(|i| i.instruction == pause)).await;
    let before = world.last_sequence().await;
    let twice = abort_request(&world, "suspend", &suspend("again")).await;
    assert_eq!(refusal_code(&twice), codes::ALREADY_SUSPENDED);
    assert_eq!(world.last_sequence().await, before, "a refused suspend stores nothing");

    // The platform dies while suspended and comes back: the suspension holds, resume works.
    world.kill_platform();
    world.restart_platform().await;
    let twice = abort_request(&world, "suspend", &suspend("again")).await;
    assert_eq!(refusal_code(&twice), codes::ALREADY_SUSPENDED, "still suspended after the restart");
    let resumed = recorded::<AbortEvent>(
        abort_request(&world, "resume", &abort::AbortRequest { command_id: CommandId::new(), tournament_id: t }).await,
    );
    assert!(matches!(resumed.as_slice(), [AbortEvent::Resumed { .. }]), "{resumed:?}");
    clock.next_where(|e| matches!(e, ClockEvent::Resumed { .. })).await;
    // And deals again: the pause, once, then `resume`, across the restart.
    let told = world
        .instructions_when(t, |i| {
            i.iter().skip_while(|i| i.instruction != pause).any(|i| i.instruction == floor_events::table::Instruction::Resume)
        })
        .await;
    assert_eq!(told.iter().filter(|i| i.instruction == pause).count(), 1, "paused once, restart or not");

    // Cancel under tda-2024's default, roll-forward. Three still in, one place paid (four
    // entries): before the money. Pool 4 × 1,000 = 4,000, none of it paid yet.
    //   fees back: 100 to each of the three;
    //   equal half 2,000 / 3 = 666 r 2: the two lowest entry numbers get 667;
    //   chip half 2,000 × chips / 40,000: 20,000 → 1,000, 12,000 → 600, 8,000 → 400 (the chips
    //   at the start of hand 2, not after its bets).
    // Statements 300 + 2,000 + 2,000 = 4,300; the operator keeps the out entry's 100 fee:
    // paid in 4,400 = fees kept 100 + statements 4,300.
    let cancel = abort::Cancel {
        command_id: CommandId::new(),
        tournament_id: t,
        reason: "the venue closes".into(),
        method: Default::default(),
        cause: Some(abort::CancelCause::ForceMajeure),
    };
    let cancelled = recorded::<AbortEvent>(cancel_when_ready(&world, &cancel).await);
    let [AbortEvent::Cancelled { cancellation, snapshot, cause, .. }] = cancelled.as_slice() else { panic!("{cancelled:?}") };
    assert_eq!(*cause, Some(abort::CancelCause::ForceMajeure), "the cause is recorded");
    assert_eq!(cancellation.paid_places, 1, "{cancellation:?}");
    assert_eq!((cancellation.remaining, cancellation.chips_in_play, cancellation.pool), (3, 40_000, 4_000));
    let chip_share = |entry| {
        cancellation.statements.iter().flat_map(|s| &s.lines).find(|l| l.entry == entry && l.kind == LineKind::ChipShare).map(|l| l.amount)
    };
    assert_eq!((chip_share(s0.entry), chip_share(s2.entry), chip_share(s3.entry)), (Some(1_000), Some(600), Some(400)));
    let totals: u64 = cancellation.statements.iter().map(|s| s.total).sum();
    let lines: u64 = cancellation.statements.iter().flat_map(|s| &s.lines).map(|l| l.amount).sum();
    assert_eq!((totals, lines), (4_300, 4_300), "statements sum to the money distributed");
    let books = cancellation.books;
    assert_eq!(
        books,
        Books {
            paid_in: 4_400,
            fees: 400,
            contributions: 4_000,
            fees_kept: 100,
            refunds: 300,
            distributed: 4_000,
            statements: 4_300,
            ..Books::default()
        }
    );
    assert!(books.balanced());
    assert_eq!(snapshot.entries.len(), 4, "the out entry is in the snapshot, with its place");
    assert_eq!(cancellation.statements.len(), 3, "the out entry, owed nothing, has no statement");

    // The clock stops with the cancellation, and the table is closed (seating's reaction).
    clock.next_where(|e| matches!(e, ClockEvent::Stopped { .. })).await;
    let closed = world.instructions_when(t, |i| i.iter().any(|i| i.instruction == floor_events::table::Instruction::CloseTable)).await;
    assert_eq!(closed.iter().filter(|i| i.instruction == floor_events::table::Instruction::CloseTable).count(), 1);

    // Cancel again, resume after the cancel: refused, nothing stored.
    let before = world.last_sequence().await;
    let again = abort::Cancel { command_id: CommandId::new(), ..cancel.clone() };
    assert_eq!(refusal_code(&abort_request(&world, "cancel", &again).await), codes::TOURNAMENT_CANCELLED);
    let late = abort::AbortRequest { command_id: CommandId::new(), tournament_id: t };
    assert_eq!(refusal_code(&abort_request(&world, "resume", &late).await), codes::TOURNAMENT_CANCELLED);
    assert_eq!(world.last_sequence().await, before, "refusals store nothing");
    // The same cancel sent again is answered from the history, with the same statements.
    assert_eq!(recorded::<AbortEvent>(abort_request(&world, "cancel", &cancel).await), cancelled);

    // One player's statement, from the abort service's view.
    let ann_or_whoever = &cancellation.statements[0];
    let asked = abort::StatementRequest { tournament_id: t, player: Some(ann_or_whoever.player.clone()), after: None, limit: None };
    // Asked again while the service has not read its own cancellation yet (`not_cancelled`).
    let statement = match world.request_once_read(subjects::service::ABORT, "statement", &asked, codes::NOT_CANCELLED).await {
        Reply::Ok(v) => serde_json::from_value::<Statements>(v).expect("statements"),
        other => panic!("{other:?}"),
    };
    assert_eq!(statement.statements, vec![ann_or_whoever.clone()]);
    assert_eq!(statement.books, books);

    // Players see the cancellation in the lobby: the tournament is cancelled, with its statements.
    let shown = world.lobby_when(t, |doc| doc["play"]["cancelled"].is_object()).await;
    assert_eq!(shown["play"]["cancelled"]["cause"], "force_majeure");
    assert_eq!(shown["state"], "cancelled");
    assert_eq!(
        (&shown["play"]["cancelled"]["statements"], &shown["play"]["cancelled"]["total"]["amount"]),
        (&Value::from(3), &Value::from(4_300))
    );

    // And each player reads their own statement over HTTP, as JSON and as a page.
    let http = world.platform().http().expect("the lobby serves HTTP");
    let player = ann_or_whoever.player.as_str();
    let (status, body) = http_get(http, &format!("/api/tournaments/{}/statement?player={player}", t.0)).await;
    assert_eq!(status, 200, "{body}");
    let shown: Statements = serde_json::from_str(&body).expect("the abort service's reply");
    assert_eq!((shown.statements, shown.books), (vec![ann_or_whoever.clone()], books));
    let (status, page) = http_get(http, &format!("/tournaments/{}/statement?player={player}", t.0)).await;
    assert_eq!(status, 200, "{page}");
    assert!(page.contains("id=\"statement-lines\"") && page.contains(&format!("Statement of {player}")), "{page}");
    // A name the cancellation owed nothing: no statement; no name: refused; the page links the form.
    let (status, body) = http_get(http, &format!("/api/tournaments/{}/statement?player=nobody", t.0)).await;
    assert_eq!((status, serde_json::from_str::<Statements>(&body).expect("statements").statements), (200, vec![]));
    let (status, body) = http_get(http, &format!("/api/tournaments/{}/statement", t.0)).await;
    assert_eq!(status, 400, "{body}");
    assert!(body.contains(codes::INVALID_FIELD), "{body}");
    let (_, tournament_page) = http_get(http, &format!("/tournaments/{}", t.0)).await;
    assert!(tournament_page.contains(&format!("action=\"/tournaments/{}/statement\"", t.0)), "the cancelled section asks for a name");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn registration_holds_while_play_is_suspended_and_reopens_on_resume() {
    let world = World::start_configured(|c| c.skip("scheduler")).await;
    let late = chrono::Utc::now() + chrono::Duration::days(2);
    let t = world.create(TournamentDefinition { late_registration_until: Some(late), ..freezeout(1_000) }).await;
    for player in ["ana", "ben"] {
        assert!(matches!(world.register(t, player).await, Reply::Ok(_)));
    }
    let start = floor_events::registration::StartTournament { command_id: CommandId::new(), tournament_id: t, now: true };
    let started = world.send(floor_events::registration::verbs::START_TOURNAMENT.name(), &start).await;
    assert!(matches!(started, Reply::Ok(_)), "{started:?}");
    assert!(matches!(world.register(t, "cat").await, Reply::Ok(_)), "late registration is open");

    let suspend = abort::Suspend { command_id: CommandId::new(), tournament_id: t, reason: "the room's network is down".into() };
    let suspended = recorded::<AbortEvent>(abort_request(&world, "suspend", &suspend).await);
    assert!(matches!(suspended.as_slice(), [AbortEvent::Suspended { .. }]), "{suspended:?}");
    // Registration learns of the suspension from the log, within moments of its commit (a
    // registration decided before it has read it stands): ask until it holds.
    let mut refused = None;
    for i in 0..1_000 {
        match world.register(t, format!("latecomer-{i}")).await {
            Reply::Ok(_) => {}
            Reply::Error(e) => {
                refused = Some((i, e.code));
                break;
            }
        }
    }
    let (i, code) = refused.expect("registration holds once it has read the suspension");
    assert_eq!(code, codes::TOURNAMENT_SUSPENDED);
    // Players see it in the lobby, with the director's words.
    let shown = world.lobby_when(t, |doc| doc["play"]["suspended"].is_object()).await;
    assert_eq!(shown["play"]["suspended"]["reason"], "the room's network is down");
    let before = world.commits(t).await.len();
    let held = CommandId::new();
    let reply = world.register_as(held, t, "dan").await;
    assert_eq!(refusal_code(&reply), codes::TOURNAMENT_SUSPENDED, "still held");
    assert_eq!(world.commits(t).await.len(), before, "a held registration stores nothing");

    let resume = abort::AbortRequest { command_id: CommandId::new(), tournament_id: t };
    let resumed = recorded::<AbortEvent>(abort_request(&world, "resume", &resume).await);
    assert!(matches!(resumed.as_slice(), [AbortEvent::Resumed { .. }]), "{resumed:?}");
    world.lobby_when(t, |doc| doc.get("play").is_none()).await;
    // Suspended and resumed is not cancelled: there are no statements to show.
    let http = world.platform().http().expect("the lobby serves HTTP");
    let (status, body) = http_get(http, &format!("/api/tournaments/{}/statement?player=ana", t.0)).await;
    assert_eq!(status, 409, "{body}");
    assert!(body.contains(codes::NOT_CANCELLED), "{body}");
    // Asked again with the same id once registration has read the resume: the entry is sold.
    let mut answer = None;
    for _ in 0..1_000 {
        match world.register_as(held, t, "dan").await {
            Reply::Error(e) if e.code == codes::TOURNAMENT_SUSPENDED => {}
            other => {
                answer = Some(other);
                break;
            }
        }
    }
    assert!(matches!(answer, Some(Reply::Ok(_))), "dan registers after the resume: {answer:?} (after {i} latecomers)");
}

/// Issue 22: `floor sim --cancel-at` under every rule profile. A 60-player freezeout at tables
/// of nine is cancelled between two rounds, twice per profile: at 30 players left (several
/// tables, far from the money) and at 5 (one table, in the money). Each time the abort service
/// states the cancellation: statements for the players concerned, summing to what its books
/// say, and books that balance to the minor unit (money in = fees kept + prizes already paid +
/// statements); the tables are closed and the sim ends without a winner.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn floor_sim_cancelled_midway_under_every_profile_states_balanced_statements() {
    use floor::sim::{self, SimConfig};
    use floor_events::RuleProfile;
    let world = World::start_configured(|c| c.skip("scheduler")).await;
    for (i, profile) in RuleProfile::ALL.into_iter().enumerate() {
        for (j, at) in [30u32, 5].into_iter().enumerate() {
            let t = TournamentId(uuid::Uuid::from_u128(0x000c_ace1_0000 + (i * 2 + j) as u128));
            let config = SimConfig { profile, cancel_at: Some(at), ..SimConfig::new(60, 11 + i as u64, t) };
            let summary = sim::run(&world.backbone, &config, |_| {}).await.unwrap_or_else(|e| panic!("{profile:?} at {at}: {e}"));
            let cancelled = summary.cancelled.as_ref().unwrap_or_else(|| panic!("{profile:?} at {at}: not cancelled: {summary:?}"));
            eprintln!(
                "{profile:?}: cancelled with {} left, {} statements, {} distributed, {} refunded, fees kept {}",
                cancelled.players_left,
                cancelled.statements,
                cancelled.books.distributed,
                cancelled.books.refunds,
                cancelled.books.fees_kept
            );
            assert!(summary.winner.is_empty(), "no winner");
            assert!(cancelled.players_left <= at && cancelled.players_left > 0);
            assert!(cancelled.balanced, "{profile:?} at {at}: {cancelled:?}");
            assert!(cancelled.statements >= cancelled.players_left as usize, "everyone still in has a statement: {cancelled:?}");
            assert_eq!(
                (summary.books.entries, cancelled.books.paid_in),
                (60, summary.books.paid_in),
                "every entry's money is in the books"
            );
            let subject = subjects::event_subject(subjects::aggregate::ABORT, t.0);
            let log = floor_runtime::JetStreamStore::new(&world.backbone).load::<AbortEvent>(&subject, 0).await.expect("abort log");
            assert!(log.iter().flat_map(|c| &c.events).any(|e| matches!(e, AbortEvent::Cancelled { .. })), "{profile:?}: stored");
        }
    }
}

/// The abort log of `t`, followed from now on.
async fn follow_abort(world: &World, t: TournamentId) -> floor_runtime::follow::Following {
    let subject = subjects::event_subject(subjects::aggregate::ABORT, t.0);
    floor_runtime::follow::follow(&world.backbone, vec![subject], |_| {}).await.expect("follow the abort log")
}

/// Moves the platform's clock on by `step` until the abort log stores an event `wanted` takes
/// (the watchdog looks every 5 s of the platform's clock), at most `steps` times.
async fn advance_until(
    manual: &floor_runtime::ManualClock,
    log: &mut floor_runtime::follow::Following,
    step: chrono::Duration,
    steps: u32,
    wanted: impl Fn(&AbortEvent) -> bool,
) -> AbortEvent {
    for _ in 0..steps {
        manual.advance(step);
        // The watchdog's answer to this step, if it has one, comes at once; the next step waits.
        while let Ok(Some(message)) = tokio::time::timeout(std::time::Duration::from_millis(100), log.next()).await {
            let events: Vec<AbortEvent> = floor_events::record::decode_commit(&message.expect("readable").payload).expect("abort");
            if let Some(e) = events.into_iter().find(|e| wanted(e)) {
                return e;
            }
        }
    }
    panic!("no such abort event after {steps} steps of {step}");
}

/// A four-handed sit & go under `profile`, on a platform whose clock the test moves, with hand 1
/// started at its table and the clock running; with the time just before the table's report.
async fn four_dealing(
    profile: floor_events::RuleProfile,
) -> (World, floor_runtime::ManualClock, TournamentId, chrono::DateTime<chrono::Utc>) {
    let manual = floor_runtime::ManualClock::new(chrono::Utc::now());
    let world = World::start_configured(|c| c.clock = std::sync::Arc::new(manual.clone())).await;
    let t: TournamentId = world.create(TournamentDefinition { profile, ..four_handed() }).await;
    let mut clock = world.watch_clock(t).await;
    for p in ["ann", "bob", "cat", "dan"] {
        // svenska-spel-2012 (002 §2.3): limits before any tournament.
        if profile == floor_events::RuleProfile::SvenskaSpel2012 {
            let limits = floor_events::player::EntryLimits { per_day: Some(5), per_week: Some(10), per_month: Some(20) };
            let set = floor_events::player::SetPlayerLimits {
                command_id: CommandId::new(),
                player: floor_events::PlayerId::parse(p).expect("a name"),
                limits,
            };
            assert!(matches!(world.send("set_player_limits", &set).await, Reply::Ok(_)), "{p} sets limits");
        }
        assert!(matches!(world.register(t, p).await, Reply::Ok(_)), "{p} registers");
    }
    let seats = world.seated(t, 4).await;
    let reported = chrono::Utc::now();
    world.report(t, "h1-start", Report::HandStarted { hand: 1, button: seats[0].seat, stacks: seats.clone(), deal_hand: None }).await;
    clock.next_where(|e| matches!(e, ClockEvent::StepStarted { .. })).await;
    (world, manual, t, reported)
}

/// Issue 22 (SCOOP 2017): when a quarter of the tables send nothing for the profile's time
/// (tda-2024: 5 minutes), Floor suspends the tournament by itself instead of letting players
/// blind out: the table is told to pause, and the lobby says why. Not before the time.
#[tokio::test]
async fn floor_suspends_a_tournament_whose_tables_fell_silent_and_says_why() {
    let (world, manual, t, reported) = four_dealing(floor_events::RuleProfile::Tda2024).await;
    let mut log = follow_abort(&world, t).await;
    let suspended =
        advance_until(&manual, &mut log, chrono::Duration::seconds(20), 40, |e| matches!(e, AbortEvent::Suspended { .. })).await;
    let AbortEvent::Suspended { reason, at } = &suspended else { unreachable!() };
    assert_eq!(reason, &abort::SuspendReason::TablesSilent { silent: 1, tables: 1, seconds: 300 });
    assert!(*at - reported >= chrono::Duration::seconds(300), "not before five minutes of silence: {at} against {reported}");
    let doc = world.lobby_when(t, |d| d["play"]["suspended"].is_object()).await;
    assert_eq!(doc["play"]["suspended"]["reason"], "1 of 1 tables sent nothing for 300 seconds");
    let pause = floor_events::table::Instruction::Pause { reason: "tournament suspended: 1 of 1 tables sent nothing for 300 s".into() };
    world.instructions_when(t, |i| i.iter().any(|i| i.instruction == pause)).await;
    // The director resumes: the silence counts again from the resume.
    let resume = abort::AbortRequest { command_id: CommandId::new(), tournament_id: t };
    let resumed = recorded::<AbortEvent>(abort_request(&world, "resume", &resume).await);
    assert!(matches!(resumed.as_slice(), [AbortEvent::Resumed { .. }]), "{resumed:?}");
}

/// Issue 22: 002 §2.8 T-12.5: a suspended tournament is resumed as soon as possible, or else
/// cancelled; svenska-spel-2012's limit is one hour. Past it, Floor cancels under the
/// rulebook's own rule (T-12.1 for this single table), and the statements balance.
#[tokio::test]
async fn a_suspension_past_the_profile_s_limit_is_cancelled_under_its_rule() {
    let (world, manual, t, _) = four_dealing(floor_events::RuleProfile::SvenskaSpel2012).await;
    let mut log = follow_abort(&world, t).await;
    let suspend = abort::Suspend { command_id: CommandId::new(), tournament_id: t, reason: "the network is down".into() };
    let suspended =
        recorded::<AbortEvent>(world.request_once_read(subjects::service::ABORT, "suspend", &suspend, codes::TOURNAMENT_NOT_STARTED).await);
    assert!(matches!(suspended.as_slice(), [AbortEvent::Suspended { .. }]), "{suspended:?}");
    let cancelled = advance_until(&manual, &mut log, chrono::Duration::minutes(5), 20, |e| matches!(e, AbortEvent::Cancelled { .. })).await;
    let AbortEvent::Cancelled { reason, cancellation, at, .. } = &cancelled else { unreachable!() };
    let AbortEvent::Suspended { at: since, .. } = &suspended[0] else { unreachable!() };
    assert!(*at - *since >= chrono::Duration::hours(1), "not before the hour: {since} → {at}");
    assert_eq!(reason, "suspended longer than 60 minutes, the limit of svenska-spel-2012");
    // T-12.1, a single table: the fee back and the pool shared equally, 100 + 1,000 each.
    assert_eq!(cancellation.case, abort::statement::Case::SvenskaSpelSingleTable);
    assert_eq!(cancellation.statements.iter().map(|s| s.total).collect::<Vec<_>>(), [1_100; 4]);
    assert!(cancellation.books.balanced(), "{:?}", cancellation.books);
}

/// Issue 22: a bounty tournament cancelled midway. Knockout, progressive knockout and mystery
/// `floor sim` runs, cancelled at 30 of 60 left and at 5, under `tda-2024`'s roll-forward (each
/// entry still in gets the bounty on its head, the bounty money nobody holds is shared) and
/// `hrvatska-lutrija-2017`'s refund of everything (bounty parts included); the mystery stage
/// opens at 9 left, so envelopes were drawn before the cancel at 5. The bounties' ledger
/// is in the snapshot: the books count the bounty money paid in and the bounty cash already
/// paid, and balance to the minor unit.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_bounty_tournament_cancelled_midway_pays_its_bounty_pool_and_balances() {
    use floor::sim::{self, SimConfig};
    use floor_events::RuleProfile;
    let world = World::start_configured(|c| {
        c.skip("scheduler");
        c.seed_key = Some([7; 32]);
    })
    .await;
    let mut n = 0u128;
    for format in ["ko", "pko", "mystery"] {
        for (profile, at) in [(RuleProfile::Tda2024, 30u32), (RuleProfile::Tda2024, 5), (RuleProfile::HrvatskaLutrija2017, 30)] {
            n += 1;
            let t = TournamentId(uuid::Uuid::from_u128(0x00b0_ace1_0000 + n));
            let bounty = sim::bounty_terms(format);
            let config = SimConfig { profile, cancel_at: Some(at), bounty, ..SimConfig::new(60, 40 + n as u64, t) };
            let summary = sim::run(&world.backbone, &config, |_| {}).await.unwrap_or_else(|e| panic!("{format} {profile:?} at {at}: {e}"));
            let cancelled =
                summary.cancelled.as_ref().unwrap_or_else(|| panic!("{format} {profile:?} at {at}: not cancelled: {summary:?}"));
            let books = &cancelled.books;
            eprintln!(
                "{format} {profile:?} at {at}: {} left, bounty paid in {}, bounty cash paid {}, distributed {}, refunded {}",
                cancelled.players_left, books.bounty_paid_in, books.bounties_already_paid, books.distributed, books.refunds
            );
            assert!(cancelled.balanced, "{format} {profile:?} at {at}: {cancelled:?}");
            // The simulator counts the players on their way to a new seat too: the abort
            // service's snapshot has the same players in, each with a statement (Hrvatska
            // Lutrija refunds every entry, out ones too).
            if profile == RuleProfile::Tda2024 {
                assert_eq!(cancelled.statements as u32, cancelled.players_left, "{format} {profile:?} at {at}: {cancelled:?}");
            }
            assert!(books.bounty_paid_in > 0, "{format}: the bounty parts are in the books: {books:?}");
            assert_eq!(books.paid_in, summary.books.paid_in, "{format}: every entry's money is in the books");
            if at == 5 {
                assert!(books.bounties_already_paid > 0, "{format}: knockouts paid bounty cash before the cancel: {books:?}");
            }
        }
    }
}

/// Issue 22: a suspended `floor sim`, resumed after every service was killed and started again
/// while it was suspended, finishes as an uninterrupted run with the same seed: the same
/// winner, hands, moves, broken tables and books. Suspended between two rounds at 60 players
/// left; the simulator deals again only once every table was paused and then resumed.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_suspended_sim_resumed_after_a_restart_of_every_service_finishes_as_an_uninterrupted_one() {
    use floor::sim::{self, SimConfig};
    let t = TournamentId(uuid::Uuid::from_u128(0x5005_9e5d));
    let config = SimConfig::new(120, 5, t);
    let first = World::start_configured(|c| {
        c.skip("scheduler");
        c.seed_key = Some([42; 32]);
    })
    .await;
    let uninterrupted = sim::run(&first.backbone, &config, |_| {}).await.expect("the uninterrupted run");
    drop(first);

    let mut world = World::start_configured(|c| {
        c.skip("scheduler");
        c.seed_key = Some([42; 32]);
    })
    .await;
    let abort_log = subjects::event_subject(subjects::aggregate::ABORT, t.0);
    let mut suspensions = floor_runtime::follow::follow(&world.backbone, vec![abort_log], |_| {}).await.expect("follow the abort log");
    let backbone = world.backbone.clone();
    let suspended = SimConfig { suspend_at: Some(60), ..config.clone() };
    let run = tokio::spawn(async move { sim::run(&backbone, &suspended, |_| {}).await });
    let stored = tokio::time::timeout(floor_tests::DEADLINE * 4, suspensions.next()).await.expect("suspended in time");
    let events: Vec<AbortEvent> =
        floor_events::record::decode_commit(&stored.expect("a commit").expect("readable").payload).expect("abort events");
    assert!(matches!(&events[..], [AbortEvent::Suspended { .. }]), "{events:?}");

    world.kill_platform();
    world.restart_platform().await;
    let resumed = abort_request(&world, "resume", &abort::AbortRequest { command_id: CommandId::new(), tournament_id: t }).await;
    assert!(matches!(resumed, Reply::Ok(_)), "{resumed:?}");
    let interrupted = run.await.expect("sim task").expect("the suspended run finishes once resumed");
    assert_eq!(
        (&interrupted.winner, interrupted.hands, interrupted.moves, interrupted.tables_broken, &interrupted.books),
        (&uninterrupted.winner, uninterrupted.hands, uninterrupted.moves, uninterrupted.tables_broken, &uninterrupted.books),
        "the same seed, the same tournament, suspended and restarted or not"
    );
}

/// Issue 22: a cancellation of more entries than one message holds (1,500 players, cancelled
/// at 1,300 left: about 900 KB of statements). The abort service keeps the whole event in the
/// object store and the log's `cancelled` names it (with its SHA-256); the `statement` verb
/// reads it back: every player still in has a statement, they sum to the books, which
/// balance, and one player's statement is found by name.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_cancellation_too_large_for_one_message_is_kept_whole_and_its_statements_served() {
    use floor::sim::{self, SimConfig};
    let world = World::start_configured(|c| c.skip("scheduler")).await;
    let t = TournamentId(uuid::Uuid::from_u128(0x000b_16ca_5ce1));
    let config = SimConfig { cancel_at: Some(1_300), ..SimConfig::new(1_500, 3, t) };
    let summary = sim::run(&world.backbone, &config, |_| {}).await.expect("the sim, cancelled");
    let cancelled = summary.cancelled.expect("cancelled");
    assert!(cancelled.balanced, "{cancelled:?}");
    assert!(cancelled.players_left > 1_000 && cancelled.statements >= cancelled.players_left as usize, "{cancelled:?}");

    let subject = subjects::event_subject(subjects::aggregate::ABORT, t.0);
    let log = floor_runtime::JetStreamStore::new(&world.backbone).load::<AbortEvent>(&subject, 0).await.expect("abort log");
    let stored = log.iter().flat_map(|c| &c.events).find_map(|e| match e {
        AbortEvent::Cancelled { stored, snapshot, cancellation, .. } => {
            Some((stored.clone(), snapshot.entries.len(), cancellation.statements.len()))
        }
        _ => None,
    });
    let found = stored.expect("a cancelled event");
    let (Some(stored), 0, 0) = found.clone() else { panic!("not kept whole elsewhere: {found:?}") };
    assert_eq!(stored.statements as usize, cancelled.statements);
    assert_eq!(stored.encoding, floor_events::abort::StoredEncoding::JsonLz4);
    let object = world.backbone.jetstream.get_object_store(subjects::CANCELLATIONS_BUCKET).await.expect("the bucket");
    let info = object.info(&stored.object).await.expect("the object the log names");
    assert_eq!(info.size as u64, stored.bytes);

    // Without a player, a page at a time (the summary above read them all, 2 pages of 1,000 at
    // most): a limit of 0 is taken as 1, and `next` says where the next page starts.
    let first =
        abort_request(&world, "statement", &abort::StatementRequest { tournament_id: t, player: None, after: None, limit: Some(0) }).await;
    let Reply::Ok(first) = first else { panic!("{first:?}") };
    let first: Statements = serde_json::from_value(first).expect("statements");
    assert_eq!((first.statements.len(), first.players as usize), (1, cancelled.statements));
    assert_eq!(first.next.as_ref(), Some(&first.statements[0].player));

    // One player's statement found by name: the first page's player (who has a statement
    // depends on the draw, which is random on this platform).
    let named = first.statements[0].player.clone();
    let one = abort_request(
        &world,
        "statement",
        &abort::StatementRequest { tournament_id: t, player: Some(named.clone()), after: None, limit: None },
    )
    .await;
    let Reply::Ok(one) = one else { panic!("{one:?}") };
    let one: Statements = serde_json::from_value(one).expect("statements");
    assert_eq!(one.statements.iter().map(|s| &s.player).collect::<Vec<_>>(), vec![&named]);
}
