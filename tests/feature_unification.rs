//! `cargo build --lib` (CMake's cargo call) and `cargo test` compile the library once: every
//! crate the library links resolves to the same features with and without the dev-dependencies.
//! Otherwise cargo rebuilds those crates and the library at every switch between the two ("info of
//! dependency rayon changed").

use std::collections::{BTreeMap, BTreeSet};
use std::process::Command;

/// `package version` → its feature sets, per `cargo tree` over the given dependency kinds
/// (proc-macros and build-dependencies are left out: they are compiled for the host, apart).
fn features(edges: &str) -> BTreeMap<String, BTreeSet<String>> {
    let out = Command::new(env!("CARGO"))
        .args(["tree", "--prefix", "none", "--format", "{p}|{f}"])
        .args(["--edges", edges])
        .arg("--manifest-path")
        .arg(concat!(env!("CARGO_MANIFEST_DIR"), "/Cargo.toml"))
        .output()
        .expect("cargo tree runs");
    assert!(
        out.status.success(),
        "cargo tree: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    let mut map: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
    for line in String::from_utf8(out.stdout).unwrap().lines() {
        let (package, features) = line.trim_end_matches(" (*)").split_once('|').unwrap();
        // `{p}` of the root package ends with its path; drop it
        let package = package.split(" (").next().unwrap().to_string();
        map.entry(package).or_default().insert(features.to_string());
    }
    map
}

#[test]
fn dev_dependencies_turn_on_no_feature_of_the_library_dependencies() {
    let library = features("normal,no-proc-macro");
    let with_dev = features("normal,dev,no-proc-macro");
    let differ: Vec<String> = library
        .iter()
        .filter(|(package, f)| with_dev.get(*package) != Some(*f))
        .map(|(package, f)| format!("{package}: {f:?} without, {:?} with", with_dev[package]))
        .collect();
    assert!(library.len() > 5, "{library:?}");
    assert!(differ.is_empty(), "features differ: {differ:?}");
}
