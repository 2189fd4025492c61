//! The documentation stands alone: no rustdoc comment and no Markdown page of the repository
//! (nor the C header, the JavaScript or the web page) refers a reader to documents they do not have — the project's private requirements or its
//! background articles ("SPEC §3", "../shared/STYLE.md", "the seed's tuning"); and every link
//! from one Markdown page to another, or to a heading of one, arrives.

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

/// Every file of `FILES` and of `DIRS` under `root` that these tests read.
fn checked_files(root: &Path) -> Vec<PathBuf> {
    let mut paths: Vec<PathBuf> = FILES.iter().map(|f| root.join(f)).collect();
    for dir in DIRS {
        files(&root.join(dir), &mut paths);
    }
    paths
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
    let mut paths = checked_files(root);
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

/// GitHub's anchor for a heading's text: lower case, letters, digits, `_` and `-` kept, each
/// space a `-`, everything else (punctuation, dashes other than `-`, backticks) dropped.
fn slug(heading: &str) -> String {
    heading
        .to_lowercase()
        .chars()
        .filter_map(|c| match c {
            ' ' => Some('-'),
            '-' | '_' => Some(c),
            c if c.is_alphanumeric() => Some(c),
            _ => None,
        })
        .collect()
}

/// `line` with its inline code spans (`` `…` ``) removed: a link shown as code is not a link.
fn without_code_spans(line: &str) -> String {
    line.split('`').step_by(2).collect::<Vec<_>>().join(" ")
}

/// The lines of a Markdown page outside its fenced code blocks, numbered from 1.
fn prose_lines(text: &str) -> Vec<(usize, &str)> {
    let mut fenced = false;
    let mut out = Vec::new();
    for (i, line) in text.lines().enumerate() {
        let t = line.trim_start();
        if t.starts_with("```") || t.starts_with("~~~") {
            fenced = !fenced;
        } else if !fenced {
            out.push((i + 1, line));
        }
    }
    out
}

/// The anchors of a Markdown page's headings, as GitHub makes them (a repeated heading's
/// second anchor ends in `-1`, its third in `-2`).
fn anchors(text: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut bases = std::collections::BTreeMap::new();
    for (_, line) in prose_lines(text) {
        let hashes = line.chars().take_while(|&c| c == '#').count();
        let Some(title) = line[hashes..].strip_prefix(' ') else {
            continue;
        };
        if !(1..=6).contains(&hashes) {
            continue;
        }
        // A link in a heading reads as its text: `[text](target)` → `text`.
        let mut text = String::new();
        let mut rest = title.trim().trim_end_matches('#').trim_end();
        while let Some(open) = rest.find('[') {
            let Some(close) = rest[open..].find("](").map(|c| open + c) else {
                break;
            };
            let Some(end) = rest[close..].find(')').map(|e| close + e) else {
                break;
            };
            text.push_str(&rest[..open]);
            text.push_str(&rest[open + 1..close]);
            rest = &rest[end + 1..];
        }
        text.push_str(rest);
        let base = slug(&text);
        let seen = bases.entry(base.clone()).or_insert(0);
        out.push(if *seen == 0 {
            base
        } else {
            format!("{base}-{seen}")
        });
        *seen += 1;
    }
    out
}

/// The targets of a Markdown line's inline links (`[text](target)`), web addresses left out.
fn link_targets(line: &str) -> Vec<String> {
    let line = without_code_spans(line);
    line.match_indices("](")
        .filter_map(|(at, _)| {
            let rest = &line[at + 2..];
            let end = rest.find(|c: char| c == ')' || c.is_whitespace())?;
            Some(rest[..end].to_string())
        })
        .filter(|t| !t.is_empty() && !t.contains("://") && !t.starts_with("mailto:"))
        .collect()
}

#[test]
fn the_slugs_are_githubs() {
    assert_eq!(
        slug("Wide arithmetic (2026-12-07, 10:30–11:00)"),
        "wide-arithmetic-2026-12-07-10301100"
    );
    assert_eq!(slug("A track's worst tick"), "a-tracks-worst-tick");
    assert_eq!(slug("`pogo verify`: checks"), "pogo-verify-checks");
    let page =
        "# Top\n## Notes\n```\n# not a heading\n```\n## Notes\n### [Linked](x.md) one\n#No\n";
    assert_eq!(anchors(page), ["top", "notes", "notes-1", "linked-one"]);
    assert_eq!(
        link_targets("see [a](docs/a.md#b), `[c](d.md)` and [e](https://x.y/z)"),
        ["docs/a.md#b"]
    );
}

/// Every link from one Markdown page of the repository to another (or to a file, or to a
/// heading of a page) arrives: the file exists and, where the link names a heading, the page
/// has a heading with that anchor. A heading renamed or a page moved breaks the build, not the
/// reader's click.
#[test]
fn every_link_between_the_pages_arrives() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut paths = checked_files(root);
    paths.retain(|p| p.extension().is_some_and(|e| e == "md"));
    assert!(paths.len() > 10, "found only {} pages", paths.len());
    let mut links = 0;
    let mut broken = Vec::new();
    for path in &paths {
        let text = std::fs::read_to_string(path).unwrap_or_default();
        let shown = path.strip_prefix(root).unwrap_or(path).display();
        for (number, line) in prose_lines(&text) {
            for target in link_targets(line) {
                links += 1;
                let (file, heading) = match target.split_once('#') {
                    Some((file, heading)) => (file, Some(heading)),
                    None => (target.as_str(), None),
                };
                let to = if file.is_empty() {
                    path.clone()
                } else {
                    path.parent().unwrap_or(root).join(file)
                };
                if !to.exists() {
                    broken.push(format!("{shown}:{number}: {target}: no such file"));
                    continue;
                }
                let Some(heading) = heading else { continue };
                if to.extension().is_some_and(|e| e == "md") {
                    let page = std::fs::read_to_string(&to).unwrap_or_default();
                    if !anchors(&page).iter().any(|a| a == heading) {
                        broken.push(format!("{shown}:{number}: {target}: no such heading"));
                    }
                }
            }
        }
    }
    assert!(links > 50, "found only {links} links");
    assert!(
        broken.is_empty(),
        "links that arrive nowhere:\n{}",
        broken.join("\n")
    );
}
