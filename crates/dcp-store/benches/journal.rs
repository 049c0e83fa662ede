//! The journal's speed targets (issue "tool calls"): listing the latest 200
//! entries stays fast with a million rows, printed as the ratio of that
//! listing to the same listing over 1,000 rows, measured in the same run;
//! and write throughput (entries per second through `journal_write`).

#![allow(missing_docs)] // criterion_group! generates an undocumented function

use criterion::{criterion_group, criterion_main, Criterion};
use dcp_store::journal::{Kind, NewEntry, Outcome, Source};
use dcp_store::{Profile, Store};
use dcp_vault::testing::MemoryKeyStore;
use std::hint::black_box;
use std::sync::Arc;
use std::time::{Duration, Instant};

/// A profile whose journal holds `rows` entries, filled in one transaction.
fn profile(rows: i64) -> (tempfile::TempDir, Store) {
    let dir = tempfile::tempdir().expect("dir");
    let store = Store::open(Profile::at(dir.path()).expect("profile"), Arc::new(MemoryKeyStore::new())).expect("store");
    let mut conn = rusqlite::Connection::open(dir.path().join("host.sqlite")).expect("db");
    let tx = conn.transaction().expect("tx");
    {
        let mut insert = tx
            .prepare("INSERT INTO journal (at, slug, action, who, outcome, code, subject) VALUES (?1, ?2, 'convert', 'voice', 'done', NULL, 'subject')")
            .expect("prepare");
        for i in 0..rows {
            let slug = if i % 10 == 0 { "rare" } else { "fx" };
            insert.execute(rusqlite::params![i, slug]).expect("insert");
        }
    }
    tx.commit().expect("commit");
    (dir, store)
}

fn median(mut f: impl FnMut()) -> Duration {
    let mut samples: Vec<Duration> = (0..41)
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
    let (_small_dir, small) = profile(1_000);
    let (_big_dir, big) = profile(1_000_000);
    c.bench_function("journal latest 200 of 1M", |b| b.iter(|| black_box(big.journal(200, None).expect("list"))));
    c.bench_function("journal latest 200 of one plugin, 1M rows", |b| {
        b.iter(|| black_box(big.journal(200, Some("rare")).expect("list")))
    });
    let base = median(|| drop(black_box(small.journal(200, None).expect("list"))));
    let million = median(|| drop(black_box(big.journal(200, None).expect("list"))));
    let base_plugin = median(|| drop(black_box(small.journal(200, Some("rare")).expect("list"))));
    let million_plugin = median(|| drop(black_box(big.journal(200, Some("rare")).expect("list"))));
    let writes = 2_000;
    let start = Instant::now();
    for _ in 0..writes {
        small
            .journal_write(&NewEntry {
                plugin: "fx",
                action: "convert",
                who: Source::Voice,
                kind: Kind::Call,
                outcome: Outcome::Done,
                code: None,
                subject: Some("x"),
                error: None,
                confirmation: None,
                client: None,
                ended_at: None,
            })
            .expect("write");
    }
    let per_second = writes as f64 / start.elapsed().as_secs_f64();
    println!("\njournal, same run:");
    println!(
        "  latest 200, 1M rows / 1k rows:             {:.2}x ({:?} vs {:?})",
        million.as_secs_f64() / base.as_secs_f64(),
        million,
        base
    );
    println!(
        "  latest 200 of one plugin, 1M rows / 1k:    {:.2}x ({:?} vs {:?})",
        million_plugin.as_secs_f64() / base_plugin.as_secs_f64(),
        million_plugin,
        base_plugin
    );
    println!("  writes: {per_second:.0} entries/s (one transaction each, WAL, synchronous=NORMAL)");
}

criterion_group! {
    name = benches;
    config = Criterion::default().sample_size(20).warm_up_time(Duration::from_millis(300)).measurement_time(Duration::from_secs(2));
    targets = bench
}
criterion_main!(benches);
