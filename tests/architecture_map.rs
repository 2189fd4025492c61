//! ARCHITECTURE.md names every source file: each `.rs` under a crate's `src/` and each `.js` or
//! `.mjs` of the web page (`server/web/`, its vendored three.js aside). A new file that the map
//! does not name fails here, with its path, so the map cannot fall behind the code.
//!
//! A file is named when its crate's part of the map (from the crate's bold heading, such as
//! "**`server/` —", to the next bold heading) or the map's opening ("## Code map", which
//! speaks of every crate's `lib.rs` and `main.rs`) holds its path relative to the crate's
//! `src/` (or to `server/web/`), or a tail of that path from a `/`: `api/admin.rs`, or
//! `ghost.js` in the paragraph that places it in `race/`.

use std::path::{Path, PathBuf};

/// Each source folder, and the bold heading its part of the map starts with.
const AREAS: &[(&str, &str)] = &[
    ("core/src", "**`core/`"),
    ("replay/src", "**`replay/`"),
    ("src", "**`src/`"),
    ("netplay/src", "**`netplay/`"),
    ("ffi/src", "**`ffi/`"),
    ("server/src", "**`server/` —"),
    ("server/web", "**`server/web/`"),
    ("checks/src", "**`checks/`"),
];

/// The source files under `dir`, relative to it.
fn sources(root: &Path, dir: &Path, out: &mut Vec<String>) {
    let mut entries: Vec<_> = std::fs::read_dir(dir)
        .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
        .flatten()
        .collect();
    entries.sort_by_key(|e| e.file_name());
    for entry in entries {
        let path = entry.path();
        let name = entry.file_name().to_string_lossy().into_owned();
        if path.is_dir() {
            // Third-party code copied in whole (three.js): not ours to map.
            if !matches!(name.as_str(), "vendor" | "node_modules") {
                sources(root, &path, out);
            }
        } else if [".rs", ".js", ".mjs"].iter().any(|ext| name.ends_with(ext)) {
            let relative: PathBuf = path.strip_prefix(root).unwrap().into();
            out.push(relative.to_string_lossy().replace('\\', "/"));
        }
    }
}

/// The file names and paths a part of the map mentions (`store/queue.rs`, `hud.js`).
fn mentioned(text: &str) -> Vec<&str> {
    let is_path = |c: char| c.is_ascii_alphanumeric() || "_-./".contains(c);
    text.split(|c: char| !is_path(c))
        .map(|word| word.trim_start_matches(['.', '/']))
        .filter(|word| [".rs", ".js", ".mjs"].iter().any(|ext| word.ends_with(ext)))
        .collect()
}

/// The part of the map from `heading` to the next bold heading.
fn part<'a>(map: &'a str, heading: &str) -> &'a str {
    let start = map
        .find(heading)
        .unwrap_or_else(|| panic!("ARCHITECTURE.md has no heading {heading}"));
    let rest = &map[start + heading.len()..];
    let end = rest.find("**`").unwrap_or(rest.len());
    &map[start..start + heading.len() + end]
}

#[test]
fn architecture_names_every_source_file() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let map = std::fs::read_to_string(root.join("ARCHITECTURE.md")).unwrap();
    let opening = {
        let start = map.find("## Code map").expect("a Code map section");
        part(&map[start..], "## Code map")
    };
    let mut missing = Vec::new();
    let mut count = 0;
    for (dir, heading) in AREAS {
        let names: Vec<&str> = mentioned(part(&map, heading))
            .into_iter()
            .chain(mentioned(opening))
            .collect();
        let mut files = Vec::new();
        sources(&root.join(dir), &root.join(dir), &mut files);
        assert!(!files.is_empty(), "no source files under {dir}");
        count += files.len();
        for file in files {
            let named = names
                .iter()
                .any(|name| file == *name || file.ends_with(&format!("/{name}")));
            if !named {
                missing.push(format!("{dir}/{file}"));
            }
        }
    }
    assert!(count > 150, "found only {count} source files");
    assert!(
        missing.is_empty(),
        "ARCHITECTURE.md does not name these source files (name each in its crate's part of \
         the map, by its path from src/ or server/web/, or by its file name where the text \
         places it):\n{}",
        missing.join("\n")
    );
}

#[test]
fn mentions_are_paths_and_names() {
    assert_eq!(
        mentioned("`api/admin.rs` (admin), `ranks.rs` and `ranks/entries.rs`; `ffi/js/pogo.mjs`."),
        [
            "api/admin.rs",
            "ranks.rs",
            "ranks/entries.rs",
            "ffi/js/pogo.mjs"
        ]
    );
    assert_eq!(
        mentioned("`../shared/x.js` and `lib.rs`'s"),
        ["shared/x.js", "lib.rs"]
    );
}
