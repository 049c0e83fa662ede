//! Feeds arbitrary bytes to the package reader as a .json or a .zip (the
//! first byte chooses), then validates any manifest it accepts. Neither may
//! panic, hang or allocate without bound, whatever the input.

#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Some((&choice, bytes)) = data.split_first() else {
        return;
    };
    let file_name = if choice % 2 == 0 { "plugin.json" } else { "plugin.zip" };
    if let Ok(package) = dcp_format::package::read_bytes(file_name, bytes) {
        let _ = dcp_format::validate_manifest(&package.manifest, &dcp_format::Options::default());
    }
});
