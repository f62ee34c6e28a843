//! The simulator stopping its own tournament between two lockstep rounds: `--suspend-at`
//! (suspended until a director resumes it, the rounds those of a run never suspended) and
//! `--cancel-at` (cancelled, every statement read back).

use super::{ask, command, CancelledSummary, STALL};
use floor_events::table::Instruction;
use floor_events::{codes, subjects, CommandId, TournamentId};
use floor_runtime::bootstrap::Backbone;
use floor_seating::simulated::SimTable;
use std::collections::BTreeMap;
use std::time::{Duration, Instant};

/// The simulator's own suspension (`--suspend-at`), asked between two rounds. Until every open
/// table has a `pause` and, after it, a `resume` waiting in its inbox, nothing is applied and
/// nothing dealt: Floor's answers to the reports sent before the suspension wait too, and are
/// applied after the round the suspension stopped, as in a run never suspended (applied during
/// the suspension, a move would have been a round early and the seed another tournament).
#[derive(Default)]
pub(super) struct Suspension {
    /// The simulator asked for it.
    pub(super) asked: bool,
    /// Every table was told to pause and then to resume.
    pub(super) over: bool,
}

impl Suspension {
    /// Asked and not over: nothing is applied or dealt.
    pub(super) fn holds(&self) -> bool {
        self.asked && !self.over
    }

    /// Every open table has been told to pause (held in its inbox).
    pub(super) fn paused_in_inboxes(&self, tables: &BTreeMap<u32, SimTable>) -> bool {
        self.asked && tables.values().filter(|t| !t.closed).all(|t| Self::told(t).0.is_some())
    }

    /// Asked, not over, and every open table has been told to pause and then to resume.
    pub(super) fn resumed_in_inboxes(&self, tables: &BTreeMap<u32, SimTable>) -> bool {
        let resumed = |t: &SimTable| matches!(Self::told(t), (Some(pause), Some(resume)) if resume > pause);
        self.holds() && tables.values().filter(|t| !t.closed).all(resumed)
    }

    /// Where the first `pause` and the last `resume` wait in `table`'s inbox.
    fn told(table: &SimTable) -> (Option<usize>, Option<usize>) {
        let pause = table.inbox.iter().position(|i| matches!(i.instruction, Instruction::Pause { .. }));
        let resume = table.inbox.iter().rposition(|i| i.instruction == Instruction::Resume);
        (pause, resume)
    }
}

/// Suspends `t` for the simulator (`--suspend-at`).
pub(super) async fn suspend(backbone: &Backbone, t: TournamentId) -> Result<(), String> {
    use floor_events::abort::{verbs as abort, Suspend};
    let suspend =
        Suspend { command_id: CommandId::derived(&format!("sim-suspend:{t}")), tournament_id: t, reason: "floor sim --suspend-at".into() };
    command(backbone, subjects::service::ABORT, abort::SUSPEND.name(), &suspend).await.map(drop)
}

/// Cancels `t` (the profile's own formula), asked again while the abort service has not read
/// the latest places yet (`snapshot_unavailable`: it never guesses), for at most [`STALL`].
/// Returns how long the accepted request took, from sent to answered.
pub(super) async fn cancel(backbone: &Backbone, t: TournamentId) -> Result<Duration, String> {
    use floor_events::abort::{statement::Method, verbs as abort, Cancel};
    let cancel = Cancel {
        command_id: CommandId::derived(&format!("sim-cancel:{t}")),
        tournament_id: t,
        reason: "floor sim --cancel-at".into(),
        method: Method::default(),
        // The simulated platform is the operator's own.
        cause: Some(floor_events::abort::CancelCause::OperatorFault),
    };
    let asked = Instant::now();
    loop {
        let sent = Instant::now();
        match ask(backbone, subjects::service::ABORT, abort::CANCEL.name(), &cancel).await? {
            Ok(_) => return Ok(sent.elapsed()),
            Err(e) if e.code == codes::SNAPSHOT_UNAVAILABLE && asked.elapsed() < STALL => {
                tokio::time::sleep(Duration::from_millis(50)).await;
            }
            Err(e) => return Err(format!("{}: {}: {}", abort::CANCEL.name(), e.code, e.message)),
        }
    }
}

/// The cancellation of `t` as the abort service states it: every statement, summed.
pub(super) async fn cancellation(
    backbone: &Backbone,
    t: TournamentId,
    players_left: u32,
    took: Duration,
) -> Result<CancelledSummary, String> {
    use floor_events::abort::verbs as abort;
    let all = crate::director::every_statement(t, None, |request| async move {
        let reply = command(backbone, subjects::service::ABORT, abort::STATEMENT.name(), &request).await?;
        serde_json::from_value(reply).map_err(|e| format!("statements: {e}"))
    })
    .await?;
    Ok(CancelledSummary::read(players_left, took, &all))
}
