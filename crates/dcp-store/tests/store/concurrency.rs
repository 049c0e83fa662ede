//! Two stores on one profile at once, as the app and `dcplugin` are (§18).

use crate::common::*;
use dcp_store::{Profile, Store};
use std::sync::{Arc, Barrier};

#[test]
fn s18_one_review_installed_by_two_processes_at_once_installs_once() {
    for _ in 0..5 {
        let f = Fixture::new();
        let r = f.import_example("exchange-rates").expect("import");
        let barrier = Arc::new(Barrier::new(2));
        let threads: Vec<_> = (0..2)
            .map(|_| {
                let (root, keys, barrier, id) = (f.root(), f.keys.clone(), barrier.clone(), r.review.clone());
                std::thread::spawn(move || {
                    let store = Store::open(Profile::at(root).expect("profile"), keys).expect("open");
                    barrier.wait();
                    store.install(&id, options(&[], &[], None)).is_ok()
                })
            })
            .collect();
        let oks = threads.into_iter().map(|t| t.join().expect("thread")).filter(|ok| *ok).count();
        assert_eq!(oks, 1, "exactly one install succeeds");
        let d = f.store.show("fx").expect("show");
        assert_eq!(d.card.status, Status::Active);
        assert_eq!(
            std::fs::read_dir(f.root().join("plugins/fx")).expect("slug dir").count(),
            1,
            "no orphan generation"
        );
        let check: String = f.sql().query_row("PRAGMA integrity_check", [], |r| r.get(0)).expect("check");
        assert_eq!(check, "ok");
    }
}

/// Issue 32: a copy is deleted through `trash/`, and every store's sweep at
/// open empties `trash/`: a sweep must not fail on the files of a copy
/// another process is deleting at that moment (a `dcplugin list` failed
/// "No such file or directory" beside an import in a clean-clone run).
#[test]
fn s18_issue32_a_sweep_beside_a_deletion_in_another_store_does_not_fail() {
    let f = Fixture::new();
    let done = Arc::new(std::sync::atomic::AtomicBool::new(false));
    let (root, keys, stop) = (f.root(), f.keys.clone(), done.clone());
    let sweeper = std::thread::spawn(move || {
        let mut opened = 0;
        while !stop.load(std::sync::atomic::Ordering::SeqCst) {
            Store::open(Profile::at(root.clone()).expect("profile"), keys.clone()).expect("a sweep beside a deletion");
            opened += 1;
        }
        opened
    });
    for _ in 0..150 {
        let review = f.import_example("exchange-rates").expect("import");
        f.store.cancel(&review.review).expect("cancel: its copy deleted through trash/");
    }
    done.store(true, std::sync::atomic::Ordering::SeqCst);
    assert!(sweeper.join().expect("no sweep failed") > 0, "the sweeps ran beside the deletions");
    assert_eq!(std::fs::read_dir(f.root().join("trash")).map(|d| d.count()).unwrap_or(0), 0, "trash/ emptied");
}
