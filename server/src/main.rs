//! `pogo-server`: starts the leaderboard service (see `pogo-server --help`). Logs go to
//! stderr (`RUST_LOG` filters them, default `info`); SIGINT or SIGTERM shut it down
//! gracefully, and the process exits within `--stop-deadline-s` whatever clients do
//! (`Server::run`). The soft limit on open files is raised to the hard one at start. Exit code
//! 2 for a bad configuration, 1 if serving fails.
//!
//! `pogo-server reverify` re-verifies past seasons' runs instead of serving
//! (`pogo_server::reverify`): its report on stdout, a progress bar on stderr when it is a
//! terminal; exit code 2 for a bad configuration, 1 if the database fails mid-way (what was
//! committed stays; run it again to resume).
//!
//! `pogo-server check` checks the database instead (`pogo_server::check`): its report on
//! stdout; exit code 1 if anything is wrong or the database fails, 2 for a bad
//! configuration.

// No function over 120 lines (blank lines and comments aside; the threshold is clippy.toml's).
#![warn(clippy::too_many_lines)]

use std::io::IsTerminal;
use std::process::ExitCode;

use pogo_server::config::{Command, LogFormat, ReverifyArgs};
use pogo_server::reverify::{Options, ReverifyError};
use pogo_server::{Config, Server, ServerError};
use tracing_subscriber::EnvFilter;

/// mimalloc, not glibc's malloc: a live race allocates and frees small buffers on every
/// message (PERFORMANCE.md, "The relay and its floor", round nine).
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

fn main() -> ExitCode {
    let runtime = match tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
    {
        Ok(runtime) => runtime,
        Err(e) => {
            eprintln!("error: cannot start the runtime: {e}");
            return ExitCode::FAILURE;
        }
    };
    let code = runtime.block_on(serve_or_reverify());
    // A verification still running on a blocking thread past the stop deadline is abandoned
    // (its claim expires and is taken over); dropping the runtime would wait for it.
    runtime.shutdown_timeout(pogo_server::limits::RUNTIME_SHUTDOWN_GRACE);
    code
}

async fn serve_or_reverify() -> ExitCode {
    let config = Config::from_env();
    // `reverify` prints a report: only warnings and errors in the log unless RUST_LOG says.
    let quiet = config.command.is_some();
    let filter = EnvFilter::try_from_default_env()
        .unwrap_or_else(|_| EnvFilter::new(if quiet { "warn" } else { "info" }));
    let logs = tracing_subscriber::fmt()
        .with_env_filter(filter)
        .with_ansi(std::io::stderr().is_terminal())
        .with_writer(std::io::stderr);
    match config.log_format {
        LogFormat::Text => logs.init(),
        LogFormat::Json => logs.json().init(),
    }
    // A maintenance command's own options are checked before the database is opened.
    let reverify_options = match &config.command {
        Some(Command::Reverify(args)) => match reverify_options(args) {
            Ok(options) => Some(options),
            Err(e) => {
                eprintln!("error: {e}");
                return ExitCode::from(2);
            }
        },
        Some(Command::Check) | None => None,
    };
    // The port before the database: a server that cannot listen stops before it has created
    // or migrated anything (no `pogo.db` left behind).
    let listener = match &config.command {
        None => {
            raise_open_files_limit();
            match tokio::net::TcpListener::bind(config.listen).await {
                Ok(listener) => Some(listener),
                Err(e) => {
                    eprintln!("error: --listen {}: {e}", config.listen);
                    return ExitCode::from(2);
                }
            }
        }
        Some(_) => None,
    };
    let server = match Server::open(&config).await {
        Ok(server) => server,
        Err(e) => {
            eprintln!("error: {e}");
            return ExitCode::from(match e {
                ServerError::Config(_) => 2,
                _ => 1,
            });
        }
    };
    if let Some(options) = reverify_options {
        return reverify(&server, &options).await;
    }
    if config.command == Some(Command::Check) {
        return check(&server).await;
    }
    let Some(listener) = listener else {
        // Not reached: a command (`reverify`, `check`) returned above, and serving binds first.
        return ExitCode::FAILURE;
    };
    match server.run(listener, shutdown_signal()).await {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("error: {e}");
            ExitCode::FAILURE
        }
    }
}

/// `pogo-server reverify`'s flags, checked (all but `--only-level`, which needs the levels).
fn reverify_options(args: &ReverifyArgs) -> Result<Options, String> {
    let season = args
        .season
        .as_deref()
        .map(str::parse)
        .transpose()
        .map_err(|e| format!("--{e}"))?;
    let batch_max = pogo_server::reverify::BATCH_MAX;
    if !(1..=batch_max).contains(&args.batch) {
        return Err(format!(
            "--batch {}: must be within 1..={batch_max}",
            args.batch
        ));
    }
    Ok(Options {
        limit: args.limit,
        batch: args.batch,
        season,
        level: args.only_level.clone(),
    })
}

/// `pogo-server reverify`: re-verifies, prints the report on stdout.
async fn reverify(server: &Server, options: &Options) -> ExitCode {
    let progress = if std::io::stderr().is_terminal() {
        let bar = indicatif::ProgressBar::new(0);
        if let Ok(style) = indicatif::ProgressStyle::with_template(
            "{bar:40} {pos}/{len} runs re-verified, {elapsed} {eta}",
        ) {
            bar.set_style(style);
        }
        bar
    } else {
        indicatif::ProgressBar::hidden()
    };
    let outcome = pogo_server::reverify::reverify(server.state(), options, &progress).await;
    server.state().store.close().await;
    match outcome {
        Ok(report) => {
            print!("{report}");
            ExitCode::SUCCESS
        }
        Err(e) => {
            eprintln!("error: {e}");
            ExitCode::from(match e {
                ReverifyError::Options(_) => 2,
                _ => 1,
            })
        }
    }
}

/// Raises the soft limit on open files to the hard one (each connection is one), and logs both.
fn raise_open_files_limit() {
    #[cfg(unix)]
    match pogo_server::serve::raise_open_files_limit() {
        Ok(limits) => {
            let show = |limit: Option<u64>| limit.map_or("unlimited".into(), |n| n.to_string());
            tracing::info!(
                soft_was = %show(limits.soft_before),
                soft = %show(limits.soft),
                hard = %show(limits.hard),
                "open files limit"
            );
        }
        Err(e) => tracing::warn!(error = %e, "cannot raise the open files limit"),
    }
}

/// `pogo-server check`: checks the database, prints the report on stdout.
async fn check(server: &Server) -> ExitCode {
    let state = server.state();
    let limits = state.catalog.verifier().limits();
    let outcome = pogo_server::check::check(&state.store, limits).await;
    state.store.close().await;
    match outcome {
        Ok(report) => {
            print!("{report}");
            if report.clean() {
                ExitCode::SUCCESS
            } else {
                ExitCode::FAILURE
            }
        }
        Err(e) => {
            eprintln!("error: {e}");
            ExitCode::FAILURE
        }
    }
}

/// Completes on SIGINT (Ctrl-C) or SIGTERM.
async fn shutdown_signal() {
    let interrupt = async {
        let _ = tokio::signal::ctrl_c().await;
    };
    #[cfg(unix)]
    let terminate = async {
        match tokio::signal::unix::signal(tokio::signal::unix::SignalKind::terminate()) {
            Ok(mut signal) => {
                signal.recv().await;
            }
            Err(_) => std::future::pending::<()>().await,
        }
    };
    #[cfg(not(unix))]
    let terminate = std::future::pending::<()>();
    tokio::select! {
        _ = interrupt => {}
        _ = terminate => {}
    }
    tracing::info!("shutdown signal");
}
