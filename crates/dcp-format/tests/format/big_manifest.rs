//! The benchmark's 64 KB manifest stays valid and at the edge of §21's
//! limits, so the ratio it prints measures a real worst case.

use dcp_format::{limits, validate_manifest, Options};

#[test]
fn s21_the_benchmark_manifest_is_valid_and_close_to_64_kb() {
    let bytes = crate::support::big_manifest::big_manifest();
    assert!(bytes.len() as u64 <= limits::MANIFEST_BYTES, "{} bytes", bytes.len());
    assert!(bytes.len() as u64 > limits::MANIFEST_BYTES * 9 / 10, "{} bytes", bytes.len());
    let report = validate_manifest(&bytes, &Options::default());
    let errors: Vec<String> = report.problems.errors.iter().map(|p| p.to_string()).collect();
    assert!(errors.is_empty(), "{}", errors.join("\n"));
    let plugin = report.plugin.expect("valid");
    assert_eq!((plugin.tools.len(), plugin.settings.len(), plugin.events.len()), (15, 20, 10));
}
