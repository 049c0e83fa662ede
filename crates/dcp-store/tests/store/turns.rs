//! A turn's counters (§3, §12): its steps and the chat's one call, counted
//! per turn id and forgotten after a day.

use dcp_store::{Profile, Store};
use dcp_vault::testing::MemoryKeyStore;
use std::sync::Arc;
use std::time::Duration;

/// A store whose clock runs `behind` the system's: what it stamps is that old.
fn store_behind(dir: &std::path::Path, behind: Duration) -> Store {
    struct Behind(Duration);
    impl dcp_store::Clock for Behind {
        fn now(&self) -> std::time::SystemTime {
            std::time::SystemTime::now() - self.0
        }
    }
    let profile = Profile::at(dir).expect("profile");
    Store::open_with_clock(profile, Arc::new(MemoryKeyStore::new()), Arc::new(Behind(behind))).expect("store")
}

#[test]
fn s3_s12_a_turn_counts_its_steps_and_the_chats_one_call() {
    let dir = tempfile::tempdir().expect("dir");
    let s = store_behind(dir.path(), Duration::ZERO);
    assert_eq!(s.steps_used("t").expect("read"), 0, "a turn not seen yet has used none");
    assert_eq!(s.take_step("t", None).expect("step"), 1);
    assert_eq!(s.take_step("t", None).expect("step"), 2);
    // An online model's calls of one step share the number the caller gives.
    assert_eq!(s.take_step("t", Some(3)).expect("step"), 3);
    assert_eq!(s.take_step("t", Some(3)).expect("step"), 3);
    // A number below the highest is given back as asked and lowers nothing.
    assert_eq!(s.take_step("t", Some(1)).expect("step"), 1);
    assert_eq!(s.steps_used("t").expect("read"), 3);
    assert_eq!(s.take_step("t", None).expect("step"), 4);
    assert_eq!(s.steps_used("other").expect("read"), 0, "turns do not share steps");
    assert_eq!(s.take_chat_call("chat").expect("count"), 0, "the chat's first call");
    assert_eq!(s.take_chat_call("chat").expect("count"), 1);
    assert_eq!(s.take_chat_call("t").expect("count"), 0, "a turn's calls and steps are counted apart");
}

/// A turn's counts are forgotten after a day, when a turn starts, without
/// touching the recent ones, however many old ones there are.
#[test]
fn s3_turns_older_than_a_day_are_forgotten_when_a_turn_starts() {
    let dir = tempfile::tempdir().expect("dir");
    let day = dcp_store::turns::TURN_KEPT_SECONDS as u64;
    let old = store_behind(dir.path(), Duration::from_secs(day + 60));
    for n in 0..50 {
        old.take_step(&format!("old-{n}"), None).expect("step");
    }
    let young = store_behind(dir.path(), Duration::from_secs(day - 60));
    young.take_step("young", None).expect("step");
    let s = store_behind(dir.path(), Duration::ZERO);
    s.take_step("now", None).expect("step");
    assert_eq!(s.take_step("now", None).expect("step"), 2);
    assert_eq!(s.steps_used("old-0").expect("read"), 0, "forgotten");
    assert_eq!(s.steps_used("old-49").expect("read"), 0, "forgotten");
    assert_eq!(s.steps_used("young").expect("read"), 1, "not yet a day old: kept");
    assert_eq!(s.steps_used("now").expect("read"), 2);
    // The old turn ids are free again: a turn of that id starts anew.
    assert_eq!(s.take_step("old-7", None).expect("step"), 1);
}
