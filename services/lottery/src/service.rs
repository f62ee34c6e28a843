//! Wiring: the `floor.cmd.lottery.<verb>` endpoint.

use floor_events::lottery::{verbs, Frequencies, FrequenciesOf};
use floor_events::{subjects, Reply};
use floor_runtime::endpoint::Verbs;
use floor_runtime::shell::{Context, Service};

/// The lottery service. Cheap to clone.
#[derive(Clone)]
pub struct LotteryService;

impl Service for LotteryService {
    type Error = std::convert::Infallible;

    async fn start(_cx: &Context<'_>) -> Result<Self, Self::Error> {
        Ok(Self)
    }

    fn verbs() -> Verbs<Self> {
        Verbs::new(subjects::service::LOTTERY).verb(verbs::FREQUENCIES, |_s: Self, r: FrequenciesOf| async move {
            Reply::Ok(Frequencies { version: r.version, games: 0, rows: vec![] })
        })
    }
}
