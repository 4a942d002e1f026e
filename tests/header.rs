//! The public C headers: `include/oxidnn.h` is what cbindgen makes of `src/capi/` (drift check,
//! `OXIDNN_BLESS_HEADER=1` rewrites it), every header compiles alone as C99 and as C++, every
//! export is declared, the opaque handles stay opaque, and the version macros agree with
//! `dnnl_version()`.

use std::collections::BTreeSet;
use std::fs;
use std::path::{Path, PathBuf};
use std::process::Command;

const BLESS_ENV: &str = "OXIDNN_BLESS_HEADER";

/// The public headers, relative to `include/`.
const PUBLIC_HEADERS: &[&str] = &[
    "oxidnn.h",
    "dnnl.h",
    "dnnl_types.h",
    "dnnl_debug.h",
    "oneapi/dnnl/dnnl.h",
    "oneapi/dnnl/dnnl_types.h",
    "oneapi/dnnl/dnnl_debug.h",
];

/// The C handle types of DESIGN §2 (each `dnnl_<name>_t` points to an opaque `struct dnnl_<name>`).
const HANDLES: &[&str] = &[
    "engine",
    "stream",
    "memory_desc",
    "memory",
    "primitive_attr",
    "primitive_desc",
    "primitive",
];

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

fn header_path() -> PathBuf {
    root().join("include").join("oxidnn.h")
}

/// `pub type`, `pub struct` and `pub const` names declared in `src/capi/types.rs`.
fn types_rs_items(kind: &str) -> Vec<String> {
    let text = fs::read_to_string(root().join("src").join("capi").join("types.rs")).unwrap();
    let prefix = format!("pub {kind} ");
    text.lines()
        .filter_map(|l| l.trim().strip_prefix(prefix.as_str()))
        .map(|rest| {
            rest.chars()
                .take_while(|c| c.is_alphanumeric() || *c == '_')
                .collect()
        })
        .filter(|name: &String| !name.is_empty())
        .collect()
}

/// Runs the pinned cbindgen on `src/capi/` with `cbindgen.toml`, in memory. Every `pub type`
/// and `pub struct` of `src/capi/types.rs` is exported even when no function uses it yet.
fn generate() -> String {
    let mut config = cbindgen::Config::from_file(root().join("cbindgen.toml"))
        .expect("cbindgen.toml is readable and valid");
    for t in types_rs_items("type")
        .into_iter()
        .chain(types_rs_items("struct"))
    {
        if !config.export.include.contains(&t) {
            config.export.include.push(t);
        }
    }
    let stubs = Path::new(env!("CARGO_TARGET_TMPDIR")).join("oxidnn-unimplemented-expanded.rs");
    fs::write(&stubs, expanded_stubs()).unwrap();
    let bindings = cbindgen::Builder::new()
        .with_config(config)
        .with_src(root().join("src").join("capi").join("mod.rs"))
        .with_src(&stubs)
        .generate()
        .expect("cbindgen could not process src/capi/");
    let mut out = Vec::new();
    bindings.write(&mut out);
    String::from_utf8(out).expect("cbindgen wrote UTF-8")
}

/// One function of the `unimplemented_fns!` blocks of `src/capi/unimplemented.rs`.
struct Stub {
    name: String,
    params: String,
    ret: String,
    value: String,
}

/// The functions `src/capi/unimplemented.rs` generates with its macro, which cbindgen cannot
/// expand: one per line inside each `unimplemented_fns! {` block, `name(params);` (returns
/// `dnnl_unimplemented`) or `name(params) -> type = value;`.
fn macro_stubs() -> Vec<Stub> {
    let path = root().join("src").join("capi").join("unimplemented.rs");
    let text = fs::read_to_string(path).unwrap();
    let mut out = Vec::new();
    let mut inside = false;
    for line in text.lines() {
        let t = line.trim();
        if t == "unimplemented_fns! {" {
            inside = true;
        } else if inside && t == "}" {
            inside = false;
        } else if inside {
            let (open, close) = (t.find('(').unwrap(), t.rfind(')').unwrap());
            let tail = t[close + 1..].trim().trim_end_matches(';');
            let (ret, value) = match tail.strip_prefix("->") {
                Some(r) => {
                    let (ty, v) = r.split_once('=').expect("`-> type = value;`");
                    (ty.trim().to_string(), v.trim().to_string())
                }
                None => (
                    "dnnl_status_t".to_string(),
                    "dnnl_unimplemented".to_string(),
                ),
            };
            out.push(Stub {
                name: t[..open].to_string(),
                params: t[open + 1..close].to_string(),
                ret,
                value,
            });
        }
    }
    out
}

/// The macro's functions written out, for cbindgen (same prototypes and doc lines).
fn expanded_stubs() -> String {
    macro_stubs()
        .iter()
        .map(|s| {
            format!(
                "/// `{}`: not implemented, returns `{}`.\n#[unsafe(no_mangle)]\n\
                 pub extern \"C\" fn {}({}) -> {} {{ loop {{}} }}\n",
                s.name, s.value, s.name, s.params, s.ret
            )
        })
        .collect()
}

fn blessing() -> bool {
    std::env::var_os(BLESS_ENV).is_some_and(|v| v != "0")
}

/// `include/oxidnn.h` as committed. While blessing, the first caller regenerates and writes
/// it, so every test of the run sees (and compiles) the new text.
fn committed_header() -> String {
    static BLESSED: std::sync::Once = std::sync::Once::new();
    if blessing() {
        BLESSED.call_once(|| {
            fs::write(header_path(), generate()).unwrap();
            eprintln!("{BLESS_ENV}: wrote {}", header_path().display());
        });
    }
    fs::read_to_string(header_path()).unwrap_or_default()
}

/// Scratch directory for one test.
fn scratch(name: &str) -> PathBuf {
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR"))
        .join("header-tests")
        .join(name);
    let _ = fs::remove_dir_all(&dir);
    fs::create_dir_all(&dir).unwrap();
    dir
}

fn have(tool: &str) -> bool {
    Command::new(tool)
        .arg("--version")
        .output()
        .map(|o| o.status.success())
        .unwrap_or(false)
}

/// The names after `#[unsafe(no_mangle)]` (or `#[no_mangle]`) in `src/capi/**.rs` (not in
/// `src/capi/tests/`), plus the functions of the `unimplemented_fns!` blocks.
fn exported_fns() -> BTreeSet<String> {
    fn walk(dir: &Path, out: &mut BTreeSet<String>) {
        let mut entries: Vec<_> = fs::read_dir(dir)
            .unwrap()
            .map(|e| e.unwrap().path())
            .collect();
        entries.sort();
        for p in entries {
            if p.is_dir() {
                // `src/capi/tests/` is `#[cfg(test)]`: its exports are not in the library
                if p.file_name().is_some_and(|n| n != "tests") {
                    walk(&p, out);
                }
            } else if p.extension().is_some_and(|e| e == "rs") {
                let text = fs::read_to_string(&p).unwrap();
                let mut pending = false;
                for line in text.lines() {
                    let t = line.trim();
                    if t.starts_with("#[unsafe(no_mangle)]") || t.starts_with("#[no_mangle]") {
                        pending = true;
                    } else if pending {
                        if let Some(i) = t.find("fn ") {
                            if t.contains("extern") {
                                let name: String = t[i + 3..]
                                    .chars()
                                    .take_while(|c| c.is_alphanumeric() || *c == '_')
                                    .collect();
                                // `fn $name(` in a macro: its lines are macro_stubs()
                                if !name.is_empty() {
                                    out.insert(name);
                                }
                                pending = false;
                            }
                        }
                    }
                }
            }
        }
    }
    let mut out = BTreeSet::new();
    walk(&root().join("src").join("capi"), &mut out);
    out.extend(macro_stubs().into_iter().map(|s| s.name));
    out
}

/// Function names declared in a header (an identifier followed by `(` at the start of a
/// declaration line, as cbindgen writes them).
fn declared_fns(header: &str) -> BTreeSet<String> {
    let mut out = BTreeSet::new();
    let mut in_comment = false;
    for line in header.lines() {
        let t = line.trim();
        if in_comment {
            in_comment = !t.contains("*/");
            continue;
        }
        if t.starts_with("/*") {
            in_comment = !t.contains("*/");
            continue;
        }
        if t.starts_with('#') || t.starts_with("typedef") || t.starts_with("//") {
            continue;
        }
        if let Some(p) = t.find('(') {
            let before = &t[..p];
            let name: String = before
                .chars()
                .rev()
                .take_while(|c| c.is_alphanumeric() || *c == '_')
                .collect::<Vec<_>>()
                .into_iter()
                .rev()
                .collect();
            // a declaration has a return type before the name
            if !name.is_empty() && before.trim_end().len() > name.len() {
                out.insert(name);
            }
        }
    }
    out
}

#[test]
fn generated_header_matches_committed() {
    let old = committed_header();
    let fresh = generate();
    if old == fresh {
        return;
    }
    let (o, n): (Vec<_>, Vec<_>) = (old.lines().collect(), fresh.lines().collect());
    let first = o
        .iter()
        .zip(&n)
        .position(|(a, b)| a != b)
        .unwrap_or(o.len().min(n.len()));
    let mut msg = format!(
        "include/oxidnn.h is out of date with src/capi/ (first difference at line {}).\n",
        first + 1
    );
    for (tag, lines) in [("committed", &o), ("generated", &n)] {
        msg += &format!("--- {tag}:\n");
        for l in lines.iter().skip(first).take(8) {
            msg += &format!("    {l}\n");
        }
    }
    msg += &format!(
        "Regenerate it with:  {BLESS_ENV}=1 cargo test --release --test header\n\
         and commit include/oxidnn.h."
    );
    panic!("{msg}");
}

#[test]
fn every_export_is_declared_in_the_header() {
    let header = committed_header();
    let declared = declared_fns(&header);
    let exported = exported_fns();
    assert!(
        !exported.is_empty(),
        "no #[unsafe(no_mangle)] functions found in src/capi"
    );
    let missing: Vec<_> = exported.difference(&declared).collect();
    assert!(
        missing.is_empty(),
        "exported from src/capi but not declared in include/oxidnn.h: {missing:?}\n\
         (regenerate: {BLESS_ENV}=1 cargo test --release --test header)"
    );
    let extra: Vec<_> = declared.difference(&exported).collect();
    assert!(
        extra.is_empty(),
        "declared in include/oxidnn.h but not exported: {extra:?}"
    );
}

#[test]
fn handles_are_opaque_pointer_typedefs() {
    let header = committed_header();
    for h in HANDLES {
        let tag = format!("dnnl_{h}");
        let declared = [
            format!("typedef struct {tag} *{tag}_t;"),
            format!("typedef {tag} *{tag}_t;"),
        ];
        assert!(
            declared.iter().any(|d| header.contains(d.as_str())),
            "include/oxidnn.h lacks the handle typedef `{tag}_t` (pointer to opaque struct {tag})"
        );
        let const_declared = [
            format!("typedef const struct {tag} *const_{tag}_t;"),
            format!("typedef const {tag} *const_{tag}_t;"),
        ];
        if *h == "engine" {
            // oneDNN has no const engine handle (its typedef is under `#if 0`)
            assert!(
                !header.contains("const_dnnl_engine_t"),
                "oneDNN has no const_dnnl_engine_t"
            );
        } else {
            assert!(
                const_declared.iter().any(|d| header.contains(d.as_str())),
                "include/oxidnn.h lacks `const_{tag}_t`"
            );
        }
        assert!(
            header.contains(&format!("typedef struct {tag} {tag};"))
                || header.contains(&format!("struct {tag};")),
            "include/oxidnn.h lacks the forward declaration of struct {tag}"
        );
        assert!(
            !header.contains(&format!("struct {tag} {{")),
            "include/oxidnn.h gives struct {tag} a body; handles must stay opaque"
        );
    }
}

#[test]
fn every_item_of_types_rs_is_in_the_header() {
    let header = committed_header();
    let mut missing = Vec::new();
    for kind in ["type", "struct", "const"] {
        for name in types_rs_items(kind) {
            let found = header.lines().any(|l| {
                let l = l.trim();
                (l.starts_with("#define ") && l[8..].split_whitespace().next() == Some(&name))
                    || (l.starts_with("typedef") && l.trim_end_matches(';').ends_with(&name))
                    || l.ends_with(&format!("}} {name};"))
                    || l.starts_with(&format!("typedef struct {name} "))
                    || l.contains(&format!(" {name}["))
            });
            if !found {
                missing.push(format!("{kind} {name}"));
            }
        }
    }
    assert!(
        missing.is_empty(),
        "src/capi/types.rs declares items include/oxidnn.h lacks (cbindgen skipped them: macro-\
         generated, not #[repr(C)], or an expression it cannot translate): {missing:?}"
    );
}

#[test]
fn version_macros_are_present() {
    let header = committed_header();
    for m in [
        "#define DNNL_VERSION_MAJOR 3",
        "#define DNNL_VERSION_MINOR 13",
        "#define DNNL_VERSION_PATCH 0",
        "#define DNNL_MEMORY_ALLOCATE ((void *)(size_t)-1)",
        "#define DNNL_MEMORY_NONE (NULL)",
        "#define DNNL_RUNTIME_DIM_VAL",
    ] {
        assert!(header.contains(m), "include/oxidnn.h lacks `{m}`");
    }
}

/// Compiles `src` (a file in `dir`) with `compiler` and `flags`; panics with the compiler output.
fn compile(compiler: &str, flags: &[&str], src: &Path, what: &str) {
    let include = root().join("include");
    let out = Command::new(compiler)
        .args(flags)
        .arg("-I")
        .arg(&include)
        .arg("-fsyntax-only")
        .arg(src)
        .output()
        .unwrap_or_else(|e| panic!("cannot run {compiler}: {e}"));
    let stderr = String::from_utf8_lossy(&out.stderr);
    let hint = if stderr.contains("unknown type name") || stderr.contains("does not name a type") {
        "\nhint: a type the header uses is not declared. cbindgen cannot see macro-generated \
         items (the `opaque!` handles of src/capi/types.rs): declare such handles in the \
         `after_includes` block of cbindgen.toml, or write the struct out in Rust."
    } else if stderr.contains("redefinition of typedef") || stderr.contains("conflicting") {
        "\nhint: declared twice? If src/capi now declares a handle struct itself, remove it from \
         the `after_includes` block of cbindgen.toml."
    } else {
        ""
    };
    assert!(
        out.status.success(),
        "{what} does not compile with `{compiler} {}`:\n{}{stderr}{hint}",
        flags.join(" "),
        String::from_utf8_lossy(&out.stdout),
    );
}

const C_FLAGS: &[&str] = &[
    "-x",
    "c",
    "-std=c99",
    "-Wall",
    "-Wextra",
    "-pedantic",
    "-Werror",
    "-Wstrict-prototypes",
];
const CXX11_FLAGS: &[&str] = &[
    "-x",
    "c++",
    "-std=c++11",
    "-Wall",
    "-Wextra",
    "-pedantic",
    "-Werror",
];
const CXX17_FLAGS: &[&str] = &[
    "-x",
    "c++",
    "-std=c++17",
    "-Wall",
    "-Wextra",
    "-pedantic",
    "-Werror",
];

#[test]
fn each_header_compiles_alone_as_c99_and_cpp() {
    let (gcc, gxx) = (have("gcc"), have("g++"));
    if !gcc {
        eprintln!("note: gcc not found; skipping the C99 header compile checks");
    }
    if !gxx {
        eprintln!("note: g++ not found; skipping the C++ header compile checks");
    }
    committed_header(); // written first when blessing
    let dir = scratch("alone");
    for (i, h) in PUBLIC_HEADERS.iter().enumerate() {
        assert!(
            root().join("include").join(h).is_file(),
            "include/{h} is missing"
        );
        // the header alone, then twice (include guard), then used in a function body
        let src = dir.join(format!("h{i}.c"));
        fs::write(
            &src,
            format!(
                "#include \"{h}\"\n#include \"{h}\"\n\
                 int use_it(void);\n\
                 int use_it(void) {{ dnnl_status_t s = dnnl_success; dnnl_dims_t d = {{2, 3}}; \
                 dnnl_engine_t e = NULL; (void)e; return (int)s + (int)d[1]; }}\n"
            ),
        )
        .unwrap();
        if gcc {
            compile("gcc", C_FLAGS, &src, &format!("include/{h}"));
        }
        if gxx {
            compile("g++", CXX11_FLAGS, &src, &format!("include/{h}"));
            compile("g++", CXX17_FLAGS, &src, &format!("include/{h}"));
        }
    }
    // all of them in one translation unit, in both include styles
    let all = dir.join("all.c");
    let mut text: String = PUBLIC_HEADERS
        .iter()
        .map(|h| format!("#include \"{h}\"\n"))
        .collect();
    text += "int main(void) { return DNNL_MEMORY_NONE == NULL ? 0 : 1; }\n";
    fs::write(&all, text).unwrap();
    if gcc {
        compile("gcc", C_FLAGS, &all, "all public headers together");
    }
    if gxx {
        compile("g++", CXX11_FLAGS, &all, "all public headers together");
    }
}

/// Modification time of the newest file under `dir`.
fn newest_source(dir: &Path) -> Option<std::time::SystemTime> {
    let mut newest = None;
    for e in fs::read_dir(dir).ok()?.flatten() {
        let p = e.path();
        let t = if p.is_dir() {
            newest_source(&p)
        } else {
            e.metadata().ok()?.modified().ok()
        };
        newest = newest.max(t);
    }
    newest
}

/// `target/<profile>/liboxidnn.so`, next to this test's `deps/` directory, if cargo built it.
fn built_cdylib() -> Option<PathBuf> {
    let exe = std::env::current_exe().ok()?;
    let dir = exe.parent()?.parent()?;
    let so = dir.join("liboxidnn.so");
    so.is_file().then_some(so)
}

#[test]
fn shared_library_exports_exactly_the_header_functions() {
    let Some(so) = built_cdylib() else {
        eprintln!("note: liboxidnn.so not found next to the test binary; skipping the nm check");
        return;
    };
    let out = match Command::new("nm")
        .args(["-D", "--defined-only"])
        .arg(&so)
        .output()
    {
        Ok(o) if o.status.success() => o,
        _ => {
            eprintln!("note: nm not usable; skipping the exported-symbols check");
            return;
        }
    };
    let text = String::from_utf8_lossy(&out.stdout);
    let exported: BTreeSet<String> = text
        .lines()
        .filter_map(|l| {
            let mut it = l.split_whitespace();
            let (_addr, kind, name) = (it.next()?, it.next()?, it.next()?);
            (kind == "T").then(|| name.to_string())
        })
        .collect();
    // C++-mangled aliases (oneDNN's undeclared benchdnn hooks) are not part of the C API
    let (cxx, exported): (BTreeSet<String>, BTreeSet<String>) =
        exported.into_iter().partition(|n| n.starts_with("_Z"));
    if !cxx.is_empty() {
        eprintln!("note: C++-mangled exports (not in the C header): {cxx:?}");
    }
    // The .so predates the sources when only this test was rebuilt: say so instead of failing.
    let so_time = fs::metadata(&so).and_then(|m| m.modified()).ok();
    let capi = root().join("src").join("capi");
    if so_time.is_some_and(|t| newest_source(&capi).is_some_and(|n| n > t)) {
        eprintln!(
            "note: {} is older than src/capi (rebuild it); skipping",
            so.display()
        );
        return;
    }
    let declared = declared_fns(&committed_header());
    let undeclared: Vec<_> = exported.difference(&declared).collect();
    assert!(
        undeclared.is_empty(),
        "{} exports undeclared functions: {undeclared:?}",
        so.display()
    );
    let unexported: Vec<_> = declared.difference(&exported).collect();
    assert!(
        unexported.is_empty(),
        "declared but not exported by the .so: {unexported:?}"
    );
}

#[test]
fn version_macros_match_dnnl_version() {
    let header = committed_header();
    if !declared_fns(&header).contains("dnnl_version") {
        eprintln!("note: dnnl_version is not exported yet; skipping");
        return;
    }
    let Some(so) = built_cdylib() else {
        eprintln!("note: liboxidnn.so not built; skipping");
        return;
    };
    if !have("gcc") {
        eprintln!("note: gcc not found; skipping");
        return;
    }
    let dir = scratch("version");
    let src = dir.join("version.c");
    fs::write(
        &src,
        "#include <stdio.h>\n#include \"oneapi/dnnl/dnnl.h\"\n\
         int main(void) {\n\
         const dnnl_version_t *v = dnnl_version();\n\
         if (!v) { puts(\"dnnl_version() returned NULL\"); return 1; }\n\
         printf(\"%d.%d.%d vs %d.%d.%d\\n\", v->major, v->minor, v->patch,\n\
                DNNL_VERSION_MAJOR, DNNL_VERSION_MINOR, DNNL_VERSION_PATCH);\n\
         return v->major == DNNL_VERSION_MAJOR && v->minor == DNNL_VERSION_MINOR\n\
                && v->patch == DNNL_VERSION_PATCH ? 0 : 1;\n}\n",
    )
    .unwrap();
    // the .so's SONAME is liboxidnn.so.0: give the loader a copy under that name
    fs::copy(&so, dir.join("liboxidnn.so.0")).unwrap();
    // as C, and as C++ (the `extern "C"` block must give unmangled names that link)
    let mut builds = vec![("gcc", "-std=c99", dir.join("version_c"))];
    if have("g++") {
        builds.push(("g++", "-std=c++11", dir.join("version_cxx")));
    }
    for (compiler, std, exe) in builds {
        let out = Command::new(compiler)
            .args(["-x", if compiler == "gcc" { "c" } else { "c++" }, std])
            .args(["-Wall", "-Wextra", "-Werror", "-I"])
            .arg(root().join("include"))
            .arg(&src)
            .args(["-x", "none"])
            .arg(dir.join("liboxidnn.so.0"))
            .arg("-o")
            .arg(&exe)
            .output()
            .unwrap();
        assert!(
            out.status.success(),
            "version.c does not build and link with {compiler} {std}:\n{}",
            String::from_utf8_lossy(&out.stderr)
        );
        let out = Command::new(&exe)
            .env("LD_LIBRARY_PATH", &dir)
            .output()
            .unwrap();
        assert!(
            out.status.success(),
            "dnnl_version() disagrees with the DNNL_VERSION_* macros ({compiler}): {}{}",
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        );
    }
}
