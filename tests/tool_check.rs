//! `scripts/example.sh` and `scripts/test.sh` check their tools before building anything
//! (`scripts/lib/tools.sh`): with tools missing and `OXIDNN_INSTALL_TOOLS=0` they stop at once,
//! naming the tools and the apt command, with exit status 1.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

/// A directory of symlinks to every command on `PATH` except `hidden`: `PATH` without them.
fn path_without(hidden: &[&str], dir: &Path) -> PathBuf {
    let bin = dir.join("bin");
    std::fs::create_dir_all(&bin).unwrap();
    for entry in std::env::split_paths(&std::env::var_os("PATH").unwrap())
        .filter_map(|d| std::fs::read_dir(d).ok())
        .flatten()
        .flatten()
    {
        let name = entry.file_name();
        let link = bin.join(&name);
        if !hidden.iter().any(|h| name == **h) && !link.exists() {
            std::os::unix::fs::symlink(entry.path(), link).unwrap();
        }
    }
    bin
}

/// Runs `scripts/<script>` with `PATH` lacking `hidden` and tools never installed; also says
/// whether its build directory was created.
fn run(script: &str, hidden: &[&str], env: &[(&str, &str)]) -> (Output, bool) {
    let dir = std::env::temp_dir().join(format!(
        "oxidnn-tool-check-{}-{script}-{}",
        std::process::id(),
        hidden.len()
    ));
    let _ = std::fs::remove_dir_all(&dir);
    let bin = path_without(hidden, &dir);
    let build = dir.join("build");
    let out = Command::new("bash")
        .arg(
            Path::new(env!("CARGO_MANIFEST_DIR"))
                .join("scripts")
                .join(script),
        )
        .env("PATH", bin)
        .env("OXIDNN_INSTALL_TOOLS", "0")
        .env("BUILD_DIR", &build)
        .env_remove("OXIDNN_TEST_VALGRIND")
        .envs(env.iter().copied())
        .output()
        .expect("bash runs");
    let built = build.exists();
    std::fs::remove_dir_all(&dir).unwrap();
    (out, built)
}

fn stderr(out: &Output) -> String {
    String::from_utf8_lossy(&out.stderr).into_owned()
}

#[test]
fn example_sh_without_cmake_stops_before_building() {
    let (out, built) = run("example.sh", &["cmake"], &[]);
    assert_eq!(out.status.code(), Some(1), "{}", stderr(&out));
    assert_eq!(
        stderr(&out),
        "example.sh: cannot start, tools are missing (nothing was built):\n  \
         missing cmake: install with  sudo apt-get install -y cmake\n"
    );
    assert!(
        out.stdout.is_empty(),
        "{}",
        String::from_utf8_lossy(&out.stdout)
    );
    assert!(!built);
}

#[test]
fn test_sh_names_every_missing_tool_before_the_first_step() {
    let hidden = ["cmake", "c++", "readelf", "valgrind"];
    let (out, built) = run("test.sh", &hidden, &[]);
    assert_eq!(out.status.code(), Some(1), "{}", stderr(&out));
    assert!(
        stderr(&out).contains(
            "missing g++ cmake binutils valgrind: install with  \
             sudo apt-get install -y g++ cmake binutils valgrind\n"
        ),
        "{}",
        stderr(&out)
    );
    assert!(
        out.stdout.is_empty(),
        "{}",
        String::from_utf8_lossy(&out.stdout)
    );
    assert!(!built);
    // without the valgrind tests, valgrind is not needed
    let (out, _) = run("test.sh", &hidden, &[("OXIDNN_TEST_VALGRIND", "0")]);
    assert_eq!(out.status.code(), Some(1));
    assert!(
        stderr(&out).contains("missing g++ cmake binutils: install"),
        "{}",
        stderr(&out)
    );
}

#[test]
fn missing_tools_are_installed_with_apt_get_as_root() {
    let dir = std::env::temp_dir().join(format!("oxidnn-tool-install-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    let bin = path_without(&["cmake", "id", "apt-get", "sudo"], &dir);
    let cmake = std::env::split_paths(&std::env::var_os("PATH").unwrap())
        .map(|d| d.join("cmake"))
        .find(|p| p.exists())
        .expect("cmake on PATH");
    // root, and an apt-get that logs its arguments and "installs" cmake
    let script = |name: &str, body: String| {
        let path = bin.join(name);
        std::fs::write(&path, format!("#!/bin/sh\n{body}\n")).unwrap();
        std::fs::set_permissions(&path, std::os::unix::fs::PermissionsExt::from_mode(0o755))
            .unwrap();
    };
    script("id", "echo 0".into());
    let log = dir.join("apt.log");
    script(
        "apt-get",
        format!(
            "echo \"$DEBIAN_FRONTEND $*\" >> {0}\nln -sf {1} {2}",
            log.display(),
            cmake.display(),
            bin.join("cmake").display()
        ),
    );
    let out = Command::new("bash")
        .args([
            "-c",
            ". scripts/lib/tools.sh && oxidnn_require_tools t cc cmake",
        ])
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .env("PATH", &bin)
        .env_remove("OXIDNN_INSTALL_TOOLS")
        .env_remove("DEBIAN_FRONTEND")
        .output()
        .expect("bash runs");
    assert!(out.status.success(), "{}", stderr(&out));
    assert_eq!(
        String::from_utf8_lossy(&out.stdout),
        "t: installing cmake with apt-get\n"
    );
    assert_eq!(
        std::fs::read_to_string(&log).unwrap(),
        " update -q\nnoninteractive install -y -q --no-install-recommends cmake\n"
    );
    std::fs::remove_dir_all(&dir).unwrap();
}
