//! The store's integration tests, in one binary: each module covers one part
//! of the spec against real files, a real SQLite database and the OS
//! credential store. One binary links the engine once instead of eleven
//! times, which keeps CI's build folder small.

mod common;

mod ai;
mod call_context;
mod concurrency;
mod deletion;
mod event_tokens;
mod folder;
mod install;
mod journal;
mod profile_modes;
mod review_language;
mod secrets;
mod statuses;
mod turns;
mod update;
mod upgrade;
mod watch;
