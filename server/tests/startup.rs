//! A server that cannot start, against the real binary: it says why, with the address at
//! fault, and leaves nothing behind. A port already taken stops it before its SQLite file is
//! created; an unreachable PostgreSQL is named by `host:port` with the cause, never with the
//! URL's password.

mod support;

use std::process::{Command, Output, Stdio};

use support::*;

/// Runs `pogo-server` with `args` until it exits (each case here fails within seconds).
fn run_server(args: &[&str]) -> Output {
    Command::new(server_binary())
        .args(args)
        .env_remove("ADMIN_TOKEN")
        .stdin(Stdio::null())
        .output()
        .unwrap()
}

#[test]
fn a_port_already_taken_is_named_and_no_database_is_created() {
    let taken = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let address = taken.local_addr().unwrap().to_string();
    let dir = tempfile::tempdir().unwrap();
    let database = dir.path().join("pogo.db");
    let output = run_server(&[
        "--listen",
        &address,
        "--database",
        database.to_str().unwrap(),
    ]);
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_eq!(output.status.code(), Some(2), "stderr: {stderr}");
    assert!(
        stderr.contains(&format!("--listen {address}")),
        "the message names the address: {stderr}"
    );
    let left: Vec<_> = std::fs::read_dir(dir.path())
        .unwrap()
        .map(|e| e.unwrap().file_name())
        .collect();
    assert!(left.is_empty(), "files left behind: {left:?}");
}

#[test]
fn an_unreachable_postgres_is_named_with_its_cause_and_without_its_password() {
    // A loopback port nothing listens on: the connection is refused.
    let port = {
        let probe = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        probe.local_addr().unwrap().port()
    };
    let url = format!("postgres://pogo:hunter2secret@127.0.0.1:{port}/pogo");
    let listen = std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .to_string();
    let output = run_server(&["--listen", &listen, "--database", &url]);
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_eq!(output.status.code(), Some(1), "stderr: {stderr}");
    assert!(
        stderr.contains(&format!("PostgreSQL at 127.0.0.1:{port}")),
        "the message names the address: {stderr}"
    );
    assert!(
        stderr.to_lowercase().contains("refused"),
        "the message gives the cause: {stderr}"
    );
    assert!(
        !stderr.contains("hunter2secret"),
        "the password shown: {stderr}"
    );
}
