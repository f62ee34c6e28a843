//! The platform's secrets in KV `floor-secrets`: the seed key seating derives its draw seeds
//! from, and the bounties service its mystery draws' seeds.

use crate::bootstrap::Backbone;
use crate::projection::{ProjectionError, ProjectionErrorKind};
use floor_events::subjects;

fn read<E: Into<Box<dyn std::error::Error + Send + Sync>>>(e: E) -> ProjectionError {
    ProjectionError::with_source(ProjectionErrorKind::Read, e)
}

/// The platform's seed key ([`subjects::SEED_KEY`]): created once (random) by whichever service
/// comes first (seating or bounties), read by the others.
///
/// # Errors
/// When the secrets bucket cannot be read, or holds a key that is not 32 bytes.
pub async fn seed_key(backbone: &Backbone) -> Result<[u8; 32], ProjectionError> {
    let bucket = backbone.jetstream.get_key_value(subjects::SECRETS_BUCKET).await.map_err(read)?;
    let fresh: Vec<u8> = [uuid::Uuid::new_v4(), uuid::Uuid::new_v4()].iter().flat_map(|u| *u.as_bytes()).collect();
    // `create` refuses an existing key, so racing instances end up with the first one's key.
    let _ = bucket.create(subjects::SEED_KEY, fresh.into()).await;
    let stored = bucket.get(subjects::SEED_KEY).await.map_err(read)?.ok_or_else(|| read("seed key missing"))?;
    stored.as_ref().try_into().map_err(|_| read("seed key is not 32 bytes"))
}
