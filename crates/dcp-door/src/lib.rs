//! The event door (spec §16): programs on the player's PC tell the app that
//! something happened, and the companion says it on its own.
//!
//! * [`door`]: the loopback HTTP endpoint `POST /v1/events/<slug>`, open
//!   only while developer mode is on and an event of an active plugin is
//!   switched on; every refusal of §16's table, in a fixed order that leaks
//!   nothing (browser, Host, method, path, type, size, token, state, body,
//!   rate); the journal; the waiting queue's ticker.
//! * [`limits`]: 1 event every 10 s and 30 in any rolling hour, exactly.
//! * [`queue`]: the waiting queue and the companion's state.
//! * [`message`]: what the AI reads, in the player's language; [`quotes`]
//!   flattens the quotation marks and brackets of the program's text (and
//!   of a Twitch viewer's, in the companion's chat turns).
//! * [`clock`]: the time source, injectable for tests.
//! * [`probe`]: whether the program holding the door's port is a door.
//!
//! *Architecture invariant:* this crate opens exactly one listening socket,
//! on 127.0.0.1, and never imports tauri. Tokens are compared in constant
//! time and are never printed, journaled or logged.

#![deny(missing_docs)]

pub mod clock;
pub mod door;
pub mod limits;
pub mod message;
pub mod probe;
pub mod queue;
pub mod quotes;

pub use clock::{Clock, ManualClock, SystemClock};
pub use door::{door_wanted, wanted_now, Door, DoorConfig, DoorState, Notice, SaidEvent, Wanted, DEFAULT_PORT};
pub use probe::held_by_a_door;
pub use queue::CompanionState;
