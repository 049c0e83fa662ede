//! One runtime a process (issue 33): a host given the shell's runtime (the
//! window gives Tauri's) runs its work there and starts none of its own;
//! a host given none (the command line) builds the one it runs on. A test
//! binary of its own, so that no other test's host adds threads. Threads
//! are read by name from Linux's `/proc`.

#![cfg(target_os = "linux")]

mod common;

use common::*;

/// The names of this process's threads.
fn thread_names() -> Vec<String> {
    let tasks = std::fs::read_dir("/proc/self/task").expect("/proc/self/task");
    tasks
        .flatten()
        .filter_map(|t| std::fs::read_to_string(t.path().join("comm")).ok())
        .map(|n| n.trim().to_owned())
        .collect()
}

fn count(names: &[String], name: &str) -> usize {
    names.iter().filter(|n| *n == name).count()
}

#[test]
fn issue33_a_host_runs_on_the_runtime_it_is_given_and_builds_one_only_when_given_none() {
    let window = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(1)
        .thread_name("the-window")
        .enable_all()
        .build()
        .expect("the window's runtime");
    let given = window.block_on(async { fixture_on_this_runtime() });
    window.block_on(dev_mode(&given.host, true));
    assert!(window.block_on(given.host.cards()).expect("cards").is_empty());
    let names = thread_names();
    assert_eq!(count(&names, "dcp-host"), 0, "no runtime of the host's: {names:?}");
    assert!(count(&names, "the-window") >= 2, "its worker, and a blocking thread for the store: {names:?}");

    let own = fixture();
    assert!(own.host.block_on(own.host.cards()).expect("cards").is_empty());
    assert!(count(&thread_names(), "dcp-host") >= 2, "given none, it builds one (two workers)");
}
