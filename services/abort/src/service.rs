//! Wiring: to come. `start(backbone, clock, shutdown, tracker)` will build the aggregate host
//! for [`crate::AbortAggregate`], read the snapshot for a cancel from the log (registration,
//! rebuys, seating's stacks at the start of each interrupted hand, payouts, bounties), and serve
//! `floor.cmd.abort.{suspend,resume,cancel,statement}`; then the contract (commands, events,
//! codes) moves to `floor-events`.
