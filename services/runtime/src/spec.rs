//! Given / when / then for deciders: the shape every domain test takes.
//!
//! ```ignore
//! given::<TournamentAggregate>(vec![created])
//!     .when(TournamentCommand::Register { .. })
//!     .then(vec![entry_registered]);
//! given::<TournamentAggregate>(vec![]).when(register).then_reject(codes::UNKNOWN_TOURNAMENT);
//! ```
//!
//! Rejections are compared by their stable code, never by message text.

use crate::host::DomainError;
use esrs::Aggregate;
use std::fmt::Debug;

/// A decider with some history.
pub struct Given<A: Aggregate> {
    state: A::State,
}

/// A decider with some history and a command to decide.
pub struct When<A: Aggregate> {
    state: A::State,
    command: A::Command,
}

/// Starts a specification from the events already stored.
pub fn given<A: Aggregate>(events: Vec<A::Event>) -> Given<A> {
    Given { state: events.into_iter().fold(A::State::default(), A::apply_event) }
}

impl<A: Aggregate> Given<A> {
    /// The command under test.
    pub fn when(self, command: A::Command) -> When<A> {
        When { state: self.state, command }
    }

    /// The state the history folds to, for assertions on it.
    pub fn state(&self) -> &A::State {
        &self.state
    }
}

impl<A> When<A>
where
    A: Aggregate,
    A::Event: PartialEq + Debug,
    A::Error: DomainError,
{
    /// Asserts the command is accepted with exactly these events.
    #[track_caller]
    pub fn then(self, expected: Vec<A::Event>) {
        match A::handle_command(&self.state, self.command) {
            Ok(events) => assert_eq!(events, expected),
            Err(e) => panic!("expected events, the decider rejected with {}: {e}", e.code()),
        }
    }

    /// Asserts the command is accepted and returns its events, for checks on parts of them.
    #[track_caller]
    pub fn accepted(self) -> Vec<A::Event> {
        A::handle_command(&self.state, self.command).unwrap_or_else(|e| panic!("rejected with {}: {e}", e.code()))
    }

    /// Asserts the command is rejected with this stable code.
    #[track_caller]
    pub fn then_reject(self, code: &str) {
        match A::handle_command(&self.state, self.command) {
            Ok(events) => panic!("expected rejection {code}, got events {events:?}"),
            Err(e) => assert_eq!(e.code(), code, "rejected for another reason: {e}"),
        }
    }
}
