//! Issue 11: slow clients must not shut the door on the player's own
//! programs. Over real TCP on loopback: 300 connections drip a request
//! head that never ends (a byte every 500 ms) and reconnect as soon as the
//! door closes them, while a program sends a valid event every 11 s; each
//! of its 4 events must be answered (202) within 5 s, none of them after
//! the kernel dropped its connection request. Bounded: 300 tasks,
//! each stopping at the end or after a fixed number of connections; the
//! whole test lasts about 35 s.

#[path = "support/load.rs"]
#[allow(dead_code)] // shared with tests/door.rs and benches/load.rs
mod load;
#[path = "support/slow.rs"]
mod slow;
#[path = "support/world.rs"]
#[allow(dead_code)] // shared with tests/door.rs, which uses all of it
mod world;

use dcp_door::{Door, DoorConfig, DoorState, ManualClock};
use std::sync::Arc;
use std::time::Duration;

const SLOW: usize = 300;
const EVENTS: usize = 4;
const EVERY: Duration = Duration::from_secs(11);
const LIMIT: Duration = Duration::from_secs(5);
/// The kernel's first retry of a dropped connection request. A program's
/// connection waits behind at most 300 others, accepted at 64 per 50 ms
/// (`MIN_AGE`): about 0.2 s, well under this.
const RETRY: Duration = Duration::from_secs(1);

// Skipped on Windows because of Wine, not Windows (measured 2026-12-06, Wine
// 8.0, 5 runs of `--include-ignored`, each with 1 or 2 of the 4 events lost):
// every socket call of the door and of the test's 300 clients is a round trip
// to the one wineserver process (63% of a core, the test's process 8%, with
// other builds on the 2 cores as for the Linux figures below). The door then
// closes 11 to 18 times fewer connections for room than on Linux (2,400 to
// 3,700 in a run, against 42,000), a connection stays in its table a median
// 0.5 s (Linux: 51 ms), and about half of those closed for room were never
// read: their task had not been polled once. The lost events were such
// connections (both, in the run that logged them): connected within 0.6 s (no
// connect error in any run, for the program or the slow clients' thousands:
// nothing refused; Wine hands `listen` to Linux's TCP stack, whose queue kept
// the 1024 backlog and held about 110), then closed unread (the client reads
// an end of file). The other events took 0.4 to 3.8 s (Linux: 0.13 to 0.18 s).
// A door that closes no connection before its first read (tried, 2 runs)
// answered all 4, but in 0.5 to 4.5 s, most past `RETRY`. Wine shows neither
// how fast real Windows serves this nor its answer to a full backlog (a reset,
// where Linux drops the request): a Windows machine must run it.
#[cfg_attr(
    windows,
    ignore = "under Wine every socket call goes through wineserver: the door serves 11 to 18 times slower than on Linux, \
              and the program's connections are closed for room before they are read; to run on real Windows"
)]
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_program_is_answered_while_300_slow_connections_drip_their_headers() {
    let w = world::world();
    let port = world::free_port();
    let clock = Arc::new(ManualClock::new());
    clock.advance(Duration::from_secs(1_000_000));
    let (tx, mut notices) = tokio::sync::mpsc::unbounded_channel();
    let door = Door::start(w.door_store(), DoorConfig { port, poll: Duration::from_millis(250) }, clock.clone(), tx);
    world::door_reaches(&mut notices, &DoorState::Listening { port }).await;
    let scenario = slow::Scenario {
        slow: SLOW,
        drip: Duration::from_millis(500),
        ramp: Duration::from_secs(1),
        events: EVENTS,
        every: EVERY,
        limit: LIMIT,
    };
    // The door's clock moves with the program's 11 s, for the limits.
    let (events, report) = slow::legit_among_slow(port, &w.token, scenario, || clock.advance(EVERY)).await;
    let answered = slow::answered_within(&events, LIMIT);
    println!(
        "{answered} of {EVENTS} events answered 202 within {LIMIT:?} with {SLOW} slow connections ({} opened in all, \
         {} open at the end): {events:?}",
        report.connections, report.open_at_end
    );
    door.stop().await;
    // The old door answered none of the 4. A door that lets the kernel drop
    // a program's connection request (a listen backlog below the slow
    // clients' 300, as `TcpListener::bind`'s 128 was: issue 11's flake)
    // answers late, after the kernel's 1 s retry, or not within the 5 s.
    assert_eq!(answered, EVENTS, "every event of the program answered within {LIMIT:?}: {events:?}");
    let retried = events.iter().filter(|e| e.latency >= RETRY).count();
    assert_eq!(retried, 0, "no connection request of the program dropped (a retry costs {RETRY:?}): {events:?}");
}
