//! Shared by the tests that build and run C programs and the `pogo` binary: where things are,
//! compiling C against the staticlib, running a program (optionally under valgrind), reading
//! its output by section.
#![allow(dead_code)]

use std::ffi::OsStr;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use std::sync::OnceLock;

pub use tempfile::TempDir;

pub fn repo_root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .unwrap()
        .to_path_buf()
}

/// `target/<profile>`: this test executable lives in its `deps/`.
pub fn profile_dir() -> PathBuf {
    let exe = std::env::current_exe().unwrap();
    exe.parent().unwrap().parent().unwrap().to_path_buf()
}

fn release() -> bool {
    profile_dir().file_name() == Some(OsStr::new("release"))
}

pub fn scratch_dir(name: &str) -> TempDir {
    tempfile::Builder::new()
        .prefix(&format!("pogo-ffi-{name}-"))
        .tempdir()
        .unwrap()
}

/// A C program compiled by [`build_c`].
#[derive(Debug)]
pub struct Built {
    pub path: PathBuf,
}

/// Compiles `sources` with the system `cc` (C11, all warnings as errors) against
/// `include/pogo.h` and the staticlib cargo built for this test, into
/// `target/<profile>/c-tests/<name>`.
///
/// The staticlib is `target/<profile>/deps/libpogo_ffi.a`: building the tests builds the lib
/// with all its crate types there, but only `cargo build` copies them up to
/// `target/<profile>/`, so the copy there may be stale.
pub fn build_c(name: &str, sources: &[PathBuf]) -> Built {
    let lib = profile_dir().join("deps/libpogo_ffi.a");
    assert!(
        lib.is_file(),
        "{} is missing: cargo builds it with the lib",
        lib.display()
    );
    let out_dir = profile_dir().join("c-tests");
    std::fs::create_dir_all(&out_dir).unwrap();
    let path = out_dir.join(name);
    let mut cc = Command::new("cc");
    cc.args([
        "-std=c11",
        "-Wall",
        "-Wextra",
        "-Werror",
        "-pedantic",
        "-g",
        "-O1",
    ])
    .arg("-I")
    .arg(repo_root().join("ffi/include"))
    .args(sources)
    .arg(&lib)
    // What `rustc --print native-static-libs` lists for a staticlib on Linux.
    .args([
        "-lgcc_s",
        "-lutil",
        "-lrt",
        "-lpthread",
        "-lm",
        "-ldl",
        "-lc",
    ])
    .arg("-o")
    .arg(&path);
    let output = cc.output().expect("the system C compiler `cc`");
    assert!(
        output.status.success(),
        "cc failed:\n{}",
        String::from_utf8_lossy(&output.stderr)
    );
    Built { path }
}

/// Runs `program` with `args` (under valgrind if `valgrind`) and returns its stdout; fails
/// the test with its stderr if it exits non-zero.
pub fn run(program: &Built, args: &[&Path], valgrind: bool) -> String {
    let mut command = if valgrind {
        let mut c = Command::new("valgrind");
        c.args([
            "--error-exitcode=1",
            "--leak-check=full",
            "--errors-for-leak-kinds=definite,possible",
            "--quiet",
        ])
        .arg(&program.path);
        c
    } else {
        Command::new(&program.path)
    };
    let output = command.args(args).output().unwrap();
    let stdout = String::from_utf8(output.stdout).unwrap();
    assert!(
        output.status.success(),
        "{} failed ({}):\n{}\nstdout:\n{stdout}",
        program.path.display(),
        output.status,
        String::from_utf8_lossy(&output.stderr)
    );
    stdout
}

/// The lines after `== name` up to the next `== ` line.
pub fn section(out: &str, name: &str) -> String {
    let start = format!("== {name}\n");
    let Some(at) = out.find(&start) else {
        panic!("no section {name} in:\n{out}");
    };
    let rest = &out[at + start.len()..];
    let end = rest.find("\n== ").map_or(rest.len(), |e| e + 1);
    rest[..end].to_string()
}

/// The `pogo` binary: `POGO_BIN`, or `target/<profile>/pogo`, built if missing.
pub fn pogo_bin() -> &'static Path {
    static BIN: OnceLock<PathBuf> = OnceLock::new();
    BIN.get_or_init(|| {
        if let Some(bin) = std::env::var_os("POGO_BIN") {
            return PathBuf::from(bin);
        }
        let bin = profile_dir().join("pogo");
        if !bin.is_file() {
            let cargo = std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into());
            let mut build = Command::new(cargo);
            build
                .current_dir(repo_root())
                .args(["build", "--locked", "-p", "pogo", "--bin", "pogo"]);
            if release() {
                build.arg("--release");
            }
            let status = build.status().unwrap();
            assert!(status.success(), "cargo build -p pogo --bin pogo failed");
        }
        bin
    })
}

pub fn pogo<S: AsRef<OsStr>>(args: &[S]) -> Output {
    Command::new(pogo_bin()).args(args).output().unwrap()
}
