//! Wiring: the `floor.cmd.shootouts.<verb>` endpoint.

use floor_events::shootouts::{verbs, BracketOf};
use floor_events::{codes, subjects, ErrorBody, Reply};
use floor_runtime::endpoint::Verbs;
use floor_runtime::shell::{Context, Service};

/// The shootouts service. Cheap to clone.
#[derive(Clone)]
pub struct ShootoutsService;

impl Service for ShootoutsService {
    type Error = std::convert::Infallible;

    async fn start(_cx: &Context<'_>) -> Result<Self, Self::Error> {
        Ok(Self)
    }

    fn verbs() -> Verbs<Self> {
        Verbs::new(subjects::service::SHOOTOUTS).verb(verbs::BRACKET, |_s: Self, r: BracketOf| async move {
            Reply::<floor_events::shootouts::Bracket>::Error(ErrorBody::new(
                codes::UNKNOWN_TOURNAMENT,
                format!("{} is no shootout", r.tournament_id),
            ))
        })
    }
}
