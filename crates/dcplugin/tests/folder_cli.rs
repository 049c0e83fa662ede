//! `dcplugin load-folder` of a folder inside the app's own plugins folder,
//! through the real binary on a temp profile (§19 "A folder inside the
//! app's own plugins folder is refused", §22 `bad_folder`): refused with
//! its code, and nothing in the profile deleted, by the refusal or by the
//! leftover sweep every command runs first.

mod support;

use serde_json::Value;
use std::path::{Path, PathBuf};
use support::{examples, files, json_of, Profile};

fn manifest(name: &str) -> PathBuf {
    examples().join(name).join("manifest.json")
}

/// Runs a `--json` command and returns its exit code and its object.
fn json_run(p: &Profile, args: &[&str]) -> (Option<i32>, Value) {
    let out = p.run(args);
    (out.status.code(), json_of(&out))
}

/// Every file under `dir` with its bytes.
fn snapshot(dir: &Path) -> Vec<(PathBuf, Vec<u8>)> {
    let mut all: Vec<_> = files(dir).into_iter().map(|f| (f.clone(), std::fs::read(&f).expect("read"))).collect();
    all.sort();
    all
}

#[test]
fn s19_s22_cli_load_folder_inside_the_plugins_folder_is_bad_folder_and_deletes_nothing() {
    let p = Profile::new();
    let fx = manifest("exchange-rates");
    let (code, _) = json_run(&p, &["import", fx.to_str().expect("utf-8"), "--yes", "--json"]);
    assert_eq!(code, Some(0));
    let (code, _) = json_run(&p, &["dev-mode", "on", "--json"]);
    assert_eq!(code, Some(0));
    let plugins = p.root().join("plugins");
    let generation = std::fs::read_dir(plugins.join("fx")).expect("slug folder").flatten().next().expect("gen").path();
    // The player's own copy, put inside the installed plugin's folder, and
    // one in a subfolder of a folder of their own.
    let mine = plugins.join("fx/mine");
    let deeper = plugins.join("mine/sub");
    for dir in [&mine, &deeper] {
        std::fs::create_dir_all(dir).expect("folder");
        std::fs::copy(manifest("pomodoro"), dir.join("manifest.json")).expect("copy");
    }
    let before = snapshot(&plugins);
    for dir in [&mine, &deeper, &generation, &plugins.join("fx"), &plugins, &p.root()] {
        let (code, v) = json_run(&p, &["load-folder", dir.to_str().expect("utf-8"), "--yes", "--json"]);
        assert_eq!((code, v["code"].as_str()), (Some(1), Some("bad_folder")), "{}: {v}", dir.display());
        assert_eq!(v["errors"][0]["code"], "bad_folder", "{v}");
    }
    assert_eq!(snapshot(&plugins), before, "nothing in the plugins folder changed");
    let (_, list) = json_run(&p, &["list", "--json"]);
    let cards: Vec<_> =
        list.as_array().expect("list").iter().map(|e| (e["slug"].clone(), e["status_label"].clone())).collect();
    assert_eq!(cards, vec![(Value::from("fx"), Value::from("Active"))], "only fx, still Active: {list}");
    assert!(generation.join("manifest.json").is_file(), "the installed manifest is still there");
}
