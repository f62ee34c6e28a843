//! Each tournament's blind structure as its own resource: KV bucket `floor-lobby-structures`,
//! keyed by tournament id, the clock's `Structure` as JSON. Served at
//! `GET /api/tournaments/{id}/structure`.
//!
//! A structure is set once or twice in a tournament's life and read by a few pages, while the
//! lobby document changes with every registration and is pushed to every watcher: keeping the
//! sheet (33 levels are most of a document) out of the document keeps each push small.

use async_nats::jetstream::{self, kv};

/// The bucket of structures.
pub const BUCKET: &str = "floor-lobby-structures";

/// The bucket, created on first use (the lobby is its only writer).
///
/// # Errors
/// When the bucket can neither be read nor created.
pub async fn bucket(jetstream: &jetstream::Context) -> Result<kv::Store, String> {
    floor_runtime::bootstrap::key_value(jetstream, BUCKET, "Floor lobby: each tournament's blind structure").await
}
