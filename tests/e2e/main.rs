//! End-to-end tests: every test starts its own nats-server (free loopback port, temporary
//! directory) and the platform on it, and talks to it only over NATS and HTTP.

mod abort;
mod after_the_end;
mod bad_input;
mod bounties;
mod bubble;
mod clock;
mod concurrency;
mod console;
mod deals;
mod esrs_store;
mod fuzz;
mod idempotency;
mod killed_service;
mod limits;
mod lobby_pages;
mod money;
mod nats_auth;
mod openapi;
mod poison;
mod policy;
mod python_table_server;
mod readiness;
mod rebuys;
mod recovery;
mod scheduler;
mod seat_map;
mod seating;
mod sim_bubble;
mod skeleton;
mod surfaces;
mod table_moves;
mod table_reports;
mod tail;
mod tournament_end;
mod waiting;
