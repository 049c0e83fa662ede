//! The door under load: a bounded flood of bad requests, one legitimate
//! program sending its events meanwhile, and the judge of its answers
//! against §21's limits. Shared by the load tests (`tests/door.rs`) and the
//! load bench (`benches/load.rs`); needs the `world` module beside it.
//!
//! The client is bounded: a fixed number of connections
//! ([`Flood::connections`]), each a task sending its share of the requests
//! one after another, its answers read into one fixed buffer per task.
//! Either each request goes on a new connection and asks the server to
//! close it (`Connection: close`, as Python's `urllib` does), or each task
//! keeps its connection for the next request (keep-alive), opening a new
//! one only when the server closes it. Nothing else is spawned, and the
//! only memory that grows is one latency sample (4 bytes) per request.

use crate::world::{request, FOCUS};
use dcp_door::ManualClock;
use std::collections::BTreeMap;
use std::io;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpStream;

/// Largest answer the client reads (the door's are about 200 bytes).
const ANSWER_BUFFER: usize = 2048;
/// A request not answered within this counts as failed.
const ANSWER_LIMIT: Duration = Duration::from_secs(10);
/// The legitimate program stops after this many events whatever happens.
const MAX_EVENTS: usize = 4000;

/// The kinds of bad request in the flood, sent in turn.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum Bad {
    /// A wrong token for the installed plugin.
    WrongToken,
    /// A slug that is not installed (with a real token of another plugin).
    UnknownSlug,
    /// A browser request (`Origin`) carrying the right token.
    Origin,
    /// A browser request (`Sec-Fetch-Site`) carrying the right token.
    SecFetchSite,
}

impl Bad {
    pub const ALL: [Bad; 4] = [Bad::WrongToken, Bad::UnknownSlug, Bad::Origin, Bad::SecFetchSite];

    /// What the door answers (§16): 401 for a token that does not open
    /// this slug, 403 for a browser whatever its token.
    pub fn door_status(self) -> u16 {
        match self {
            Bad::WrongToken | Bad::UnknownSlug => 401,
            Bad::Origin | Bad::SecFetchSite => 403,
        }
    }

    /// The kinds whose answer is a 401 (bad token).
    pub const TOKENS: [Bad; 2] = [Bad::WrongToken, Bad::UnknownSlug];

    fn request(self, port: u16, token: &str, worker: usize, keep_alive: bool) -> Vec<u8> {
        let with = |request: String, header: &str| request.replacen("\r\n\r\n", &format!("\r\n{header}\r\n\r\n"), 1);
        let browser = |header: &str| with(request(port, "pomodoro", token, FOCUS), header);
        let request = match self {
            Bad::WrongToken => request(port, "pomodoro", &"f".repeat(64), FOCUS),
            Bad::UnknownSlug => request(port, &format!("ghost{worker}"), token, FOCUS),
            Bad::Origin => browser("Origin: https://evil.example"),
            Bad::SecFetchSite => browser("Sec-Fetch-Site: cross-site"),
        };
        if keep_alive { request } else { with(request, "Connection: close") }.into_bytes()
    }
}

/// An answer as the client reads it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Answer {
    pub status: u16,
    pub retry_after: Option<u64>,
}

fn header<'a>(head: &'a str, name: &str) -> Option<&'a str> {
    head.split("\r\n").skip(1).find_map(|line| {
        let (key, value) = line.split_once(':')?;
        key.trim().eq_ignore_ascii_case(name).then(|| value.trim())
    })
}

/// Sends `request` on a new connection to 127.0.0.1:`port` and reads one
/// answer (head and `Content-Length` body) into `buffer`.
pub async fn exchange(port: u16, request: &[u8], buffer: &mut [u8]) -> io::Result<Answer> {
    let mut stream = TcpStream::connect(("127.0.0.1", port)).await?;
    Ok(exchange_on(&mut stream, request, buffer).await?.0)
}

/// Sends `request` on `stream` and reads one answer into `buffer`; also
/// whether the server closes the connection after it (`Connection: close`).
pub async fn exchange_on(stream: &mut TcpStream, request: &[u8], buffer: &mut [u8]) -> io::Result<(Answer, bool)> {
    stream.write_all(request).await?;
    let mut filled = 0;
    loop {
        let read = stream.read(&mut buffer[filled..]).await?;
        filled += read;
        let got = &buffer[..filled];
        if let Some(end) = got.windows(4).position(|w| w == b"\r\n\r\n") {
            let head = std::str::from_utf8(&got[..end]).map_err(|_| io::Error::other("head not UTF-8"))?;
            let status = head.split(' ').nth(1).and_then(|s| s.parse().ok()).ok_or(io::ErrorKind::InvalidData)?;
            let length: usize = header(head, "content-length").and_then(|v| v.parse().ok()).unwrap_or(0);
            if filled >= end + 4 + length {
                let retry_after = header(head, "retry-after").and_then(|v| v.parse().ok());
                let close = header(head, "connection").is_some_and(|v| v.eq_ignore_ascii_case("close"));
                return Ok((Answer { status, retry_after }, close));
            }
        }
        if read == 0 {
            return Err(io::ErrorKind::UnexpectedEof.into());
        }
        if filled == buffer.len() {
            return Err(io::Error::other("answer larger than the client's buffer"));
        }
    }
}

/// One flood task's connection: kept for the next request when
/// `keep_alive` and the server keeps it.
struct Client {
    port: u16,
    keep_alive: bool,
    stream: Option<TcpStream>,
    /// Connections opened.
    opened: u32,
}

impl Client {
    async fn send(&mut self, request: &[u8], buffer: &mut [u8]) -> io::Result<Answer> {
        let kept = self.stream.is_some();
        match self.try_send(request, buffer).await {
            // A kept connection the server closed meanwhile: once more on a new one.
            Err(_) if kept => self.try_send(request, buffer).await,
            other => other,
        }
    }

    async fn try_send(&mut self, request: &[u8], buffer: &mut [u8]) -> io::Result<Answer> {
        let mut stream = match self.stream.take() {
            Some(stream) => stream,
            None => {
                self.opened += 1;
                TcpStream::connect(("127.0.0.1", self.port)).await?
            }
        };
        let (answer, close) = exchange_on(&mut stream, request, buffer).await?;
        if self.keep_alive && !close {
            self.stream = Some(stream);
        }
        Ok(answer)
    }
}

/// How hard to flood.
#[derive(Debug, Clone, Copy)]
pub struct Flood {
    /// Requests in all.
    pub requests: usize,
    /// Connections at a time (one task each).
    pub connections: usize,
    /// The kinds of bad request, sent in turn.
    pub kinds: &'static [Bad],
    /// Each task keeps its connection (`false`: a new connection per
    /// request, with `Connection: close`).
    pub keep_alive: bool,
}

/// What a flood measured.
#[derive(Debug, Default)]
pub struct FloodReport {
    pub elapsed: Duration,
    /// Each answered request's time, connect to last byte, in µs, sorted.
    pub latencies: Vec<u32>,
    /// Answers by kind of request and status.
    pub statuses: BTreeMap<(Bad, u16), u32>,
    /// Requests with no answer (connection refused or reset, timeout).
    pub failed: u32,
    /// Connections opened.
    pub connections: u32,
}

impl FloodReport {
    pub fn answered(&self) -> u32 {
        self.statuses.values().sum()
    }

    /// Answered requests per second.
    pub fn rate(&self) -> f64 {
        f64::from(self.answered()) / self.elapsed.as_secs_f64()
    }

    /// The `p`th percentile latency (0 to 100).
    pub fn percentile(&self, p: usize) -> Duration {
        let n = self.latencies.len();
        let index = (n * p / 100).min(n.saturating_sub(1));
        Duration::from_micros(self.latencies.get(index).copied().unwrap_or(0).into())
    }

    /// Answers whose status is not `expected` for their kind.
    pub fn unexpected(&self, expected: impl Fn(Bad) -> u16) -> u32 {
        self.statuses.iter().filter(|((bad, status), _)| *status != expected(*bad)).map(|(_, n)| n).sum()
    }

    /// Statuses with their counts, for printing.
    pub fn by_status(&self) -> BTreeMap<u16, u32> {
        let mut out = BTreeMap::new();
        for ((_, status), n) in &self.statuses {
            *out.entry(*status).or_insert(0) += n;
        }
        out
    }
}

/// Sends `flood.requests` bad requests to 127.0.0.1:`port`, the kinds in
/// turn, from `flood.connections` tasks. `token` is a real token (of the
/// plugin the browser requests target).
pub async fn flood(port: u16, token: &str, flood: Flood) -> FloodReport {
    let started = Instant::now();
    let mut workers = Vec::with_capacity(flood.connections);
    for worker in 0..flood.connections {
        let share = flood.requests / flood.connections + usize::from(worker < flood.requests % flood.connections);
        let requests: Vec<(Bad, Vec<u8>)> =
            flood.kinds.iter().map(|&bad| (bad, bad.request(port, token, worker, flood.keep_alive))).collect();
        workers.push(tokio::spawn(async move {
            let mut buffer = vec![0u8; ANSWER_BUFFER];
            let mut latencies = Vec::with_capacity(share);
            let mut statuses = BTreeMap::new();
            let mut failed = 0;
            let mut client = Client { port, keep_alive: flood.keep_alive, stream: None, opened: 0 };
            for i in 0..share {
                let (bad, request) = &requests[(i + worker) % requests.len()];
                let sent = Instant::now();
                match tokio::time::timeout(ANSWER_LIMIT, client.send(request, &mut buffer)).await {
                    Ok(Ok(answer)) => {
                        latencies.push(u32::try_from(sent.elapsed().as_micros()).unwrap_or(u32::MAX));
                        *statuses.entry((*bad, answer.status)).or_insert(0) += 1;
                    }
                    _ => {
                        client.stream = None;
                        failed += 1;
                    }
                }
            }
            (latencies, statuses, failed, client.opened)
        }));
    }
    let mut report = FloodReport { latencies: Vec::with_capacity(flood.requests), ..FloodReport::default() };
    for worker in workers {
        let (latencies, statuses, failed, opened) = worker.await.expect("flood worker");
        report.latencies.extend(latencies);
        for (key, n) in statuses {
            *report.statuses.entry(key).or_insert(0) += n;
        }
        report.failed += failed;
        report.connections += opened;
    }
    report.elapsed = started.elapsed();
    report.latencies.sort_unstable();
    report
}

/// One event the legitimate program sent.
#[derive(Debug, Clone, Copy)]
pub struct Sent {
    /// When, on the program's clock.
    pub at: Duration,
    /// `None` when the request got no answer.
    pub answer: Option<Answer>,
    pub latency: Duration,
}

/// How the legitimate program keeps time.
pub enum Pace {
    /// One event every `Duration` of real time.
    Real(Duration),
    /// One event, then `step` on the door's hand-moved clock, then `pause`
    /// of real time.
    Manual { clock: Arc<ManualClock>, step: Duration, pause: Duration },
}

/// The legitimate program: sends a valid `focus_done` for `pomodoro` at
/// its pace until `stop` (or [`MAX_EVENTS`]).
pub async fn program(port: u16, token: String, pace: Pace, stop: Arc<AtomicBool>) -> Vec<Sent> {
    let request = request(port, "pomodoro", &token, FOCUS).into_bytes();
    let mut buffer = vec![0u8; ANSWER_BUFFER];
    let mut sent = Vec::new();
    let origin = Instant::now();
    let mut ticks = match pace {
        Pace::Real(every) => {
            let mut ticks = tokio::time::interval(every);
            ticks.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
            Some(ticks)
        }
        Pace::Manual { .. } => None,
    };
    while sent.len() < MAX_EVENTS {
        if let Some(ticks) = ticks.as_mut() {
            ticks.tick().await;
        }
        if stop.load(Ordering::SeqCst) {
            break;
        }
        let at = match &pace {
            Pace::Real(_) => origin.elapsed(),
            Pace::Manual { clock, .. } => dcp_door::Clock::now(clock.as_ref()),
        };
        let t = Instant::now();
        let answer =
            tokio::time::timeout(ANSWER_LIMIT, exchange(port, &request, &mut buffer)).await.ok().and_then(Result::ok);
        sent.push(Sent { at, answer, latency: t.elapsed() });
        if let Pace::Manual { clock, step, pause } = &pace {
            clock.advance(*step);
            tokio::time::sleep(*pause).await;
        }
    }
    sent
}

/// The legitimate program's answers judged against §21's limits.
#[derive(Debug, Default)]
pub struct Judged {
    pub sent: usize,
    /// 202.
    pub accepted: usize,
    /// 429 with a `Retry-After`.
    pub limited: usize,
    /// The most the limits let through at these times (1 every 10 s, 30 in
    /// any hour), accepting whenever they allow.
    pub at_most: usize,
    /// From the first event to the last.
    pub span: Duration,
    pub slowest: Duration,
    /// Answers the limits do not explain.
    pub problems: Vec<String>,
}

/// Whether the limits surely / possibly let an event at `at` through
/// after the `accepted` times, with a timing `slack` either way (the door
/// reads its own clock a little after the program reads its).
fn allows(accepted: &[Duration], at: Duration, slack: Duration) -> (bool, bool) {
    let gap = Duration::from_secs(dcp_format::limits::EVENT_INTERVAL_SECONDS);
    let hour = Duration::from_secs(3600);
    let per_hour = dcp_format::limits::EVENTS_PER_HOUR;
    let within = |window: Duration| accepted.iter().filter(|&&t| at.saturating_sub(t) < window).count();
    let last = accepted.last().copied();
    let surely = last.is_none_or(|l| at >= l + gap + slack) && within(hour + slack) < per_hour;
    let possibly = last.is_none_or(|l| at + slack >= l + gap) && within(hour.saturating_sub(slack)) < per_hour;
    (surely, possibly)
}

/// Judges the program's answers: each 202 must be one the limits allow,
/// each refusal a 429 with `Retry-After` that they impose (to `slack`).
pub fn judge(sent: &[Sent], slack: Duration) -> Judged {
    let mut judged = Judged { sent: sent.len(), ..Judged::default() };
    let mut accepted = Vec::new();
    let mut model = Vec::new();
    for (i, s) in sent.iter().enumerate() {
        judged.slowest = judged.slowest.max(s.latency);
        if allows(&model, s.at, slack).1 {
            model.push(s.at);
        }
        let (surely, possibly) = allows(&accepted, s.at, slack);
        match s.answer {
            Some(Answer { status: 202, .. }) if possibly => {
                accepted.push(s.at);
                judged.accepted += 1;
            }
            Some(Answer { status: 429, retry_after: Some(secs) }) if !surely && (1..=3600).contains(&secs) => {
                judged.limited += 1;
            }
            other => judged.problems.push(format!("event {} at {:?}: {other:?}", i + 1, s.at)),
        }
    }
    judged.at_most = model.len();
    judged.span = match (sent.first(), sent.last()) {
        (Some(first), Some(last)) => last.at - first.at,
        _ => Duration::ZERO,
    };
    judged
}

/// A line of `/proc/self/status` in KiB (`VmRSS`, `VmHWM`), on Linux.
pub fn memory_kib(field: &str) -> Option<u64> {
    let status = std::fs::read_to_string("/proc/self/status").ok()?;
    let line = status.lines().find(|l| l.strip_prefix(field).is_some_and(|rest| rest.starts_with(':')))?;
    line.split_whitespace().nth(1)?.parse().ok()
}
