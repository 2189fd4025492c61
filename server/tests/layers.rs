//! The module import graph of `server/src`, `ffi/src` and `replay/src`, read from the source
//! files: it has no cycle, and the server keeps its layers (the store imports nothing from
//! `api`, `live`, `worker` or `config`; `live` nothing from `api`).
//!
//! A node is a file. An edge is a path that starts with `crate::` or `super::` — in a `use`
//! declaration or inline in the code (`crate::live::LiveSettings::default()`), tests included,
//! comments and strings not — to the file that defines what it names: a name re-exported by
//! a `pub use` is followed to its definition, so `crate::store::Boards` is `store/board.rs`.
//! A module's use of its own children (`use board::Boards;`, `mod board;`) is not an edge: a
//! module is made of its children. Any cycle fails, two files importing each other included.
//! The binaries (`server/src/main.rs`, `server/src/bin/`) are crates of their own and not
//! read.

use std::collections::{BTreeMap, BTreeSet};
use std::fmt::Write as _;
use std::path::{Path, PathBuf};

/// A module's path from its crate's root (`["store", "board"]`; the root is `[]`).
type Module = Vec<String>;

/// One crate's files and what they name.
struct Crate {
    /// Each file's module, and its path relative to the crate's `src/`.
    files: BTreeMap<Module, String>,
    /// Per file: the names it defines (items and macros).
    items: BTreeMap<String, BTreeSet<String>>,
    /// Per file: its `pub use` names (the name, and where it comes from).
    reexports: BTreeMap<String, BTreeMap<String, (Module, Vec<String>)>>,
    /// Per file: its `pub use …::*`.
    globs: BTreeMap<String, Vec<(Module, Vec<String>)>>,
    /// Every `crate::`/`super::` path: (file, the module it starts from, its segments).
    paths: Vec<(String, Module, Vec<String>)>,
}

/// The source with comments, string literals and character literals blanked out (lifetimes
/// kept).
fn strip(src: &str) -> String {
    let chars: Vec<char> = src.chars().collect();
    let (mut out, mut i) = (String::with_capacity(src.len()), 0);
    let at = |i: usize, s: &str| {
        s.chars()
            .enumerate()
            .all(|(k, c)| chars.get(i + k) == Some(&c))
    };
    while i < chars.len() {
        let c = chars[i];
        if at(i, "//") {
            while i < chars.len() && chars[i] != '\n' {
                i += 1;
            }
        } else if at(i, "/*") {
            let mut depth = 0;
            loop {
                if at(i, "/*") {
                    depth += 1;
                    i += 2;
                } else if at(i, "*/") {
                    depth -= 1;
                    i += 2;
                    if depth == 0 {
                        break;
                    }
                } else if i >= chars.len() {
                    break;
                } else {
                    i += 1;
                }
            }
        } else if c == 'r'
            && (chars.get(i + 1) == Some(&'"') || chars.get(i + 1) == Some(&'#'))
            && (i == 0 || !(chars[i - 1].is_alphanumeric() || chars[i - 1] == '_'))
        {
            // A raw string: r"…", r#"…"#.
            let mut j = i + 1;
            let mut hashes = 0;
            while chars.get(j) == Some(&'#') {
                hashes += 1;
                j += 1;
            }
            if chars.get(j) != Some(&'"') {
                out.push(c);
                i += 1;
                continue;
            }
            let end: String = std::iter::once('"')
                .chain("#".repeat(hashes).chars())
                .collect();
            j += 1;
            while j < chars.len() && !at(j, &end) {
                j += 1;
            }
            i = j + end.len();
            out.push_str("\"\"");
        } else if c == '"' {
            let mut j = i + 1;
            while j < chars.len() && chars[j] != '"' {
                j += if chars[j] == '\\' { 2 } else { 1 };
            }
            i = j + 1;
            out.push_str("\"\"");
        } else if c == '\'' {
            if chars.get(i + 1) == Some(&'\\') {
                let mut j = i + 2;
                while j < chars.len() && chars[j] != '\'' {
                    j += 1;
                }
                i = j + 1;
                out.push_str("' '");
            } else if chars.get(i + 2) == Some(&'\'') {
                i += 3;
                out.push_str("' '");
            } else {
                out.push(c); // a lifetime
                i += 1;
            }
        } else {
            out.push(c);
            i += 1;
        }
    }
    out
}

/// Identifiers, `::`, and every other non-blank character on its own.
fn tokens(src: &str) -> Vec<String> {
    let chars: Vec<char> = src.chars().collect();
    let (mut out, mut i) = (Vec::new(), 0);
    while i < chars.len() {
        let c = chars[i];
        if c.is_alphabetic() || c == '_' {
            let start = i;
            while i < chars.len() && (chars[i].is_alphanumeric() || chars[i] == '_') {
                i += 1;
            }
            out.push(chars[start..i].iter().collect());
        } else if c == ':' && chars.get(i + 1) == Some(&':') {
            out.push("::".to_string());
            i += 2;
        } else if c.is_whitespace() {
            i += 1;
        } else {
            out.push(c.to_string());
            i += 1;
        }
    }
    out
}

/// A `use` tree's paths (`a::{b, c::{d, e as f}}` → `a::b`, `a::c::d`, `a::c::e`), each with
/// the name it binds.
fn use_paths(t: &[String]) -> Vec<(Vec<String>, String)> {
    fn tree(t: &[String], i: &mut usize, prefix: &[String], out: &mut Vec<(Vec<String>, String)>) {
        let mut path = prefix.to_vec();
        loop {
            match t.get(*i).map(String::as_str) {
                Some("{") => {
                    *i += 1;
                    while t.get(*i).is_some_and(|s| s != "}") {
                        tree(t, i, &path, out);
                        if t.get(*i).is_some_and(|s| s == ",") {
                            *i += 1;
                        }
                    }
                    *i += 1;
                    return;
                }
                Some(s) if s != "," && s != "}" && s != "::" => {
                    path.push(s.to_string());
                    *i += 1;
                }
                _ => {}
            }
            match t.get(*i).map(String::as_str) {
                Some("::") => *i += 1,
                Some("as") => {
                    let name = t.get(*i + 1).cloned().unwrap_or_default();
                    *i += 2;
                    out.push((path, name));
                    return;
                }
                _ => {
                    let name = path.last().cloned().unwrap_or_default();
                    out.push((path, name));
                    return;
                }
            }
        }
    }
    let (mut out, mut i) = (Vec::new(), 0);
    tree(t, &mut i, &[], &mut out);
    out
}

/// Where a path starts: `crate::…` at the root, `super::…`/`self::…` from `here`, a child
/// module of `here` from `here`; `None` for another crate's path. The segments after the
/// start, and whether it is an edge (`crate`/`super`).
fn start(
    here: &Module,
    path: &[String],
    modules: &BTreeMap<Module, String>,
) -> Option<(Module, Vec<String>, bool)> {
    let first = path.first()?.as_str();
    match first {
        "crate" => Some((Vec::new(), path[1..].to_vec(), true)),
        "super" | "self" => {
            let mut base = here.clone();
            let mut rest = path;
            while let Some(s) = rest.first() {
                match s.as_str() {
                    "super" => {
                        base.pop();
                    }
                    "self" => {}
                    _ => break,
                }
                rest = &rest[1..];
            }
            Some((base, rest.to_vec(), first == "super"))
        }
        child => {
            let mut module = here.clone();
            module.push(child.to_string());
            modules
                .contains_key(&module)
                .then(|| (here.clone(), path.to_vec(), false))
        }
    }
}

fn read_crate(src: &Path, skip: &[&str]) -> Crate {
    let mut sources = Vec::new();
    let mut dirs = vec![src.to_path_buf()];
    while let Some(dir) = dirs.pop() {
        for entry in std::fs::read_dir(&dir).unwrap() {
            let path = entry.unwrap().path();
            let rel = path
                .strip_prefix(src)
                .unwrap()
                .to_string_lossy()
                .replace('\\', "/");
            if skip.contains(&rel.as_str()) {
                continue;
            }
            if path.is_dir() {
                dirs.push(path);
            } else if rel.ends_with(".rs") {
                sources.push((rel, path));
            }
        }
    }
    let mut files = BTreeMap::new();
    for (rel, _) in &sources {
        let mut module: Module = rel
            .trim_end_matches(".rs")
            .split('/')
            .map(String::from)
            .collect();
        if matches!(module.last().map(String::as_str), Some("lib" | "mod")) {
            module.pop();
        }
        files.insert(module, rel.clone());
    }
    let mut krate = Crate {
        files,
        items: BTreeMap::new(),
        reexports: BTreeMap::new(),
        globs: BTreeMap::new(),
        paths: Vec::new(),
    };
    let modules: BTreeMap<Module, String> = krate.files.clone();
    for (rel, path) in &sources {
        let module = modules.iter().find(|(_, r)| *r == rel).unwrap().0.clone();
        let t = tokens(&strip(&std::fs::read_to_string(path).unwrap()));
        let items = krate.items.entry(rel.clone()).or_default();
        let reexports = krate.reexports.entry(rel.clone()).or_default();
        let globs = krate.globs.entry(rel.clone()).or_default();
        // Inline modules (`mod tests { … }`): their names and the depth of their braces.
        let (mut inline, mut depth): (Vec<(String, usize)>, usize) = (Vec::new(), 0);
        let mut i = 0;
        while i < t.len() {
            let here: Module = module
                .iter()
                .cloned()
                .chain(inline.iter().map(|(name, _)| name.clone()))
                .collect();
            let next = t.get(i + 1).map(String::as_str);
            match t[i].as_str() {
                "{" => depth += 1,
                "}" => {
                    if inline.last().is_some_and(|(_, d)| *d == depth) {
                        inline.pop();
                    }
                    depth = depth.saturating_sub(1);
                }
                "mod" if t.get(i + 2).is_some_and(|s| s == "{") => {
                    inline.push((t[i + 1].clone(), depth + 1));
                    items.insert(t[i + 1].clone());
                    depth += 1;
                    i += 3;
                    continue;
                }
                "struct" | "enum" | "fn" | "trait" | "type" | "const" | "static" | "union" => {
                    if let Some(name) = next {
                        items.insert(name.to_string());
                    }
                }
                "macro_rules" => {
                    if let Some(name) = t.get(i + 2) {
                        items.insert(name.clone());
                    }
                }
                "use" => {
                    let public = i > 0 && (t[i - 1] == "pub" || t[i - 1] == ")");
                    let end = (i..t.len()).find(|&k| t[k] == ";").unwrap_or(t.len());
                    for (path, name) in use_paths(&t[i + 1..end]) {
                        let Some((base, rest, edge)) = start(&here, &path, &modules) else {
                            continue;
                        };
                        if public && inline.is_empty() {
                            if rest.last().is_some_and(|s| s == "*") {
                                globs.push((base.clone(), rest[..rest.len() - 1].to_vec()));
                            } else {
                                reexports.insert(name, (base.clone(), rest.clone()));
                            }
                        }
                        if edge {
                            krate.paths.push((rel.clone(), base, rest));
                        }
                    }
                    i = end + 1;
                    continue;
                }
                "crate" | "super" if next == Some("::") && (i == 0 || t[i - 1] != "::") => {
                    let mut path = vec![t[i].clone()];
                    let mut k = i + 1;
                    while t.get(k).is_some_and(|s| s == "::")
                        && t.get(k + 1)
                            .is_some_and(|s| s.starts_with(|c: char| c.is_alphabetic() || c == '_'))
                    {
                        path.push(t[k + 1].clone());
                        k += 2;
                    }
                    if let Some((base, rest, true)) = start(&here, &path, &modules) {
                        krate.paths.push((rel.clone(), base, rest));
                    }
                    i = k;
                    continue;
                }
                _ => {}
            }
            i += 1;
        }
    }
    krate
}

impl Crate {
    /// The file that defines what `segments`, read from module `base`, name.
    fn resolve(&self, base: &Module, segments: &[String], hops: usize) -> Option<String> {
        let mut module = base.clone();
        for (k, segment) in segments.iter().enumerate() {
            if segment == "*" || segment == "self" {
                break;
            }
            let mut child = module.clone();
            child.push(segment.clone());
            if self.files.contains_key(&child) {
                module = child;
                continue;
            }
            let file = self.files.get(&module)?;
            if self.items[file].contains(segment) || hops > 8 {
                return Some(file.clone());
            }
            if let Some((from, path)) = self.reexports[file].get(segment) {
                let mut path = path.clone();
                path.extend(segments[k + 1..].iter().cloned());
                return self.resolve(from, &path, hops + 1);
            }
            for (from, path) in &self.globs[file] {
                let mut path = path.clone();
                path.push(segment.clone());
                if let Some(found) = self.resolve(from, &path, hops + 1) {
                    if self.items[&found].contains(segment) {
                        return Some(found);
                    }
                }
            }
            return Some(file.clone());
        }
        self.files.get(&module).cloned()
    }

    /// Each file's imports: the file it imports from, and the paths that do.
    fn graph(&self) -> BTreeMap<String, BTreeMap<String, BTreeSet<String>>> {
        let mut graph: BTreeMap<String, BTreeMap<String, BTreeSet<String>>> = self
            .files
            .values()
            .map(|f| (f.clone(), BTreeMap::new()))
            .collect();
        for (file, base, segments) in &self.paths {
            if let Some(target) = self.resolve(base, segments, 0) {
                if &target != file {
                    let shown = format!("{}::{}", base.join("::"), segments.join("::"));
                    graph
                        .get_mut(file)
                        .unwrap()
                        .entry(target)
                        .or_default()
                        .insert(shown.trim_start_matches("::").to_string());
                }
            }
        }
        graph
    }
}

/// The graph's strongly connected components of more than one file (Tarjan's).
fn cycles(graph: &BTreeMap<String, BTreeMap<String, BTreeSet<String>>>) -> Vec<Vec<String>> {
    struct State<'a> {
        graph: &'a BTreeMap<String, BTreeMap<String, BTreeSet<String>>>,
        index: BTreeMap<&'a str, usize>,
        low: BTreeMap<&'a str, usize>,
        stack: Vec<&'a str>,
        found: Vec<Vec<String>>,
    }
    fn visit<'a>(s: &mut State<'a>, v: &'a str) {
        let n = s.index.len();
        s.index.insert(v, n);
        s.low.insert(v, n);
        s.stack.push(v);
        for w in s.graph[v].keys() {
            if !s.index.contains_key(w.as_str()) {
                visit(s, w);
                let low = s.low[v].min(s.low[w.as_str()]);
                s.low.insert(v, low);
            } else if s.stack.contains(&w.as_str()) {
                let low = s.low[v].min(s.index[w.as_str()]);
                s.low.insert(v, low);
            }
        }
        if s.low[v] == s.index[v] {
            let mut component = Vec::new();
            while let Some(w) = s.stack.pop() {
                component.push(w.to_string());
                if w == v {
                    break;
                }
            }
            if component.len() > 1 {
                component.sort();
                s.found.push(component);
            }
        }
    }
    let mut s = State {
        graph,
        index: BTreeMap::new(),
        low: BTreeMap::new(),
        stack: Vec::new(),
        found: Vec::new(),
    };
    for v in graph.keys() {
        if !s.index.contains_key(v.as_str()) {
            visit(&mut s, v);
        }
    }
    s.found
}

fn workspace() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .unwrap()
        .to_path_buf()
}

fn server() -> Crate {
    read_crate(&workspace().join("server/src"), &["main.rs", "bin"])
}

#[test]
fn no_module_imports_itself_through_others() {
    let mut report = String::new();
    let crates = [
        ("server/src", server()),
        ("ffi/src", read_crate(&workspace().join("ffi/src"), &[])),
        (
            "replay/src",
            read_crate(&workspace().join("replay/src"), &[]),
        ),
    ];
    for (name, krate) in &crates {
        let graph = krate.graph();
        assert!(
            graph.values().map(BTreeMap::len).sum::<usize>() > krate.files.len() / 2,
            "{name}: too few imports found: the reader is broken"
        );
        for component in cycles(&graph) {
            let _ = writeln!(report, "{name}: a cycle through {}:", component.join(", "));
            for from in &component {
                for (to, paths) in &graph[from] {
                    if component.contains(to) {
                        let paths: Vec<_> = paths.iter().map(String::as_str).collect();
                        let _ = writeln!(report, "    {from} -> {to} ({})", paths.join(", "));
                    }
                }
            }
        }
    }
    assert!(report.is_empty(), "import cycles:\n{report}");
}

#[test]
fn the_server_keeps_its_layers() {
    let krate = server();
    let graph = krate.graph();
    let rules: [(&str, &[&str]); 2] = [
        ("store/", &["api/", "live/", "worker.rs", "config.rs"]),
        ("live/", &["api/"]),
    ];
    let mut report = String::new();
    for (from, imports) in &graph {
        for (to, paths) in imports {
            for (layer, below) in &rules {
                if from.starts_with(layer) && below.iter().any(|b| to.starts_with(b)) {
                    let paths: Vec<_> = paths.iter().map(String::as_str).collect();
                    let _ = writeln!(report, "    {from} -> {to} ({})", paths.join(", "));
                }
            }
        }
    }
    assert!(report.is_empty(), "imports across a layer:\n{report}");
}

/// The reader itself, on a small crate of its own.
#[test]
fn the_reader_finds_paths_through_reexports() {
    let t = tokens(&strip(
        "use crate::{a::B, c::{self, D as E}}; // crate::x\n let s = \"crate::y\"; crate::f::g();",
    ));
    let start = t.iter().position(|s| s == "use").unwrap() + 1;
    let end = t.iter().position(|s| s == ";").unwrap();
    let paths: Vec<_> = use_paths(&t[start..end])
        .into_iter()
        .map(|(p, n)| (p.join("::"), n))
        .collect();
    assert_eq!(
        paths,
        [
            ("crate::a::B".into(), "B".into()),
            ("crate::c::self".into(), "self".into()),
            ("crate::c::D".into(), "E".into()),
        ]
    );
    assert!(!t.contains(&"x".to_string()) && !t.contains(&"y".to_string()));
    let krate = server();
    let store = vec!["store".to_string()];
    // `store::Boards` is `pub use board::Boards` in store/mod.rs.
    assert_eq!(
        krate.resolve(&store, &["Boards".into()], 0).as_deref(),
        Some("store/board.rs")
    );
    assert_eq!(
        krate.resolve(&store, &["Store".into()], 0).as_deref(),
        Some("store/mod.rs")
    );
}
