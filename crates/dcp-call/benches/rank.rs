//! The ranking of the offer (issue 34: "200 plugins × 15 tools: ranking
//! ≤ 1 ms"): the offer for a turn with the player's words (the tools
//! ranked, 30 of 3,000 kept) against the offer for the same turn without
//! words (the same courtier checks, the cut in slug order), measured in the
//! same run, interleaved: with the plugins' index kept, as the host keeps
//! it while no plugin changes, and made anew, as after a change. Printed:
//! the medians, their ratios, and the ranking's own time (the difference,
//! and `Index::keep` alone).

#![allow(missing_docs)] // criterion_group! generates an undocumented function

#[path = "../tests/catalog/mod.rs"]
mod catalog;

use criterion::{criterion_group, criterion_main, Criterion};
use dcp_call::offer::{offer, offer_with};
use dcp_call::rank::{Asked, Index};
use dcp_call::turn::{Place, Source, Turn};
use dcp_format::language::Language;
use dcp_format::limits::TOOLS_OFFERED;
use std::hint::black_box;
use std::sync::OnceLock;
use std::time::{Duration, Instant};

/// A sentence of the recall test's kind, of a usual length.
const WORDS: &str = "Is it going to rain tomorrow in Lyon, and should I take an umbrella?";

fn median(mut times: Vec<Duration>) -> Duration {
    times.sort();
    times[times.len() / 2]
}

fn timed(f: impl FnOnce()) -> Duration {
    let start = Instant::now();
    f();
    start.elapsed()
}

fn bench(c: &mut Criterion) {
    let plugins = catalog::contexts(Language::En);
    let index = Index::of(&plugins);
    let kept = OnceLock::from(Index::of(&plugins));
    let all: Vec<usize> = (0..3000).collect();
    let plain = Turn::new(Source::Voice, Place::Pc);
    let worded = Turn { words: WORDS.to_owned(), ..plain.clone() };
    let asked = Asked { words: WORDS, used: &[] };

    let mut group = c.benchmark_group("offer_200x15");
    group.bench_function("without_words", |b| b.iter(|| black_box(offer(&plain, &plugins))));
    group.bench_function("ranked_index_kept", |b| b.iter(|| black_box(offer_with(&worded, &plugins, &kept))));
    group.bench_function("ranked_index_made", |b| b.iter(|| black_box(offer(&worded, &plugins))));
    group.bench_function("index_keep_alone", |b| b.iter(|| black_box(index.keep(&all, TOOLS_OFFERED, asked))));
    group.finish();

    let runs = 300;
    let mut samples: [Vec<Duration>; 4] = Default::default();
    for _ in 0..runs {
        samples[0].push(timed(|| drop(black_box(offer(&plain, &plugins)))));
        samples[1].push(timed(|| drop(black_box(offer_with(&worded, &plugins, &kept)))));
        samples[2].push(timed(|| drop(black_box(offer(&worded, &plugins)))));
        samples[3].push(timed(|| drop(black_box(index.keep(&all, TOOLS_OFFERED, asked)))));
    }
    let [plain, kept, made, alone] = samples.map(median);
    let ratio = |d: Duration| d.as_secs_f64() / plain.as_secs_f64();
    println!("\noffer over 200 plugins x 15 tools, p50 over {runs} runs each (same run):");
    println!("  without words (slug order)      {plain:>10.1?}");
    println!("  ranked, index kept (the host)   {kept:>10.1?}   ranked / without = {:.2}x", ratio(kept));
    println!("  ranked, index made (changed)    {made:>10.1?}   ranked / without = {:.2}x", ratio(made));
    println!(
        "  the ranking: {:.1?} (kept - without), Index::keep alone {alone:.1?} (target <= 1 ms)",
        kept.saturating_sub(plain)
    );
}

criterion_group! {
    name = benches;
    config = Criterion::default().sample_size(30).warm_up_time(Duration::from_millis(500)).measurement_time(Duration::from_secs(3));
    targets = bench
}
criterion_main!(benches);
