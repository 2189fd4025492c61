//! The documentation stands alone: no rustdoc comment and no Markdown page of the repository
//! (nor the C header, the JavaScript or the web page) refers a reader to documents they do not have — the project's private requirements or its
//! background articles ("SPEC §3", "../shared/STYLE.md", "the seed's tuning").

use std::path::{Path, PathBuf};

/// What a reference to a document outside the repository looks like.
const OUTSIDE: &[&str] = &[
    // The private folder's documents, by path; not the web page's own `server/web/shared/`,
    // which its modules import as `../shared/…`.
    "work/shared",
    "shared/SPEC",
    "shared/STYLE",
    "seed's",
    "seeds/",
    "the seed,",
    "the seed)",
];

/// The same, as whole words only (`SPECTATOR_DELAY_MS` is not one).
const OUTSIDE_WORDS: &[&str] = &["SPEC"];

/// Whether `word` stands in `line` with no letter, digit or `_` joined to either side.
fn has_word(line: &str, word: &str) -> bool {
    let joined = |c: Option<char>| c.is_some_and(|c| c.is_alphanumeric() || c == '_');
    line.match_indices(word).any(|(at, _)| {
        !joined(line[..at].chars().next_back()) && !joined(line[at + word.len()..].chars().next())
    })
}

/// Directories whose `.rs` and `.md` files are checked (where they exist), and single files.
const DIRS: &[&str] = &[
    "core", "replay", "src", "checks", "netplay", "server", "ffi", "benches", "tests", "samples",
    "scripts", "docs", "examples",
];
const FILES: &[&str] = &[
    "README.md",
    "ARCHITECTURE.md",
    "PERFORMANCE.md",
    "PERFORMANCE-LOG.md",
];

fn files(dir: &Path, out: &mut Vec<PathBuf>) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    for entry in entries.flatten() {
        let path = entry.path();
        let name = entry.file_name();
        let name = name.to_string_lossy();
        if path.is_dir() {
            // `vendor`: third-party code copied in whole (three.js), not our documentation.
            if !matches!(
                name.as_ref(),
                "target" | "node_modules" | "corpus" | ".git" | "vendor"
            ) {
                files(&path, out);
            }
        } else if [".rs", ".md", ".h", ".mjs", ".js", ".html"]
            .iter()
            .any(|ext| name.ends_with(ext))
        {
            out.push(path);
        }
    }
}

/// The lines of `path` a reader sees as documentation: the `///` and `//!` comments of a Rust
/// file, every line of anything else (a Markdown page, the C header, the JavaScript module and
/// its tests, the web page).
fn doc_lines(path: &Path) -> Vec<(usize, String)> {
    let text = std::fs::read_to_string(path).unwrap_or_default();
    let markdown = path.extension().is_none_or(|e| e != "rs");
    text.lines()
        .enumerate()
        .filter(|(_, line)| {
            let t = line.trim_start();
            markdown || t.starts_with("///") || t.starts_with("//!")
        })
        .map(|(i, line)| (i + 1, line.to_string()))
        .collect()
}

#[test]
fn no_doc_refers_to_a_document_outside_the_repository() {
    assert!(has_word("see SPEC §14", "SPEC") && has_word("(SPEC)", "SPEC"));
    assert!(!has_word("SPECTATOR_DELAY_MS", "SPEC") && !has_word("A_SPEC", "SPEC"));
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut paths: Vec<PathBuf> = FILES.iter().map(|f| root.join(f)).collect();
    for dir in DIRS {
        files(&root.join(dir), &mut paths);
    }
    // This file names the patterns it looks for.
    paths.retain(|p| !p.ends_with("tests/docs_stand_alone.rs"));
    assert!(paths.len() > 50, "found only {} files", paths.len());
    let mut found = Vec::new();
    for path in &paths {
        for (number, line) in doc_lines(path) {
            if OUTSIDE.iter().any(|pattern| line.contains(pattern))
                || OUTSIDE_WORDS.iter().any(|word| has_word(&line, word))
            {
                let shown = path.strip_prefix(root).unwrap_or(path).display();
                found.push(format!("{shown}:{number}: {}", line.trim()));
            }
        }
    }
    assert!(
        found.is_empty(),
        "documentation that points outside the repository:\n{}",
        found.join("\n")
    );
}
