//! Every example in plugins-examples/ passes the validator with no warning,
//! with the levels the spec's examples describe (§2, §12, §20).

use dcp_format::risk::Level;
use dcp_format::{validate_manifest, Options};
use std::path::PathBuf;

fn examples() -> Vec<(String, Vec<u8>)> {
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../plugins-examples");
    let mut out: Vec<(String, Vec<u8>)> = std::fs::read_dir(&root)
        .expect("plugins-examples exists")
        .filter_map(|entry| {
            let dir = entry.ok()?.path();
            let bytes = std::fs::read(dir.join("manifest.json")).ok()?;
            Some((dir.file_name()?.to_string_lossy().into_owned(), bytes))
        })
        .collect();
    out.sort();
    out
}

#[test]
fn s20_every_example_is_valid_without_warnings() {
    let examples = examples();
    assert_eq!(examples.len(), 6, "six examples expected");
    for (name, bytes) in examples {
        let report = validate_manifest(&bytes, &Options::default());
        let all: Vec<String> =
            report.problems.errors.iter().chain(&report.problems.warnings).map(|p| p.to_string()).collect();
        assert!(all.is_empty(), "{name}:\n{}", all.join("\n"));
        assert!(report.plugin.is_some(), "{name}");
    }
}

#[test]
fn s12_example_levels_are_computed_as_the_guide_says() {
    let levels = |example: &str| -> Vec<(String, Level)> {
        let (_, bytes) = examples().into_iter().find(|(n, _)| n == example).expect("example exists");
        let plugin = validate_manifest(&bytes, &Options::default()).plugin.expect("valid");
        plugin.tools.iter().map(|t| (t.name.clone(), t.level)).collect()
    };
    let s = |n: &str| n.to_owned();
    assert_eq!(levels("exchange-rates"), vec![(s("convert"), Level::R0)]);
    assert_eq!(
        levels("my-tasks"),
        vec![(s("list_tasks"), Level::R1), (s("add_task"), Level::R2), (s("complete_task"), Level::R2)]
    );
    assert!(levels("local-server").iter().all(|(_, l)| *l == Level::R2), "a server on the PC is R2 at least");
    assert!(levels("pomodoro").iter().all(|(_, l)| *l == Level::R2));
    assert!(
        levels("recipe-search").contains(&(s("search"), Level::R0)),
        "a POST declared without side effects stays R0"
    );
    assert!(levels("trello-perso").contains(&(s("read_board"), Level::R1)));
}
