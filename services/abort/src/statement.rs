//! What a cancellation says: statements, lines, rules cited, books. The types are the
//! contract's ([`floor_events::abort::statement`]: the `cancelled` event carries them),
//! re-exported here for the rules.

pub use floor_events::abort::statement::{Books, Cancellation, Case, Inputs, Line, LineKind, Method, Pot, Rule, Statement};
