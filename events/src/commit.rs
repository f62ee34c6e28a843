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
use crate::payouts::PayoutEvent;
use crate::player::PlayerEvent;
use crate::rebuys::RebuyEvent;
use crate::record::{decode_commit, RecordError};
use crate::registration::TournamentEvent;
use crate::schedule::ScheduleEvent;
use crate::seating::SeatingEvent;
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
        let unknown = Commit::decode(&format!("floor.ev.lottery.{id}"), &body);
        assert!(matches!(unknown, Err(CommitError::UnknownAggregate(a)) if a == "lottery"));
    }
}
