//! A stored commit decoded once into its aggregate's event type: the subject says which
//! aggregate, the body holds its events.
//!
//! Every reader used to repeat "parse the subject, match the aggregate, decode the commit into
//! that aggregate's type, warn if it fails". [`Commit::decode`] does it once; a reader matches on
//! [`Events`] and takes what it reads.

use crate::abort::AbortEvent;
use crate::bounties::BountyEvent;
use crate::bubble::BubbleEvent;
use crate::clock::ClockEvent;
use crate::lottery::LotteryEvent;
use crate::payouts::PayoutEvent;
use crate::player::PlayerEvent;
use crate::rebuys::RebuyEvent;
use crate::record::{decode_commit, RecordError};
use crate::registration::TournamentEvent;
use crate::satellites::SatelliteEvent;
use crate::schedule::ScheduleEvent;
use crate::seating::SeatingEvent;
use crate::shootouts::ShootoutEvent;
use crate::{subjects, TournamentId};
use uuid::Uuid;

/// One commit's events, typed by their aggregate.
#[derive(Debug, Clone, PartialEq)]
pub enum Events {
    /// `floor.ev.tournament.<id>`.
    Tournament(Vec<TournamentEvent>),
    /// `floor.ev.player.<id>`.
    Player(Vec<PlayerEvent>),
    /// `floor.ev.clock.<tournament>`.
    Clock(Vec<ClockEvent>),
    /// `floor.ev.schedule.<template>`.
    Schedule(Vec<ScheduleEvent>),
    /// `floor.ev.seating.<tournament>`.
    Seating(Vec<SeatingEvent>),
    /// `floor.ev.payouts.<tournament>`.
    Payouts(Vec<PayoutEvent>),
    /// `floor.ev.rebuys.<tournament>`.
    Rebuys(Vec<RebuyEvent>),
    /// `floor.ev.bounties.<tournament>`.
    Bounties(Vec<BountyEvent>),
    /// `floor.ev.bubble.<tournament>`.
    Bubble(Vec<BubbleEvent>),
    /// `floor.ev.abort.<tournament>`.
    Abort(Vec<AbortEvent>),
    /// `floor.ev.satellite.<satellite tournament>`.
    Satellite(Vec<SatelliteEvent>),
    /// `floor.ev.shootout.<tournament>`.
    Shootout(Vec<ShootoutEvent>),
    /// `floor.ev.lottery.<tournament>`.
    Lottery(Vec<LotteryEvent>),
}

impl Events {
    /// The aggregate whose events these are: the `<aggregate>` of the subject they were stored
    /// on. Exhaustive, so a new variant does not compile without its name; `events/src/registry.rs`'s
    /// tests fail when a variant's aggregate has no writer there, or an aggregate written there
    /// decodes to no variant (or to another's).
    pub fn aggregate(&self) -> &'static str {
        use subjects::aggregate as a;
        match self {
            Events::Tournament(_) => a::TOURNAMENT,
            Events::Player(_) => a::PLAYER,
            Events::Clock(_) => a::CLOCK,
            Events::Schedule(_) => a::SCHEDULE,
            Events::Seating(_) => a::SEATING,
            Events::Payouts(_) => a::PAYOUTS,
            Events::Rebuys(_) => a::REBUYS,
            Events::Bounties(_) => a::BOUNTIES,
            Events::Bubble(_) => a::BUBBLE,
            Events::Abort(_) => a::ABORT,
            Events::Satellite(_) => a::SATELLITE,
            Events::Shootout(_) => a::SHOOTOUT,
            Events::Lottery(_) => a::LOTTERY,
        }
    }

    /// How many events the commit holds.
    pub fn len(&self) -> usize {
        match self {
            Events::Tournament(e) => e.len(),
            Events::Player(e) => e.len(),
            Events::Clock(e) => e.len(),
            Events::Schedule(e) => e.len(),
            Events::Seating(e) => e.len(),
            Events::Payouts(e) => e.len(),
            Events::Rebuys(e) => e.len(),
            Events::Bounties(e) => e.len(),
            Events::Bubble(e) => e.len(),
            Events::Abort(e) => e.len(),
            Events::Satellite(e) => e.len(),
            Events::Shootout(e) => e.len(),
            Events::Lottery(e) => e.len(),
        }
    }

    /// Whether the commit holds no event.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

/// A decoded commit: the aggregate's id (from the subject) and its events.
#[derive(Debug, Clone, PartialEq)]
pub struct Commit {
    /// The aggregate's id: a tournament's for every per-tournament aggregate.
    pub id: Uuid,
    /// The events.
    pub events: Events,
}

/// Why a commit could not be decoded.
#[derive(Debug, thiserror::Error)]
pub enum CommitError {
    /// The subject is not `floor.ev.<aggregate>.<uuid>`.
    #[error("not an event subject: {0:?}")]
    Subject(String),
    /// No aggregate of that name.
    #[error("no aggregate {0:?}")]
    UnknownAggregate(String),
    /// The body is not a commit of that aggregate's events.
    #[error(transparent)]
    Record(#[from] RecordError),
}

impl Commit {
    /// Decodes the commit stored on `subject` with `body`.
    ///
    /// # Errors
    /// [`CommitError`]: a subject that is not an event subject, an unknown aggregate, or a body
    /// that does not decode (broken JSON, an unknown event, a newer schema version).
    pub fn decode(subject: &str, body: &[u8]) -> Result<Self, CommitError> {
        use subjects::aggregate as a;
        let (aggregate, id) = subjects::parse_event_subject(subject).ok_or_else(|| CommitError::Subject(subject.to_owned()))?;
        let events = match aggregate {
            a::TOURNAMENT => Events::Tournament(decode_commit(body)?),
            a::PLAYER => Events::Player(decode_commit(body)?),
            a::CLOCK => Events::Clock(decode_commit(body)?),
            a::SCHEDULE => Events::Schedule(decode_commit(body)?),
            a::SEATING => Events::Seating(decode_commit(body)?),
            a::PAYOUTS => Events::Payouts(decode_commit(body)?),
            a::REBUYS => Events::Rebuys(decode_commit(body)?),
            a::BOUNTIES => Events::Bounties(decode_commit(body)?),
            a::BUBBLE => Events::Bubble(decode_commit(body)?),
            a::ABORT => Events::Abort(decode_commit(body)?),
            a::SATELLITE => Events::Satellite(decode_commit(body)?),
            a::SHOOTOUT => Events::Shootout(decode_commit(body)?),
            a::LOTTERY => Events::Lottery(decode_commit(body)?),
            other => return Err(CommitError::UnknownAggregate(other.to_owned())),
        };
        Ok(Self { id, events })
    }

    /// The aggregate's id as a tournament's (every aggregate but player and schedule is one per
    /// tournament).
    pub fn tournament(&self) -> TournamentId {
        TournamentId(self.id)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::record::encode_commit;

    #[test]
    fn the_subject_picks_the_event_type() {
        let id = Uuid::now_v7();
        let joined = RebuyEvent::EntryJoined { entry: crate::EntryNo(1), player: crate::PlayerId::parse("ana").unwrap() };
        let body = encode_commit(std::slice::from_ref(&joined));
        let commit = Commit::decode(&subjects::event_subject(subjects::aggregate::REBUYS, id), &body).expect("decodes");
        assert_eq!(commit, Commit { id, events: Events::Rebuys(vec![joined]) });
        let as_clock = Commit::decode(&subjects::event_subject(subjects::aggregate::CLOCK, id), &body);
        assert!(matches!(as_clock, Err(CommitError::Record(_))), "a rebuys body is not a clock commit");
        assert!(matches!(Commit::decode("floor.ev.nonsense.x", &body), Err(CommitError::Subject(_))));
        let unknown = Commit::decode(&format!("floor.ev.raffle.{id}"), &body);
        assert!(matches!(unknown, Err(CommitError::UnknownAggregate(a)) if a == "raffle"));
    }

    /// Every variant, empty, in declaration order. Each arm names the one after it, so a new
    /// variant does not compile until it has an arm here, and is listed once the arm before it
    /// names it.
    fn every_variant() -> Vec<Events> {
        let mut all = Vec::new();
        let mut next = Some(Events::Tournament(vec![]));
        while let Some(events) = next {
            next = match &events {
                Events::Tournament(_) => Some(Events::Player(vec![])),
                Events::Player(_) => Some(Events::Clock(vec![])),
                Events::Clock(_) => Some(Events::Schedule(vec![])),
                Events::Schedule(_) => Some(Events::Seating(vec![])),
                Events::Seating(_) => Some(Events::Payouts(vec![])),
                Events::Payouts(_) => Some(Events::Rebuys(vec![])),
                Events::Rebuys(_) => Some(Events::Bounties(vec![])),
                Events::Bounties(_) => Some(Events::Bubble(vec![])),
                Events::Bubble(_) => Some(Events::Abort(vec![])),
                Events::Abort(_) => Some(Events::Satellite(vec![])),
                Events::Satellite(_) => Some(Events::Shootout(vec![])),
                Events::Shootout(_) => Some(Events::Lottery(vec![])),
                Events::Lottery(_) => None,
            };
            all.push(events);
        }
        all
    }

    /// Issue 35: `Commit::decode` keeps one arm per aggregate by hand; the registry says which
    /// aggregates exist. Every aggregate a registered service writes decodes, on its own subject,
    /// to the variant of that aggregate (an empty commit suffices: the arm is chosen by the
    /// subject), so a new aggregate in the registry without its arm fails here.
    #[test]
    fn every_aggregate_the_registry_writes_decodes_to_its_own_variant() {
        let empty = encode_commit::<TournamentEvent>(&[]);
        assert_eq!(empty, b"[]", "an empty commit is an empty array");
        let id = Uuid::now_v7();
        for service in crate::registry::services() {
            for written in &service.writes {
                let subject = subjects::event_subject(written.name, id);
                let commit = Commit::decode(&subject, &empty)
                    .unwrap_or_else(|e| panic!("{} writes {subject}, which Commit::decode refuses: {e}", service.name));
                assert_eq!(commit.id, id, "{subject}");
                assert_eq!(commit.events.aggregate(), written.name, "{subject} decodes to another aggregate's events");
                assert!(commit.events.is_empty(), "{subject}: an empty commit holds no event");
            }
        }
    }

    /// Issue 35: and every variant is an aggregate some registered service writes, once.
    #[test]
    fn every_variant_is_an_aggregate_the_registry_writes() {
        let written: Vec<&str> = crate::registry::services().iter().flat_map(|s| s.writes.iter().map(|a| a.name)).collect();
        let variants = every_variant();
        let names: std::collections::BTreeSet<&str> = variants.iter().map(Events::aggregate).collect();
        assert_eq!(names.len(), variants.len(), "two variants name the same aggregate: {variants:?}");
        for events in &variants {
            assert!(written.contains(&events.aggregate()), "{:?} is no aggregate any service in the registry writes", events.aggregate());
        }
        assert_eq!(variants.len(), written.len(), "one variant per aggregate written: {names:?} against {written:?}");
    }
}
