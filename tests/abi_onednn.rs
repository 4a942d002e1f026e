//! ABI proof against the real oneDNN (skipped, with a note, when its cache is absent).
//!
//! 1. `scripts/abi-diff.sh`: every name oneDNN's headers declare (macros, enumerators, enum
//!    types, typedefs, struct fields, functions), header by header, is declared by ours and no
//!    other `dnnl_`/`DNNL_` name; every value, enum size and signedness, typedef size, field
//!    offset and prototype agrees (strict against 3.13, the API we implement; against 3.2 the
//!    names one side lacks are listed).
//! 2. `tests/abi/smoke.c`, compiled against the REAL headers and linked against the real
//!    `libdnnl.so.3`, runs with our library standing in for `libdnnl.so.3`.
//!
//! The cache is the one `../shared/tools/onednn-setup.sh` fills: `$ONEDNN_CACHE`, else
//! `$XDG_CACHE_HOME/onednn-oracle`, else `~/.cache/onednn-oracle` (`<version>/.ok` marks a
//! complete version).

use std::fs;
use std::path::{Path, PathBuf};
use std::process::Command;

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

fn cache() -> Option<PathBuf> {
    if let Some(c) = std::env::var_os("ONEDNN_CACHE") {
        return Some(PathBuf::from(c));
    }
    if let Some(x) = std::env::var_os("XDG_CACHE_HOME") {
        return Some(PathBuf::from(x).join("onednn-oracle"));
    }
    std::env::var_os("HOME").map(|h| PathBuf::from(h).join(".cache").join("onednn-oracle"))
}

/// `<cache>/<version>` when that version is complete.
fn oracle(version: &str) -> Option<PathBuf> {
    let dir = cache()?.join(version);
    (dir.join(".ok").is_file() && dir.join("include/oneapi/dnnl/dnnl.h").is_file()).then_some(dir)
}

fn have_gcc() -> bool {
    Command::new("gcc")
        .arg("--version")
        .output()
        .map(|o| o.status.success())
        .unwrap_or(false)
}

fn scratch(name: &str) -> PathBuf {
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR"))
        .join("abi-onednn")
        .join(name);
    let _ = fs::remove_dir_all(&dir);
    fs::create_dir_all(&dir).unwrap();
    dir
}

/// `target/<profile>/liboxidnn.so`, next to this test's `deps/` directory.
fn built_cdylib() -> Option<PathBuf> {
    let exe = std::env::current_exe().ok()?;
    let so = exe.parent()?.parent()?.join("liboxidnn.so");
    so.is_file().then_some(so)
}

fn show(out: &std::process::Output) -> String {
    format!(
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    )
}

#[test]
fn header_values_layouts_and_prototypes_match_onednn() {
    if !have_gcc() {
        eprintln!("note: gcc not found; skipping the oneDNN ABI comparison");
        return;
    }
    let python = Command::new("python3").arg("--version").output();
    if !python.is_ok_and(|o| o.status.success()) {
        eprintln!("note: python3 not found (scripts/abi-diff.sh needs it); skipping");
        return;
    }
    let mut compared = 0;
    for (version, strict) in [("3.13", true), ("3.2", false)] {
        let Some(dir) = oracle(version) else {
            eprintln!("note: oneDNN {version} not in the oracle cache; not compared");
            continue;
        };
        let mut cmd = Command::new("bash");
        cmd.arg(root().join("scripts/abi-diff.sh"));
        if !strict {
            cmd.arg("--allow-missing");
        }
        let out = cmd
            .arg(dir.join("include"))
            .arg(root().join("include"))
            .output()
            .unwrap();
        eprintln!("[oneDNN {version}]\n{}", show(&out));
        assert!(
            out.status.success(),
            "our header differs from oneDNN {version}'s:\n{}",
            show(&out)
        );
        compared += 1;
    }
    if compared == 0 {
        eprintln!(
            "note: no oneDNN oracle found (run ../shared/tools/onednn-setup.sh 3.2); skipped"
        );
    }
}

#[test]
fn program_built_against_onednn_runs_on_oxidnn() {
    if !have_gcc() {
        eprintln!("note: gcc not found; skipping");
        return;
    }
    let Some(so) = built_cdylib() else {
        eprintln!("note: liboxidnn.so not built next to the test binary; skipping");
        return;
    };
    let mut ran = 0;
    for version in ["3.2", "3.13"] {
        let Some(onednn) = oracle(version) else {
            continue;
        };
        let dir = scratch(version);
        // our library under oneDNN's SONAME, alone in its directory
        let fake = dir.join("as_libdnnl");
        fs::create_dir_all(&fake).unwrap();
        fs::copy(&so, fake.join("libdnnl.so.3")).unwrap();
        let exe = dir.join("smoke");
        let lib = onednn.join("lib");
        let out = Command::new("gcc")
            .args(["-std=c99", "-Wall", "-Wextra", "-Werror", "-I"])
            .arg(onednn.join("include"))
            .arg(root().join("tests/abi/smoke.c"))
            .arg("-o")
            .arg(&exe)
            .arg(format!("-L{}", lib.display()))
            .arg(format!("-Wl,-rpath-link,{}", lib.display()))
            .arg("-ldnnl")
            .output()
            .unwrap();
        assert!(
            out.status.success(),
            "smoke.c does not build against oneDNN {version}:\n{}",
            show(&out)
        );
        // the loader must pick our copy
        if let Ok(ldd) = Command::new("ldd")
            .arg(&exe)
            .env("LD_LIBRARY_PATH", &fake)
            .output()
        {
            let text = String::from_utf8_lossy(&ldd.stdout);
            let line = text
                .lines()
                .find(|l| l.contains("libdnnl.so.3"))
                .unwrap_or("");
            assert!(
                line.contains(&*fake.to_string_lossy()),
                "libdnnl.so.3 does not resolve to our copy: {line}"
            );
        }
        let out = Command::new(&exe)
            .env("LD_LIBRARY_PATH", &fake)
            .output()
            .unwrap();
        eprintln!(
            "[built against oneDNN {version}, run on oxidnn]\n{}",
            show(&out)
        );
        assert!(
            out.status.success(),
            "a program built against oneDNN {version} fails on oxidnn (as libdnnl.so.3):\n{}",
            show(&out)
        );
        ran += 1;
    }
    if ran == 0 {
        eprintln!(
            "note: no oneDNN oracle found (run ../shared/tools/onednn-setup.sh 3.2); skipped"
        );
    }
}

/// Names of the `dnnl_*` functions a C program sees after including the real oneDNN's
/// `dnnl.h` and `dnnl_debug.h` (preprocessed, so declarations under `DNNL_EXPERIMENTAL_*` are
/// left out; the graph API lives in other headers).
fn real_dnnl_h_functions(include: &Path, dir: &Path) -> Vec<String> {
    let src = dir.join("list.c");
    fs::write(
        &src,
        "#include <oneapi/dnnl/dnnl.h>\n#include <oneapi/dnnl/dnnl_debug.h>\n",
    )
    .unwrap();
    let out = Command::new("gcc")
        .args(["-E", "-P", "-I"])
        .arg(include)
        .arg(&src)
        .output()
        .unwrap();
    assert!(out.status.success(), "gcc -E dnnl.h: {}", show(&out));
    let text = String::from_utf8_lossy(&out.stdout);
    let mut names: Vec<String> = Vec::new();
    let bytes = text.as_bytes();
    let mut i = 0;
    while let Some(p) = text[i..].find("dnnl_") {
        let start = i + p;
        let boundary =
            start == 0 || !(bytes[start - 1].is_ascii_alphanumeric() || bytes[start - 1] == b'_');
        let end = start
            + text[start..]
                .find(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
                .unwrap_or(text.len() - start);
        if boundary && text[end..].trim_start().starts_with('(') {
            names.push(text[start..end].to_string());
        }
        i = end;
    }
    names.sort();
    names.dedup();
    names
}

#[test]
fn every_function_of_onednn_dnnl_h_and_dnnl_debug_h_is_exported() {
    let (Some(dir), Some(so)) = (oracle("3.13"), built_cdylib()) else {
        eprintln!("note: oneDNN 3.13 not cached or liboxidnn.so not built; not compared");
        return;
    };
    if !have_gcc() {
        eprintln!("note: gcc not found; not compared");
        return;
    }
    let work = scratch("dnnl_h_functions");
    let wanted = real_dnnl_h_functions(&dir.join("include"), &work);
    assert!(
        wanted.len() > 150 && wanted.iter().any(|n| n == "dnnl_sgemm"),
        "could not list oneDNN's functions: {wanted:?}"
    );
    let nm = Command::new("nm")
        .args(["-D", "--defined-only"])
        .arg(&so)
        .output()
        .unwrap();
    assert!(nm.status.success(), "nm: {}", show(&nm));
    let exported: std::collections::BTreeSet<String> = String::from_utf8_lossy(&nm.stdout)
        .lines()
        .filter_map(|l| l.split_whitespace().nth(2).map(str::to_string))
        .collect();
    let missing: Vec<_> = wanted.iter().filter(|n| !exported.contains(*n)).collect();
    assert!(
        missing.is_empty(),
        "oneDNN 3.13's dnnl.h/dnnl_debug.h declare functions liboxidnn.so does not export: \
         {missing:?}"
    );
}
