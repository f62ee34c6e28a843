//! The lobby's and the director's view of the abort aggregate: running, suspended (why, since
//! when) or cancelled, and, once cancelled, every player's statement. A pure fold; the service
//! will store it when wired (`floor tournament statement <id> [player]`, the lobby, HTTP).

use crate::domain::{AbortEvent, SuspendReason};
use crate::statement::{Books, Statement};
use chrono::{DateTime, Utc};
use floor_events::PlayerId;

/// What the lobby shows.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct AbortView {
    /// Suspended now: why and since when.
    pub suspended: Option<(SuspendReason, DateTime<Utc>)>,
    /// Suspensions so far.
    pub suspensions: u32,
    /// Cancelled: why and when.
    pub cancelled: Option<(String, DateTime<Utc>)>,
    /// The cancellation's books.
    pub books: Option<Books>,
    /// The statements, by player name.
    pub statements: Vec<Statement>,
}

impl AbortView {
    /// The view after one more event.
    pub fn evolve(mut self, event: &AbortEvent) -> Self {
        match event {
            AbortEvent::Suspended { reason, at } => {
                self.suspended = Some((reason.clone(), *at));
                self.suspensions += 1;
            }
            AbortEvent::Resumed { .. } => self.suspended = None,
            AbortEvent::Cancelled { reason, cancellation, at, .. } => {
                self.suspended = None;
                self.cancelled = Some((reason.clone(), *at));
                self.books = Some(cancellation.books);
                self.statements = cancellation.statements.clone();
            }
        }
        self
    }

    /// One player's statement.
    pub fn statement(&self, player: &PlayerId) -> Option<&Statement> {
        self.statements.binary_search_by(|s| s.player.cmp(player)).ok().map(|i| &self.statements[i])
    }
}
