//! The accept loop and each connection's limits (issue 11: slow clients
//! must not shut the door on the player's own programs).
//!
//! The door accepts every connection at once: it never waits for a free
//! place before calling `accept`, so a program's connection is never left
//! in the kernel's queue behind connections that send nothing. Each open
//! connection is in one of three phases:
//!
//! * *head*: waiting for a request head (a new connection, or a kept-alive
//!   one between requests): at most [`HEAD_LIMIT`];
//! * *body*: the head is in, the body is being read: at most
//!   [`BODY_LIMIT`];
//! * *answering*: the request is being decided (the store's work, short):
//!   no limit, and never closed for room.
//!
//! A connection over its phase's limit is closed (checked every
//! [`REAP_EVERY`]). At most [`MAX_CONNECTIONS`] are open: a new one beyond
//! that closes the connection that has waited longest in the head or body
//! phase (the oldest idle or slowest one), never the new one. A connection
//! is never closed for room in its first [`MIN_AGE`]: when the oldest
//! waiting one is younger, the loop waits until it is not, so that a new
//! connection always has that long to send its head, however fast others
//! reconnect (the connections behind it wait in the kernel's queue, in
//! order; the supervisor makes that queue long enough for them). Only when every open connection is being answered is a new one
//! closed at once, past [`HARD_LIMIT`]. A program sends its whole request
//! at once, so it is answered within a few [`MIN_AGE`]s, however many
//! slow connections wait.
//!
//! A connection may carry several requests (keep-alive); each goes through
//! every check of [`answer`](super::answer), in order.

use super::answer::answer;
use super::Shared;
use hyper_util::rt::TokioIo;
use std::collections::HashMap;
use std::convert::Infallible;
use std::pin::Pin;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex, PoisonError};
use std::task::{Context, Poll};
use std::time::{Duration, Instant};
use tokio::net::TcpListener;
use tokio::net::TcpStream;
use tokio::task::AbortHandle;

/// Time to receive a request head, or between two requests on a kept
/// connection.
pub const HEAD_LIMIT: Duration = Duration::from_secs(2);
/// Time to receive a body once its head is in.
pub const BODY_LIMIT: Duration = Duration::from_secs(2);
/// Connections open at once, beyond which the one waiting longest is closed.
pub const MAX_CONNECTIONS: usize = 64;
/// Connections open at once when all are being answered.
pub const HARD_LIMIT: usize = 2 * MAX_CONNECTIONS;
/// How often the limits are checked.
pub const REAP_EVERY: Duration = Duration::from_millis(100);
/// A connection is never closed for room before this age.
pub const MIN_AGE: Duration = Duration::from_millis(50);

/// A connection's phase.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Phase {
    /// Waiting for a request head (new, or idle between requests).
    Head = 0,
    /// Reading a body.
    Body = 1,
    /// Being answered.
    Answering = 2,
}

/// One connection's phase and when it began, in one atomic word
/// (milliseconds since the table's origin, shifted, and the phase).
pub(super) struct Slot {
    origin: Instant,
    word: AtomicU64,
    /// Set when the door closes the connection for room or time.
    reset: AtomicBool,
}

impl Slot {
    fn new(origin: Instant) -> Slot {
        let slot = Slot { origin, word: AtomicU64::new(0), reset: AtomicBool::new(false) };
        slot.enter(Phase::Head);
        slot
    }

    /// The connection enters `phase` now.
    pub(super) fn enter(&self, phase: Phase) {
        let ms = u64::try_from(self.origin.elapsed().as_millis()).unwrap_or(u64::MAX >> 2);
        self.word.store(ms << 2 | phase as u64, Ordering::Relaxed);
    }

    /// Closes the connection with a reset (see [`Io`]): its task ends at
    /// its next poll.
    fn close(&self, abort: &AbortHandle) {
        self.reset.store(true, Ordering::Relaxed);
        abort.abort();
    }

    /// The phase and when it began.
    fn read(&self) -> (Phase, u64) {
        let word = self.word.load(Ordering::Relaxed);
        let phase = match word & 3 {
            0 => Phase::Head,
            1 => Phase::Body,
            _ => Phase::Answering,
        };
        (phase, word >> 2)
    }

    /// When the connection began waiting, if it waits (head or body), and
    /// whether it waited past its phase's limit at `now` (ms).
    fn waiting(&self, now: u64) -> Option<(u64, bool)> {
        let (phase, since) = self.read();
        let limit = match phase {
            Phase::Head => HEAD_LIMIT,
            Phase::Body => BODY_LIMIT,
            Phase::Answering => return None,
        };
        Some((since, now.saturating_sub(since) >= limit.as_millis() as u64))
    }
}

/// The open connections of one listener.
struct Table {
    origin: Instant,
    open: Mutex<Open>,
}

#[derive(Default)]
struct Open {
    next: u64,
    entries: HashMap<u64, (Arc<Slot>, AbortHandle)>,
}

impl Table {
    fn lock(&self) -> std::sync::MutexGuard<'_, Open> {
        self.open.lock().unwrap_or_else(PoisonError::into_inner)
    }

    fn now(&self) -> u64 {
        u64::try_from(self.origin.elapsed().as_millis()).unwrap_or(u64::MAX)
    }

    /// Closes the connections past their phase's limit.
    fn reap(&self) {
        let now = self.now();
        self.lock().entries.retain(|_, (slot, abort)| {
            let over = slot.waiting(now).is_some_and(|(_, over)| over);
            if over {
                slot.close(abort);
            }
            !over
        });
    }

    /// Makes room for one more connection: when [`MAX_CONNECTIONS`] are
    /// open, closes the one waiting longest, once it is [`MIN_AGE`] old.
    fn make_room(open: &mut Open, now: u64) -> Room {
        if open.entries.len() < MAX_CONNECTIONS {
            return Room::Free;
        }
        let oldest = open.entries.iter().filter_map(|(&id, (slot, _))| Some((slot.waiting(now)?.0, id))).min();
        match oldest {
            Some((since, _)) if now.saturating_sub(since) < MIN_AGE.as_millis() as u64 => {
                Room::Wait(Duration::from_millis(since + MIN_AGE.as_millis() as u64 - now))
            }
            Some((_, id)) => {
                if let Some((slot, abort)) = open.entries.remove(&id) {
                    slot.close(&abort);
                }
                Room::Free
            }
            None if open.entries.len() < HARD_LIMIT => Room::Free,
            None => Room::Full,
        }
    }
}

/// What [`Table::make_room`] found.
enum Room {
    /// A place for the new connection.
    Free,
    /// The oldest waiting connection is younger than [`MIN_AGE`]: try again
    /// after this long.
    Wait(Duration),
    /// Every connection is being answered, [`HARD_LIMIT`] of them.
    Full,
}

/// Closes every connection of the listener when its accept loop ends
/// (the door closed or stopped).
struct CloseAll(Arc<Table>);

impl Drop for CloseAll {
    fn drop(&mut self) {
        for (_, (_, abort)) in self.0.lock().entries.drain() {
            abort.abort();
        }
    }
}

/// Takes a connection's entry out of the table when its task ends.
struct Leave(Arc<Table>, u64);

impl Drop for Leave {
    fn drop(&mut self) {
        self.0.lock().entries.remove(&self.1);
    }
}

/// The accept loop of one listener, with its limits.
pub(super) async fn accept(shared: Arc<Shared>, listener: TcpListener) {
    let table = Arc::new(Table { origin: Instant::now(), open: Mutex::new(Open::default()) });
    let _close_all = CloseAll(table.clone());
    let mut reap = tokio::time::interval(REAP_EVERY);
    reap.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
    loop {
        let accepted = tokio::select! {
            accepted = listener.accept() => accepted,
            _ = reap.tick() => {
                table.reap();
                continue;
            }
        };
        let Ok((stream, _)) = accepted else {
            // Out of descriptors, for example: breathe instead of spinning.
            tokio::time::sleep(Duration::from_millis(50)).await;
            continue;
        };
        loop {
            let room = {
                let mut open = table.lock();
                let room = Table::make_room(&mut open, table.now());
                if let Room::Free = room {
                    let id = open.next;
                    open.next += 1;
                    let slot = Arc::new(Slot::new(table.origin));
                    let leave = Leave(table.clone(), id);
                    let task = tokio::spawn(serve(shared.clone(), slot.clone(), stream, leave));
                    // Inserted before the task can end: its Leave waits for the lock.
                    open.entries.insert(id, (slot, task.abort_handle()));
                    break;
                }
                room
            };
            match room {
                Room::Wait(wait) => tokio::time::sleep(wait).await,
                // Every connection is being answered: this one is closed.
                Room::Full | Room::Free => break,
            }
        }
    }
}

/// Serves one connection: its requests, one after another.
async fn serve(shared: Arc<Shared>, slot: Arc<Slot>, stream: TcpStream, _leave: Leave) {
    let io_slot = slot.clone();
    let service = hyper::service::service_fn(move |req| {
        let shared = shared.clone();
        let slot = slot.clone();
        async move { Ok::<_, Infallible>(answer(&shared, &slot, req).await) }
    });
    let mut builder = hyper::server::conn::http1::Builder::new();
    builder.keep_alive(true).max_buf_size(16 * 1024);
    let io = Io { inner: TokioIo::new(stream), slot: io_slot };
    let _ = builder.serve_connection(io, service).await;
}

/// A connection's socket as hyper reads and writes it. When the door
/// closes the connection for room or time, it is closed with a reset
/// (`SO_LINGER` 0) rather than a FIN: no `TIME_WAIT` is left behind, so
/// clients closed by the thousand do not use up the loopback's ports,
/// which a program's next connection needs.
struct Io {
    inner: TokioIo<TcpStream>,
    slot: Arc<Slot>,
}

impl Drop for Io {
    fn drop(&mut self) {
        if self.slot.reset.load(Ordering::Relaxed) {
            let _ = self.inner.inner().set_zero_linger();
        }
    }
}

impl hyper::rt::Read for Io {
    fn poll_read(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: hyper::rt::ReadBufCursor<'_>,
    ) -> Poll<std::io::Result<()>> {
        Pin::new(&mut self.get_mut().inner).poll_read(cx, buf)
    }
}

impl hyper::rt::Write for Io {
    fn poll_write(self: Pin<&mut Self>, cx: &mut Context<'_>, buf: &[u8]) -> Poll<std::io::Result<usize>> {
        Pin::new(&mut self.get_mut().inner).poll_write(cx, buf)
    }

    fn poll_flush(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<std::io::Result<()>> {
        Pin::new(&mut self.get_mut().inner).poll_flush(cx)
    }

    fn poll_shutdown(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<std::io::Result<()>> {
        Pin::new(&mut self.get_mut().inner).poll_shutdown(cx)
    }

    fn is_write_vectored(&self) -> bool {
        self.inner.is_write_vectored()
    }

    fn poll_write_vectored(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        bufs: &[std::io::IoSlice<'_>],
    ) -> Poll<std::io::Result<usize>> {
        Pin::new(&mut self.get_mut().inner).poll_write_vectored(cx, bufs)
    }
}
