//! Slow clients: connections that drip a request head that never ends, a
//! byte at a time, and reconnect as soon as the door closes them, beside a
//! legitimate program sending a valid event now and then. Shared by the
//! slow-client test (`tests/slow_clients.rs`) and the load bench
//! (`benches/load.rs`); needs the `world` and `load` modules beside it.
//!
//! Bounded: a fixed number of tasks, each stopping at the shared `stop`
//! flag or after [`MAX_RECONNECTS`] connections, whichever comes first,
//! with a pause between connections so that a door closing them at once
//! does not make a hot loop.

use crate::load::exchange;
use crate::world::{request, FOCUS};
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpStream;

/// Connections one slow task opens at most.
pub const MAX_RECONNECTS: usize = 2_000;
/// Pause before a slow task reconnects.
const RECONNECT_PAUSE: Duration = Duration::from_millis(20);

/// What the slow tasks did.
#[derive(Debug, Default)]
pub struct SlowReport {
    /// Connections opened in all.
    pub connections: usize,
    /// Connections open at the end (still dripping).
    pub open_at_end: usize,
}

/// Counts the connections of the slow tasks.
#[derive(Debug, Default)]
pub struct SlowCounters {
    opened: AtomicUsize,
    open: AtomicUsize,
}

impl SlowCounters {
    /// Connections open now.
    pub fn open(&self) -> usize {
        self.open.load(Ordering::SeqCst)
    }
}

/// One slow client: connects, sends the start of a request head, then one
/// byte every `drip` (a header line that never ends), until the door
/// closes the connection; then reconnects.
async fn slow_client(port: u16, drip: Duration, stop: Arc<AtomicBool>, counters: Arc<SlowCounters>) {
    let start = format!("POST /v1/events/pomodoro HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nX-Slow: ");
    let mut buffer = [0u8; 512];
    for _ in 0..MAX_RECONNECTS {
        if stop.load(Ordering::SeqCst) {
            return;
        }
        let Ok(Ok(mut stream)) =
            tokio::time::timeout(Duration::from_secs(1), TcpStream::connect(("127.0.0.1", port))).await
        else {
            tokio::time::sleep(RECONNECT_PAUSE).await;
            continue;
        };
        counters.opened.fetch_add(1, Ordering::SeqCst);
        counters.open.fetch_add(1, Ordering::SeqCst);
        if stream.write_all(start.as_bytes()).await.is_ok() {
            loop {
                tokio::select! {
                    read = stream.read(&mut buffer) => {
                        // Closed (0), reset, or an answer (a timeout's 408): gone.
                        let _ = read;
                        break;
                    }
                    () = tokio::time::sleep(drip) => {
                        if stop.load(Ordering::SeqCst) || stream.write_all(b"a").await.is_err() {
                            break;
                        }
                    }
                }
            }
        }
        counters.open.fetch_sub(1, Ordering::SeqCst);
        drop(stream);
        tokio::time::sleep(RECONNECT_PAUSE).await;
    }
}

/// Starts `n` slow clients; they run until `stop`.
pub fn slow_clients(
    port: u16,
    n: usize,
    drip: Duration,
    stop: Arc<AtomicBool>,
) -> (Arc<SlowCounters>, Vec<tokio::task::JoinHandle<()>>) {
    let counters = Arc::new(SlowCounters::default());
    let tasks = (0..n).map(|_| tokio::spawn(slow_client(port, drip, stop.clone(), counters.clone()))).collect();
    (counters, tasks)
}

/// One event of the legitimate program: its answer's status (`None`
/// when none came within the limit) and how long it took.
#[derive(Debug, Clone, Copy)]
pub struct Legit {
    pub status: Option<u16>,
    pub latency: Duration,
}

/// The program's events answered 202 within `limit`.
pub fn answered_within(events: &[Legit], limit: Duration) -> usize {
    events.iter().filter(|e| e.status == Some(202) && e.latency <= limit).count()
}

/// The scenario of issue 11: slow clients dripping their heads while a
/// program sends valid events, each on a new connection.
#[derive(Debug, Clone, Copy)]
pub struct Scenario {
    /// Slow clients (one connection each at a time).
    pub slow: usize,
    /// One byte of a slow head every `drip`.
    pub drip: Duration,
    /// Wait after starting the slow clients, before the first event.
    pub ramp: Duration,
    /// The program's events.
    pub events: usize,
    /// One event every `every`.
    pub every: Duration,
    /// Each event's answer must come within `limit`.
    pub limit: Duration,
}

/// Runs the [`Scenario`] against the door at `port`; `before_each` runs
/// before each event (a test moves the door's hand-moved clock there).
/// Returns the program's events and the slow clients' report.
pub async fn legit_among_slow(port: u16, token: &str, s: Scenario, before_each: impl Fn()) -> (Vec<Legit>, SlowReport) {
    let stop = Arc::new(AtomicBool::new(false));
    let (counters, tasks) = slow_clients(port, s.slow, s.drip, stop.clone());
    tokio::time::sleep(s.ramp).await;
    let request = request(port, "pomodoro", token, FOCUS).into_bytes();
    let mut buffer = vec![0u8; 2048];
    let mut sent = Vec::with_capacity(s.events);
    let mut ticks = tokio::time::interval(s.every);
    ticks.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
    for _ in 0..s.events {
        ticks.tick().await;
        before_each();
        let t = Instant::now();
        let answer = tokio::time::timeout(s.limit, exchange(port, &request, &mut buffer)).await;
        let status = answer.ok().and_then(Result::ok).map(|a| a.status);
        sent.push(Legit { status, latency: t.elapsed() });
    }
    let open_at_end = counters.open();
    stop.store(true, Ordering::SeqCst);
    for task in tasks {
        task.abort();
        let _ = task.await;
    }
    (sent, SlowReport { connections: counters.opened.load(Ordering::SeqCst), open_at_end })
}
