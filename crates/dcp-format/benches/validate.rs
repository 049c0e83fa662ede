//! Validation time against the time serde_json alone takes to parse the
//! same bytes into a `Value`, for each example and for a manifest of nearly
//! 64 KB. Target (issue "plugin format"): at most 3× for the 64 KB manifest.
//! The ratios are printed after criterion's own report.

#![allow(missing_docs)] // criterion_group! generates an undocumented function

#[path = "../tests/format/support/big_manifest.rs"]
mod big_manifest;

use criterion::{criterion_group, criterion_main, Criterion};
use dcp_format::{validate_manifest, Options};
use std::hint::black_box;
use std::path::PathBuf;
use std::time::{Duration, Instant};

fn inputs() -> Vec<(String, Vec<u8>)> {
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../plugins-examples");
    let mut inputs: Vec<(String, Vec<u8>)> = std::fs::read_dir(root)
        .into_iter()
        .flatten()
        .filter_map(|e| {
            let dir = e.ok()?.path();
            Some((dir.file_name()?.to_string_lossy().into_owned(), std::fs::read(dir.join("manifest.json")).ok()?))
        })
        .collect();
    inputs.sort();
    inputs.push(("big-64k".into(), big_manifest::big_manifest()));
    inputs
}

/// Median time of `f` over batches, for the ratio line.
fn median(mut f: impl FnMut()) -> Duration {
    let mut samples: Vec<Duration> = (0..31)
        .map(|_| {
            let start = Instant::now();
            for _ in 0..20 {
                f();
            }
            start.elapsed() / 20
        })
        .collect();
    samples.sort();
    samples[samples.len() / 2]
}

fn bench(c: &mut Criterion) {
    let options = Options::default();
    let mut ratios = Vec::new();
    for (name, bytes) in inputs() {
        let mut group = c.benchmark_group(&name);
        group.bench_function("serde_json", |b| {
            b.iter(|| serde_json::from_slice::<serde_json::Value>(black_box(&bytes)))
        });
        group.bench_function("validate", |b| b.iter(|| validate_manifest(black_box(&bytes), &options)));
        group.finish();
        let parse = median(|| drop(black_box(serde_json::from_slice::<serde_json::Value>(&bytes))));
        let validate = median(|| drop(black_box(validate_manifest(&bytes, &options))));
        ratios.push((name, bytes.len(), validate.as_secs_f64() / parse.as_secs_f64()));
    }
    println!("\nvalidation time / serde_json parse time (same bytes, same run):");
    for (name, len, ratio) in ratios {
        println!("  {name:<16} {len:>6} bytes  {ratio:>5.2}x");
    }
}

criterion_group! {
    name = benches;
    config = Criterion::default().sample_size(30).warm_up_time(Duration::from_millis(500)).measurement_time(Duration::from_secs(2));
    targets = bench
}
criterion_main!(benches);
