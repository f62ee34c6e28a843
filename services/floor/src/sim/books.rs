//! The end of a run as the simulator reads it: the payouts log (every place awarded, and
//! whether the tournament is paid), the bounties log, and the books the payouts service keeps.

use super::*;

/// Waits until the payouts log says the tournament is paid (and, with bounties, the bounties
/// log has the winner's bounty), then asks for its books; returns them with every place the log
/// awarded, first place first, and the bounties.
pub(super) async fn paid_books(
    backbone: &Backbone,
    t: TournamentId,
    bounty: bool,
) -> Result<(Books, Vec<PlaceAward>, Option<BountySummary>), String> {
    let payouts = subjects::event_subject(subjects::aggregate::PAYOUTS, t.0);
    let bounties = subjects::event_subject(subjects::aggregate::BOUNTIES, t.0);
    let mut end = Ending { payouts: payouts.clone(), paid: Paid::default(), bounties: BountySummary::default(), settled: !bounty };
    let mut following = floor_runtime::follow::follow(backbone, vec![payouts, bounties], |m| end.read(m.subject.as_str(), &m.payload))
        .await
        .map_err(|e| e.to_string())?;
    while !(end.paid.paid && end.settled) {
        let next = tokio::time::timeout(STALL, following.next()).await.map_err(|_| {
            format!("no payouts or bounties in {} s after the winner (are the payouts and bounties services running?)", STALL.as_secs())
        })?;
        let message = next.ok_or("the connection closed")?.map_err(|e| e.to_string())?;
        end.read(message.subject.as_str(), &message.payload);
    }
    let mut summary = bounty.then_some(end.bounties);
    if let Some(b) = summary.as_mut().filter(|b| b.kind == "mystery") {
        b.seed_matches_commitment = Some(mystery_seed(backbone, t).await?);
    }
    finish(backbone, t, end.paid, summary).await
}

/// The end of a run as the simulator reads it: the payouts log and the bounties log.
struct Ending {
    payouts: String,
    paid: Paid,
    bounties: BountySummary,
    /// The winner's bounty is recorded (or there are no bounties).
    settled: bool,
}

impl Ending {
    fn read(&mut self, subject: &str, payload: &[u8]) {
        if subject == self.payouts {
            self.paid.read(payload);
        } else if let Ok(events) = floor_events::record::decode_commit::<BountyEvent>(payload) {
            self.settled |= self.bounties.read(&events);
        }
    }
}

/// Whether the mystery seed revealed at the end hashes to the commitment published at the stage.
async fn mystery_seed(backbone: &Backbone, t: TournamentId) -> Result<bool, String> {
    use sha2::Digest;
    let subject = subjects::event_subject(subjects::aggregate::BOUNTIES, t.0);
    let log = floor_runtime::JetStreamStore::new(backbone).load::<BountyEvent>(&subject, 0).await.map_err(|e| e.to_string())?;
    let (mut commitment, mut seed) = (None, None);
    for event in log.into_iter().flat_map(|c| c.events) {
        match event {
            BountyEvent::MysteryStageStarted { commitment: c, .. } => commitment = Some(c),
            BountyEvent::MysterySeedRevealed { seed: s } => seed = Some(s),
            _ => {}
        }
    }
    let hex = |bytes: &[u8]| bytes.iter().map(|b| format!("{b:02x}")).collect::<String>();
    let digest =
        seed.and_then(|s| (0..s.len()).step_by(2).map(|i| u8::from_str_radix(s.get(i..i + 2)?, 16).ok()).collect::<Option<Vec<u8>>>());
    Ok(matches!((commitment, digest), (Some(c), Some(d)) if hex(&sha2::Sha256::digest(&d)) == c))
}

/// Asks for the books once everything is paid.
pub(super) async fn finish(
    backbone: &Backbone,
    t: TournamentId,
    paid: Paid,
    bounties: Option<BountySummary>,
) -> Result<(Books, Vec<PlaceAward>, Option<BountySummary>), String> {
    use floor_events::payouts::{verbs as payouts, BooksRequest};
    let books = command(backbone, subjects::service::PAYOUTS, payouts::BOOKS.name(), &BooksRequest { tournament_id: t }).await?;
    let books = serde_json::from_value(books).map_err(|e| format!("books: {e}"))?;
    let mut standings = paid.awards;
    standings.sort_by_key(|a| (a.place, a.entry));
    Ok((books, standings, bounties))
}

/// The payouts log as the simulator reads it: the places awarded, and whether every paid place is.
#[derive(Default)]
pub(super) struct Paid {
    awards: Vec<PlaceAward>,
    paid: bool,
}

impl Paid {
    /// What the payouts log of `t` holds now, paid or not (a cancelled tournament is never).
    pub(super) async fn read_log(backbone: &Backbone, t: TournamentId) -> Result<Paid, String> {
        let subject = subjects::event_subject(subjects::aggregate::PAYOUTS, t.0);
        let log = floor_runtime::JetStreamStore::new(backbone).load::<PayoutEvent>(&subject, 0).await.map_err(|e| e.to_string())?;
        let mut paid = Paid::default();
        for event in log.into_iter().flat_map(|c| c.events) {
            paid.take(event);
        }
        Ok(paid)
    }

    fn take(&mut self, event: PayoutEvent) {
        match event {
            PayoutEvent::PlacesAwarded { awards, .. } => self.awards.extend(awards),
            PayoutEvent::TournamentPaid { .. } => self.paid = true,
            // The simulator reads what was paid; a deal only changes the amounts awarded.
            _ => {}
        }
    }

    fn read(&mut self, commit: &[u8]) {
        let Ok(events) = floor_events::record::decode_commit::<PayoutEvent>(commit) else { return };
        events.into_iter().for_each(|e| self.take(e));
    }
}
