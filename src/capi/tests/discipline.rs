//! Source discipline of `src/capi/*.rs`: every `extern "C"` function runs its body through the
//! boundary (`status(` or `value(`, which catch panics and record errors), and every `unsafe`
//! one documents its contract under `# Safety`.

use std::fs;
use std::path::PathBuf;

/// `(file, function name, doc comment, body)` of every `extern "C" fn` in `src/capi/*.rs`; the
/// name is empty for a macro's template (`fn $name(`, documented by a `#[doc]` attribute).
fn extern_fns() -> Vec<(String, String, String, String)> {
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("src")
        .join("capi");
    let mut files: Vec<_> = fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "rs"))
        .collect();
    files.sort();
    let marker = ["extern ", "\"C\" fn "].concat();
    let mut out = Vec::new();
    for path in files {
        let text = fs::read_to_string(&path).unwrap();
        let file = path.file_name().unwrap().to_string_lossy().into_owned();
        let mut from = 0;
        while let Some(i) = text[from..].find(&marker) {
            let start = from + i;
            let name: String = text[start + marker.len()..]
                .chars()
                .take_while(|c| c.is_alphanumeric() || *c == '_')
                .collect();
            // doc comment: the `///` lines above the item (attributes skipped)
            let line_start = text[..start].rfind('\n').map_or(0, |n| n + 1);
            let doc: Vec<&str> = text[..line_start]
                .lines()
                .rev()
                .map(str::trim)
                .skip_while(|l| l.starts_with("#["))
                .take_while(|l| l.starts_with("///") || l.starts_with("#["))
                .collect();
            let doc = doc.into_iter().rev().collect::<Vec<_>>().join("\n");
            // body: from the first `{` after the signature to its matching `}`
            let open = start + text[start..].find('{').unwrap();
            let mut depth = 0;
            let mut end = open;
            for (k, c) in text[open..].char_indices() {
                match c {
                    '{' => depth += 1,
                    '}' => {
                        depth -= 1;
                        if depth == 0 {
                            end = open + k;
                            break;
                        }
                    }
                    _ => {}
                }
            }
            let unsafe_fn = text[line_start..start].contains("unsafe");
            let doc = if unsafe_fn {
                doc
            } else {
                format!("{doc}\n(safe)")
            };
            out.push((file.clone(), name, doc, text[open..=end].to_string()));
            from = end;
        }
    }
    out
}

#[test]
fn every_extern_fn_goes_through_the_boundary() {
    let fns = extern_fns();
    assert!(
        fns.len() >= 90,
        "found only {} extern \"C\" functions",
        fns.len()
    );
    let through: Vec<_> = fns
        .iter()
        .filter(|(_, _, _, body)| body.contains("status(") || body.contains("value("))
        .collect();
    let missing: Vec<_> = fns
        .iter()
        .filter(|(_, _, _, body)| !(body.contains("status(") || body.contains("value(")))
        .map(|(f, n, _, _)| format!("{f}: {n}"))
        .collect();
    assert!(
        missing.is_empty(),
        "extern \"C\" functions not wrapped in status()/value(): {missing:?}"
    );
    assert_eq!(through.len(), fns.len());
}

#[test]
fn every_extern_fn_is_documented_and_unsafe_ones_have_a_safety_section() {
    for (file, name, doc, _) in extern_fns().into_iter().filter(|f| !f.1.is_empty()) {
        assert!(
            !doc.trim().is_empty() && doc != "\n(safe)",
            "{file}: {name} has no doc comment"
        );
        if !doc.ends_with("(safe)") {
            assert!(
                doc.contains("# Safety"),
                "{file}: unsafe {name} has no `# Safety` section"
            );
        }
    }
}

#[test]
fn exported_names_are_unique_and_prefixed() {
    let fns = extern_fns();
    let mut names: Vec<_> = fns
        .iter()
        .map(|(_, n, _, _)| n.clone())
        .filter(|n| !n.is_empty())
        .collect();
    names.sort();
    let before = names.len();
    names.dedup();
    assert_eq!(
        names.len(),
        before,
        "an extern \"C\" function name appears twice"
    );
    for n in &names {
        assert!(
            n.starts_with("dnnl_") || n.starts_with("oxidnn_"),
            "{n}: exports are dnnl_* or oxidnn_*"
        );
    }
}
