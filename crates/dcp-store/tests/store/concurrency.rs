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
