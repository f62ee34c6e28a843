//! Pure reactions: to come with the wiring. The abort service will follow the seating reports
//! (tables silent for a configurable share and time: suspend by itself, issue 22) and, on a
//! suspension or a cancellation, order the clock to pause, the tables to `pause`/`resume` or
//! close, and registration, rebuys and the bubble to hold; each order with a command id derived
//! from the abort event that caused it.
