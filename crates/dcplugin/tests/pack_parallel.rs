//! `dcplugin pack` run several times at once into one folder: each pack
//! writes under its own temp name, so every one succeeds, the package left
//! under the final name is whole, and no temp file is left behind.

mod support;

use std::path::Path;
use support::{binary, examples, files, json_of, spawn};

/// How many packs run at the same time.
const PACKS: usize = 8;

fn pack(folder: &Path, out: &Path) -> std::process::Child {
    let mut command = binary();
    command.arg("pack").arg(folder).arg("-o").arg(out).arg("--json");
    command.stdout(std::process::Stdio::piped()).stderr(std::process::Stdio::piped());
    spawn(&mut command)
}

#[test]
fn packs_at_once_into_one_folder_all_succeed() {
    let dir = tempfile::tempdir().expect("temp dir");
    let same = dir.path().join("pomodoro.zip");
    // Every child is started before any is waited for: they run together,
    // half into one target name, half into names of their own.
    let children: Vec<_> = (0..PACKS)
        .map(|i| {
            let out = if i % 2 == 0 { same.clone() } else { dir.path().join(format!("pomodoro-{i}.zip")) };
            (out.clone(), pack(&examples().join("pomodoro"), &out))
        })
        .collect();
    for (out, child) in children {
        let output = child.wait_with_output().expect("dcplugin ends");
        assert_eq!(output.status.code(), Some(0), "{}", String::from_utf8_lossy(&output.stderr));
        assert_eq!(json_of(&output)["output"], out.to_str().expect("utf-8"));
    }
    let mut names: Vec<String> =
        files(dir.path()).iter().map(|p| p.file_name().expect("name").to_string_lossy().into_owned()).collect();
    names.sort();
    let mut expected: Vec<String> = std::iter::once("pomodoro.zip".to_owned())
        .chain((1..PACKS).step_by(2).map(|i| format!("pomodoro-{i}.zip")))
        .collect();
    expected.sort();
    assert_eq!(names, expected, "only the packages, no temp file");
    let mut check = binary();
    check.arg("validate").arg(&same).arg("--json");
    let check = check.output().expect("dcplugin runs");
    assert_eq!(check.status.code(), Some(0));
    assert_eq!(json_of(&check)["slug"], "pomodoro");
}

/// A package gets the mode any file written here gets, not a temp file's
/// owner-only one.
#[cfg(unix)]
#[test]
fn a_package_has_a_plain_files_mode() {
    use std::os::unix::fs::PermissionsExt;
    let dir = tempfile::tempdir().expect("temp dir");
    let out = dir.path().join("pomodoro.zip");
    let output = pack(&examples().join("pomodoro"), &out).wait_with_output().expect("dcplugin ends");
    assert_eq!(output.status.code(), Some(0), "{}", String::from_utf8_lossy(&output.stderr));
    let plain = dir.path().join("plain");
    std::fs::write(&plain, b"").expect("write");
    let mode = |p: &Path| std::fs::metadata(p).expect("metadata").permissions().mode() & 0o777;
    assert_eq!(mode(&out), mode(&plain));
}
