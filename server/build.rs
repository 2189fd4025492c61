//! Makes a skipped PostgreSQL half of the server's tests visible in plain `cargo test` output.
//!
//! The integration tests run each case on SQLite and, when `POGO_TEST_POSTGRES_URL` is set, on
//! PostgreSQL too. Rust's test harness has no runtime "skipped": a test that leaves out its
//! PostgreSQL half still says `ok`, and a message on stderr is captured unless the test
//! fails. So when the variable is unset at build time, this sets the cfg
//! `postgres_tests_skipped`, under which `tests/api.rs` has one more test, ignored with a
//! reason: `cargo test` lists it as `ignored, POGO_TEST_POSTGRES_URL is unset: …` and counts
//! it in its summary. Cargo rebuilds when the variable changes (`rerun-if-env-changed`).

fn main() {
    println!("cargo::rerun-if-env-changed=POGO_TEST_POSTGRES_URL");
    println!("cargo::rustc-check-cfg=cfg(postgres_tests_skipped)");
    if std::env::var_os("POGO_TEST_POSTGRES_URL").is_none_or(|v| v.is_empty()) {
        println!("cargo::rustc-cfg=postgres_tests_skipped");
    }
}
