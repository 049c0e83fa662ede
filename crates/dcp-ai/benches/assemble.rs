//! Assembling a streamed answer against reading the same events into a
//! `Value` (issue 32, "Quadratic assembly"): 100,000 tool-call fragments
//! cost 15 s of CPU when each looked its call up by a backward scan. The
//! assembly of 10,000 and of 100,000 fragments is each timed beside
//! serde_json's parse of the same events, a linear baseline; the ratios
//! are printed after criterion's own report. Linear assembly keeps the
//! ratio at 100,000 near the one at 10,000; a quadratic one multiplies it
//! by about ten.
//!
//! Two shapes: each fragment opening a call of its own (distinct
//! `index`, the attack: past the cap they are dropped), and one call's
//! arguments spread over every fragment (a long argument, streamed).

#![allow(missing_docs)] // criterion_group! generates an undocumented function

use criterion::{criterion_group, criterion_main, Criterion};
use dcp_ai::assemble::Assembler;
use std::hint::black_box;
use std::time::{Duration, Instant};

/// The data of `n` events, each one fragment: a new call at index i, or
/// one piece of call 0's arguments.
fn events(n: usize, distinct: bool) -> Vec<String> {
    (0..n)
        .map(|i| {
            let fragment = match distinct {
                true => format!(r#"{{"index":{i},"id":"c{i}","function":{{"name":"x__y","arguments":""}}}}"#),
                false => r#"{"index":0,"function":{"arguments":"a"}}"#.to_owned(),
            };
            format!(r#"{{"choices":[{{"index":0,"delta":{{"tool_calls":[{fragment}]}}}}]}}"#)
        })
        .collect()
}

fn assemble(events: &[String]) -> usize {
    let mut asm = Assembler::new();
    for data in events {
        black_box(asm.feed(data).ok());
    }
    let reply = asm.finish();
    reply.tool_calls.len() + reply.dropped_calls
}

fn parse(events: &[String]) -> usize {
    events.iter().filter(|data| serde_json::from_str::<serde_json::Value>(data).is_ok()).count()
}

fn median(mut times: Vec<Duration>) -> Duration {
    times.sort();
    times[times.len() / 2]
}

/// Median times of assembling `events` and of parsing them, interleaved
/// so that a busy machine slows each alike.
fn timed(events: &[String], runs: usize) -> (Duration, Duration) {
    let mut times: [Vec<Duration>; 2] = Default::default();
    for _ in 0..runs {
        let start = Instant::now();
        black_box(assemble(events));
        times[0].push(start.elapsed());
        let start = Instant::now();
        black_box(parse(events));
        times[1].push(start.elapsed());
    }
    let [assembled, parsed] = times.map(median);
    (assembled, parsed)
}

fn bench(c: &mut Criterion) {
    let big = events(100_000, true);
    let mut group = c.benchmark_group("100,000 fragments, distinct calls");
    group.bench_function("assemble", |b| b.iter(|| assemble(black_box(&big))));
    group.bench_function("parse (baseline)", |b| b.iter(|| parse(black_box(&big))));
    group.finish();

    println!("\nassembly / parse of the same events (linear: alike at both sizes):");
    for (shape, distinct) in [("distinct calls", true), ("one call's arguments", false)] {
        let ratios: Vec<f64> = [10_000, 100_000]
            .into_iter()
            .map(|n| {
                let (assembled, parsed) = timed(&events(n, distinct), 15);
                let ratio = assembled.as_secs_f64() / parsed.as_secs_f64();
                println!("  {shape:>21}, {n:>7} fragments: {assembled:>10.1?} / {parsed:>10.1?} = {ratio:.2}x");
                ratio
            })
            .collect();
        let growth = ratios[1] / ratios[0];
        let verdict = if growth <= 2.0 { "linear" } else { "NOT LINEAR" };
        println!("  {shape:>21}: the ratio grew {growth:.2}x from 10,000 to 100,000 fragments: {verdict}");
    }
}

criterion_group! {
    name = benches;
    config = Criterion::default().sample_size(10).warm_up_time(Duration::from_millis(500)).measurement_time(Duration::from_secs(3));
    targets = bench
}
criterion_main!(benches);
