//! My plugins through the host (§18): `Host::cards` with 200 installed
//! plugins and `Host::details` of one, each beside a bare SQLite read of
//! the same rows in the same run (the profile's host.sqlite opened with
//! rusqlite: every `plugins` row and the recent errors of §19; for details,
//! every row the page shows: the plugin's row, settings, secrets set, action
//! and event switches, the app switches, its last failed calls and its
//! recent errors). Both count the recent errors with the store's query on
//! the same index. Printed as
//! the ratio host / bare, target ≤ 3×.
//!
//! The 200 plugins are copies of the exchange-rates example (§2) with
//! their own slugs (`fx000` … `fx199`, §21's 2–20 characters [a-z0-9]) and
//! names, imported and installed through the host as the app does.
//!
//! To show where the time goes, the store's own `list` and `details_page` (a
//! `dcp_store::Store` of its own on the same profile, no pool and no hop to
//! the host's runtime) are timed beside them and printed as a split. The
//! host is driven with `Host::block_on`, as the command line drives it;
//! the same two reads as the window makes them, a task of the one runtime
//! the host was given (Tauri's, there), are printed last.

#![allow(missing_docs)] // criterion_group! generates an undocumented function

use criterion::{criterion_group, criterion_main, Criterion};
use dcp_host::{Host, HostOptions};
use dcp_store::{Profile, Store};
use dcp_vault::testing::MemoryKeyStore;
use rusqlite::{Connection, OpenFlags};
use std::collections::HashMap;
use std::hint::black_box;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::{Duration, Instant};

const PLUGINS: usize = 200;
const ONE: &str = "fx100";

/// Every column the host reads for a card.
const ROW: &str = "slug, origin, dir, version, manifest_fingerprint, permissions_fingerprint, permissions, \
                   enabled, cloud_choice, twitch_allowed, review_kept";

type Row = (String, String, String, String, String, String, String, bool, Option<String>, bool, bool);

fn row(r: &rusqlite::Row<'_>) -> rusqlite::Result<Row> {
    Ok((
        r.get(0)?,
        r.get(1)?,
        r.get(2)?,
        r.get(3)?,
        r.get(4)?,
        r.get(5)?,
        r.get(6)?,
        r.get(7)?,
        r.get(8)?,
        r.get(9)?,
        r.get(10)?,
    ))
}

/// Each plugin's failed calls of the last day since its install (§19, the
/// cards' recent errors): the query the store runs, on the same index.
const RECENT_ERRORS: &str = "SELECT j.slug, COUNT(*) FROM journal j INDEXED BY journal_failures
     JOIN plugins p ON p.slug = j.slug
     WHERE j.outcome = 'failed' AND j.at >= ?1 AND j.at >= p.installed_at * 1000 AND (?2 IS NULL OR j.slug = ?2)
     GROUP BY j.slug";

/// The bare read of My plugins: every plugins row, and the recent errors.
fn bare_cards(conn: &Connection) -> (Vec<Row>, HashMap<String, u32>) {
    let mut stmt = conn.prepare_cached(&format!("SELECT {ROW} FROM plugins ORDER BY slug")).expect("prepare");
    let rows = stmt.query_map([], row).expect("query").collect::<Result<_, _>>().expect("rows");
    (rows, recent_errors(conn, None))
}

fn recent_errors(conn: &Connection, slug: Option<&str>) -> HashMap<String, u32> {
    let since = now_ms() - dcp_store::journal::RECENT_ERRORS_MS;
    let mut stmt = conn.prepare_cached(RECENT_ERRORS).expect("prepare");
    let counts = stmt.query_map(rusqlite::params![since, slug], |r| Ok((r.get(0)?, r.get(1)?))).expect("query");
    counts.collect::<Result<_, _>>().expect("counts")
}

fn now_ms() -> i64 {
    std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).expect("clock").as_millis() as i64
}

/// What a details page shows, read bare: the plugin's row, its settings,
/// which secrets are set, its action and event switches, the app switches,
/// its last failed calls and its recent errors.
type DetailsRows = (
    Row,
    Vec<(String, String)>,
    Vec<String>,
    Vec<String>,
    Vec<String>,
    Vec<(String, String)>,
    usize,
    HashMap<String, u32>,
);

/// The bare read of a details page: every row it shows.
fn bare_details(conn: &Connection, slug: &str) -> DetailsRows {
    let mut one = conn.prepare_cached(&format!("SELECT {ROW} FROM plugins WHERE slug = ?1")).expect("prepare");
    let plugin = one.query_row([slug], row).expect("row");
    let pairs = |sql: &str, slug: Option<&str>| -> Vec<(String, String)> {
        let mut stmt = conn.prepare_cached(sql).expect("prepare");
        let read = |r: &rusqlite::Row<'_>| Ok((r.get(0)?, r.get(1)?));
        let rows = match slug {
            Some(slug) => stmt.query_map([slug], read).expect("query").collect::<Result<_, _>>(),
            None => stmt.query_map([], read).expect("query").collect::<Result<_, _>>(),
        };
        rows.expect("rows")
    };
    let names = |sql: &str| -> Vec<String> {
        let mut stmt = conn.prepare_cached(sql).expect("prepare");
        stmt.query_map([slug], |r| r.get(0)).expect("query").collect::<Result<_, _>>().expect("rows")
    };
    let settings = pairs("SELECT key, value FROM settings WHERE slug = ?1 ORDER BY key", Some(slug));
    let secrets = names("SELECT key FROM secrets WHERE slug = ?1 ORDER BY key");
    let tools_off = names("SELECT tool FROM tools_off WHERE slug = ?1");
    let events_on = names("SELECT event FROM events_on WHERE slug = ?1");
    let prefs = pairs("SELECT key, value FROM prefs", None);
    let mut failures = conn
        .prepare_cached("SELECT at, action, code, error FROM failed_calls WHERE slug = ?1 ORDER BY id DESC LIMIT 20")
        .expect("prepare");
    let failed = failures.query_map([slug], |_| Ok(())).expect("query").count();
    let recent = recent_errors(conn, Some(slug));
    (plugin, settings, secrets, tools_off, events_on, prefs, failed, recent)
}

fn example() -> String {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../plugins-examples/exchange-rates/manifest.json");
    std::fs::read_to_string(path).expect("exchange-rates")
}

/// A read the window makes, as a task of its runtime.
type BoxedRead = std::pin::Pin<Box<dyn std::future::Future<Output = ()> + Send>>;

/// A host on a fresh profile with the 200 copies installed, and its key store.
fn profile() -> (tempfile::TempDir, Host, Store, Arc<MemoryKeyStore>) {
    let dir = tempfile::tempdir().expect("dir");
    let port = std::net::TcpListener::bind("127.0.0.1:0").expect("bind").local_addr().expect("addr").port();
    let keys = Arc::new(MemoryKeyStore::new());
    let host = Host::open(HostOptions {
        profile: Some(dir.path().join("profile")),
        key_store: Some(keys.clone()),
        door_port: Some(port),
        ..Default::default()
    })
    .expect("host");
    let original = example();
    let started = Instant::now();
    for i in 0..PLUGINS {
        let manifest = original
            .replace("\"slug\": \"fx\"", &format!("\"slug\": \"fx{i:03}\""))
            .replace("\"name\": \"fx-rates\"", &format!("\"name\": \"fx-rates-{i:03}\""))
            .replace("\"display_name\": \"Exchange rates\"", &format!("\"display_name\": \"Exchange rates {i:03}\""));
        let file: PathBuf = dir.path().join(format!("fx{i:03}.json"));
        std::fs::write(&file, manifest).expect("write");
        let review = host.block_on(host.import_path(file)).expect("review");
        host.block_on(host.install(&review.review, Default::default())).expect("install");
    }
    println!("installed {PLUGINS} plugins through the host in {:?}", started.elapsed());
    let store = Store::open(Profile::at(host.profile_dir()).expect("profile"), keys.clone()).expect("store");
    (dir, host, store, keys)
}

/// The median of 31 samples of 10 runs each.
fn median(mut f: impl FnMut()) -> Duration {
    let mut samples: Vec<Duration> = (0..31)
        .map(|_| {
            let start = Instant::now();
            for _ in 0..10 {
                f();
            }
            start.elapsed() / 10
        })
        .collect();
    samples.sort();
    samples[samples.len() / 2]
}

fn bench(c: &mut Criterion) {
    let (_dir, host, store, keys) = profile();
    let db = host.profile_dir().join("host.sqlite");
    let conn = Connection::open_with_flags(&db, OpenFlags::SQLITE_OPEN_READ_ONLY).expect("bare connection");

    // The two read the same thing.
    let cards = host.block_on(host.cards()).expect("cards");
    let (rows, errors) = bare_cards(&conn);
    assert_eq!(cards.len(), PLUGINS);
    assert!(cards.iter().zip(&rows).all(|(card, row)| card.slug == row.0 && card.version == row.3));
    assert!(cards.iter().all(|card| card.recent_errors == errors.get(&card.slug).copied().unwrap_or(0)));
    let details = host.block_on(host.details(ONE)).expect("details");
    assert_eq!(details.card.slug, bare_details(&conn, ONE).0 .0);

    c.bench_function("host cards, 200 plugins", |b| b.iter(|| black_box(host.block_on(host.cards()).expect("cards"))));
    c.bench_function("bare SQLite, 200 plugins rows", |b| b.iter(|| black_box(bare_cards(&conn))));
    c.bench_function("host details, one plugin", |b| {
        b.iter(|| black_box(host.block_on(host.details(ONE)).expect("details")))
    });
    c.bench_function("bare SQLite, the rows of one details page", |b| b.iter(|| black_box(bare_details(&conn, ONE))));

    // The ratios, each pair measured back to back, host then bare, twice
    // in alternation so a busy machine slows both alike.
    let mut cards_pair = Vec::new();
    let mut details_pair = Vec::new();
    let mut store_pair = Vec::new();
    let mut window_pair = Vec::new();
    // The window gives the host its runtime (Tauri's) and awaits each
    // method in a task of it, as Tauri runs a command.
    let window = tokio::runtime::Builder::new_multi_thread().worker_threads(2).enable_all().build().expect("runtime");
    let window_host = Host::open(HostOptions {
        profile: Some(host.profile_dir().to_path_buf()),
        key_store: Some(keys.clone()),
        runtime: Some(window.handle().clone()),
        ..Default::default()
    })
    .expect("the window's host");
    let command = |f: fn(Host) -> BoxedRead| {
        let (window, host) = (&window, &window_host);
        move || window.block_on(window.spawn(f(host.clone()))).expect("task")
    };
    for _ in 0..2 {
        window_pair.push((
            median(command(|h| Box::pin(async move { drop(h.cards().await.expect("cards")) }))),
            median(command(|h| Box::pin(async move { drop(h.details(ONE).await.expect("details")) }))),
        ));
        store_pair.push((
            median(|| drop(black_box(store.list().expect("list")))),
            median(|| drop(black_box(store.details_page(ONE, 10).expect("details page")))),
        ));
        cards_pair.push((
            median(|| drop(black_box(host.block_on(host.cards()).expect("cards")))),
            median(|| drop(black_box(bare_cards(&conn)))),
        ));
        details_pair.push((
            median(|| drop(black_box(host.block_on(host.details(ONE)).expect("details")))),
            median(|| drop(black_box(bare_details(&conn, ONE)))),
        ));
    }
    let best = |pairs: &[(Duration, Duration)]| {
        let host = pairs.iter().map(|p| p.0).min().expect("a pair");
        let bare = pairs.iter().map(|p| p.1).min().expect("a pair");
        (host, bare)
    };
    let (cards_host, cards_bare) = best(&cards_pair);
    let (details_host, details_bare) = best(&details_pair);
    let (store_list, store_show) = best(&store_pair);
    let (window_cards, window_details) = best(&window_pair);
    println!("\nMy plugins, same run (medians; target <= 3x):");
    println!(
        "  cards, {PLUGINS} plugins / bare SELECT of the plugins rows:   {:.1}x ({cards_host:?} vs {cards_bare:?})",
        cards_host.as_secs_f64() / cards_bare.as_secs_f64()
    );
    println!(
        "  details of one / bare SELECT of the rows it shows:     {:.1}x ({details_host:?} vs {details_bare:?})",
        details_host.as_secs_f64() / details_bare.as_secs_f64()
    );
    println!(
        "  split: the store's own list {store_list:?} ({:.1}x bare), details_page {store_show:?} ({:.1}x bare)",
        store_list.as_secs_f64() / cards_bare.as_secs_f64(),
        store_show.as_secs_f64() / details_bare.as_secs_f64()
    );
    println!(
        "  as the window runs a command (a task of the host's one runtime): cards {window_cards:?} ({:.1}x bare), \
         details {window_details:?} ({:.1}x bare)",
        window_cards.as_secs_f64() / cards_bare.as_secs_f64(),
        window_details.as_secs_f64() / details_bare.as_secs_f64()
    );
}

criterion_group! {
    name = benches;
    config = Criterion::default().sample_size(10).warm_up_time(Duration::from_millis(300)).measurement_time(Duration::from_secs(2));
    targets = bench
}
criterion_main!(benches);
