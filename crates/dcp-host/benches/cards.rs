//! My plugins through the host (§18): `Host::cards` with 200 installed
//! plugins and `Host::details` of one, each beside a bare SQLite read of
//! the same rows in the same run (the profile's host.sqlite opened with
//! rusqlite: every `plugins` row; for details, every row the page shows:
//! the plugin's row, settings, secrets set, action and event switches, the
//! app switches and its last failed calls). Printed as
//! the ratio host / bare, target ≤ 3×.
//!
//! The 200 plugins are copies of the exchange-rates example (§2) with
//! their own slugs (`fx000` … `fx199`, §21's 2–20 characters [a-z0-9]) and
//! names, imported and installed through the host as the app does.
//!
//! To show where the time goes, the store's own `list` and `show` (a
//! `dcp_store::Store` of its own on the same profile, no pool and no hop to
//! the host's runtime) are timed beside them and printed as a split.

#![allow(missing_docs)] // criterion_group! generates an undocumented function

use criterion::{criterion_group, criterion_main, Criterion};
use dcp_host::{Host, HostOptions};
use dcp_store::{Profile, Store};
use dcp_vault::testing::MemoryKeyStore;
use rusqlite::{Connection, OpenFlags};
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

/// The bare read of My plugins: every plugins row.
fn bare_cards(conn: &Connection) -> Vec<Row> {
    let mut stmt = conn.prepare_cached(&format!("SELECT {ROW} FROM plugins ORDER BY slug")).expect("prepare");
    stmt.query_map([], row).expect("query").collect::<Result<_, _>>().expect("rows")
}

/// What a details page shows, read bare: the plugin's row, its settings,
/// which secrets are set, its action and event switches, the app switches
/// and its last failed calls.
type DetailsRows = (Row, Vec<(String, String)>, Vec<String>, Vec<String>, Vec<String>, Vec<(String, String)>, usize);

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
    (plugin, settings, secrets, tools_off, events_on, prefs, failed)
}

fn example() -> String {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../plugins-examples/exchange-rates/manifest.json");
    std::fs::read_to_string(path).expect("exchange-rates")
}

/// A host on a fresh profile with the 200 copies installed.
fn profile() -> (tempfile::TempDir, Host, Store) {
    let dir = tempfile::tempdir().expect("dir");
    let port = std::net::TcpListener::bind("127.0.0.1:0").expect("bind").local_addr().expect("addr").port();
    let keys = Arc::new(MemoryKeyStore::new());
    let host = Host::open(HostOptions {
        profile: Some(dir.path().join("profile")),
        key_store: Some(keys.clone()),
        door_port: Some(port),
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
    let store = Store::open(Profile::at(host.profile_dir()).expect("profile"), keys).expect("store");
    (dir, host, store)
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
    let (_dir, host, store) = profile();
    let db = host.profile_dir().join("host.sqlite");
    let conn = Connection::open_with_flags(&db, OpenFlags::SQLITE_OPEN_READ_ONLY).expect("bare connection");

    // The two read the same thing.
    let cards = host.block_on(host.cards()).expect("cards");
    let rows = bare_cards(&conn);
    assert_eq!(cards.len(), PLUGINS);
    assert!(cards.iter().zip(&rows).all(|(card, row)| card.slug == row.0 && card.version == row.3));
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
    for _ in 0..2 {
        store_pair.push((
            median(|| drop(black_box(store.list().expect("list")))),
            median(|| drop(black_box(store.show(ONE).expect("show")))),
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
        "  split: the store's own list {store_list:?} ({:.1}x bare), show {store_show:?} ({:.1}x bare)",
        store_list.as_secs_f64() / cards_bare.as_secs_f64(),
        store_show.as_secs_f64() / details_bare.as_secs_f64()
    );
}

criterion_group! {
    name = benches;
    config = Criterion::default().sample_size(10).warm_up_time(Duration::from_millis(300)).measurement_time(Duration::from_secs(2));
    targets = bench
}
criterion_main!(benches);
