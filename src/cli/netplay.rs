//! `pogo netplay`: one peer of a two-player rollback session with GGRS over UDP.
//! The session itself is `pogo_netplay::run_peer`; this module turns flags into its inputs
//! and its outcome into the `SIG` lines of `pogo simulate`.
//!
//! ```text
//! pogo netplay --local-port 7000 --remote 127.0.0.1:7001 --player 0 --bot --record p0.pogo
//! pogo netplay --local-port 7001 --remote 127.0.0.1:7000 --player 1 --random 5 --record p1.pogo
//! ```
//!
//! Each peer drives its own player (`--bot`, `--inputs FILE` — the script's section for that
//! player, or its only one —, `--random SEED`, or neutral input) and plays the other as it
//! arrives. Both must be given the same `--ticks`, level and tuning; they then print the same
//! `SIG` lines (stdout) and record byte-identical replays (`--record`: confirmed inputs only,
//! no player name or date) that `pogo verify` accepts. On stderr: progress notes and one
//! summary line with the rollbacks (count, per second, longest) and the packets.
//!
//! `--loss P`, `--delay-ms A..B`, `--duplicate P`, `--reorder P` make this peer's outgoing
//! packets faulty, drawn from `--seed S` (see `pogo_netplay::FaultySocket`); P is a
//! probability (`0.05`) or a percentage (`5%`).
//!
//! Exit codes follow the CLI contract: 2 for bad arguments, a port that cannot be bound or a
//! recording that cannot be written; 1 when the session ran but did not complete (no answer,
//! the other peer left early, a desync).

use std::fs::File;
use std::io::{BufWriter, Write};
use std::net::SocketAddr;
use std::path::PathBuf;
use std::sync::Arc;

use clap::Args;
use pogo::core::Simulation;
use pogo::netplay::session::{PLAYERS, TICKS_MAX};
use pogo::netplay::{
    DELAY_MS_MAX, Faults, NetplayError, PPM, PeerConfig, PeerOutcome, Player, SplitMix64, run_peer,
};
use pogo::replay::input_script::INPUT_SCRIPT_BYTES_MAX;
use pogo::replay::{Header, Recorder, parse_input_script};

use super::signature::signature_lines;
use super::simulate::build_world;
use super::tuning::TuningArgs;
use super::{CliError, input};

/// Default `--ticks`: ten seconds at 60 Hz.
const TICKS_DEFAULT: u32 = 600;
/// Default level: the one with everything in it.
const LEVEL_DEFAULT: &str = "course";
/// Most decimals of a probability (parts per million).
const PROBABILITY_DECIMALS_MAX: usize = 6;

/// Arguments of `pogo netplay`.
#[derive(Debug, Args)]
pub(crate) struct NetplayCommand {
    /// The UDP port to listen on (on all interfaces: GGRS's UDP socket).
    #[arg(long, value_name = "PORT")]
    local_port: u16,
    /// The other peer's address, IP:PORT (e.g. 127.0.0.1:7001).
    #[arg(long, value_name = "ADDR")]
    remote: SocketAddr,
    /// The local player, 0 or 1; the other one is remote.
    #[arg(long, value_name = "0|1")]
    player: usize,
    /// Drive the local player with the demo bot.
    #[arg(long, conflicts_with_all = ["inputs", "random"])]
    bot: bool,
    /// Drive the local player with an input script (its `player N` section, or its only one).
    #[arg(long, value_name = "FILE", conflicts_with = "random")]
    inputs: Option<PathBuf>,
    /// Drive the local player with seeded random input.
    #[arg(long, value_name = "SEED")]
    random: Option<u64>,
    /// Ticks to play and record; both peers must agree.
    #[arg(long, value_name = "N", default_value_t = TICKS_DEFAULT)]
    ticks: u32,
    /// A built-in level name or a level JSON file; both peers must agree.
    #[arg(long, value_name = "LEVEL", default_value = LEVEL_DEFAULT)]
    level: String,
    #[command(flatten)]
    tuning: TuningArgs,
    /// Record the session's confirmed ticks as a replay (the same bytes on both peers).
    #[arg(long, value_name = "FILE")]
    record: Option<PathBuf>,
    /// Drop this share of outgoing packets: a probability (0.05) or a percentage (5%).
    #[arg(long, value_name = "P")]
    loss: Option<String>,
    /// Delay every outgoing packet by A to B milliseconds (uniform jitter), or by A.
    #[arg(long, value_name = "A..B")]
    delay_ms: Option<String>,
    /// Send this share of outgoing packets twice.
    #[arg(long, value_name = "P")]
    duplicate: Option<String>,
    /// Hold this share of outgoing packets back so later ones overtake them.
    #[arg(long, value_name = "P")]
    reorder: Option<String>,
    /// Seed of the faulty network's draws.
    #[arg(long, value_name = "S", default_value_t = 0)]
    seed: u64,
}

/// Runs `pogo netplay`.
pub(crate) fn run(args: &NetplayCommand, out: &mut dyn Write) -> Result<(), CliError> {
    if args.player >= PLAYERS {
        return Err(CliError::bad_input(format!(
            "--player {}: must be 0 or 1",
            args.player
        )));
    }
    if args.ticks == 0 || args.ticks > TICKS_MAX {
        return Err(CliError::bad_input(format!(
            "--ticks {}: must be within 1..={TICKS_MAX}",
            args.ticks
        )));
    }
    let faults = faults(args)?;
    let tuning = args.tuning.resolve()?;
    let tick_rate = tuning.spec().tick_rate;
    let world = build_world(&args.level, &tuning)?;
    let sim = Simulation::new(Arc::new(world), tuning, PLAYERS)
        .map_err(|e| CliError::bad_input(format!("cannot start the simulation: {e}")))?;
    let local = local_player(args, tick_rate)?;
    let recorder = match &args.record {
        Some(path) => {
            let file = File::create(path).map_err(|e| {
                CliError::bad_input(format!("{}: cannot create recording: {e}", path.display()))
            })?;
            // No player name or date: both peers write the same bytes.
            let header = Header::for_simulation(&sim, None, None);
            let recorder = Recorder::new(BufWriter::new(file), header).map_err(|e| {
                CliError::bad_input(format!("{}: cannot write recording: {e}", path.display()))
            })?;
            Some(recorder)
        }
        None => None,
    };
    let config = PeerConfig {
        local_port: args.local_port,
        remote: args.remote,
        player: args.player,
        ticks: args.ticks,
        faults,
    };
    let mut notes = |note: std::fmt::Arguments| eprintln!("netplay: {note}");
    let outcome =
        run_peer(sim, local, &config, recorder, &mut notes).map_err(|e| peer_error(args, e))?;
    // The recording is complete: `run_peer` wrote the trailer and flushed the file.
    eprintln!("netplay: {}", summary(args.player, tick_rate, &outcome));
    for line in signature_lines(outcome.sim.state(), outcome.sim.state_hash()) {
        writeln!(out, "{line}")?;
    }
    Ok(())
}

/// The local player's input source.
fn local_player(args: &NetplayCommand, tick_rate: u32) -> Result<Player, CliError> {
    if args.bot {
        return Ok(Player::bot());
    }
    if let Some(seed) = args.random {
        return Ok(Player::random(seed));
    }
    if let Some(path) = &args.inputs {
        let text = input::read_text(path, INPUT_SCRIPT_BYTES_MAX)?;
        let script = parse_input_script(&text)
            .map_err(|e| CliError::bad_input(format!("{}: {e}", path.display())))?;
        return Ok(Player::script(&script, args.player, tick_rate));
    }
    Ok(Player::Neutral)
}

/// The fault profile of the flags. The seed is mixed with the player, so the two directions
/// of one session draw differently from one `--seed`.
fn faults(args: &NetplayCommand) -> Result<Faults, CliError> {
    let probability = |flag: &str, value: &Option<String>| -> Result<u32, CliError> {
        match value {
            None => Ok(0),
            Some(text) => parse_probability(text).ok_or_else(|| {
                CliError::bad_input(format!(
                    "{flag} {text:?}: expected a probability 0..1 (at most \
                     {PROBABILITY_DECIMALS_MAX} decimals) or a percentage like 5%"
                ))
            }),
        }
    };
    let (delay_ms_min, delay_ms_max) = match &args.delay_ms {
        None => (0, 0),
        Some(text) => parse_delay(text).ok_or_else(|| {
            CliError::bad_input(format!(
                "--delay-ms {text:?}: expected A..B or A, whole milliseconds with \
                 A <= B <= {DELAY_MS_MAX}"
            ))
        })?,
    };
    let seed =
        SplitMix64::new(args.seed ^ (args.player as u64).wrapping_mul(0x9E37_79B9)).next_u64();
    Ok(Faults {
        loss_ppm: probability("--loss", &args.loss)?,
        duplicate_ppm: probability("--duplicate", &args.duplicate)?,
        reorder_ppm: probability("--reorder", &args.reorder)?,
        delay_ms_min,
        delay_ms_max,
        seed,
    })
}

/// A probability as parts per million, exactly: `0.05`, `1`, `0` or a percentage `5%`,
/// `12.5%`; at most 1.
fn parse_probability(text: &str) -> Option<u32> {
    let (number, scale_decimals) = match text.strip_suffix('%') {
        Some(percent) => (percent, 2),
        None => (text, 0),
    };
    let (whole, frac) = number.split_once('.').unwrap_or((number, ""));
    let digits = |s: &str| !s.is_empty() && s.bytes().all(|b| b.is_ascii_digit());
    if !digits(whole) || (number.contains('.') && !digits(frac)) {
        return None;
    }
    // value = whole.frac / 10^scale_decimals, in millionths.
    let decimals = PROBABILITY_DECIMALS_MAX.checked_sub(scale_decimals)?;
    if frac.len() > decimals || whole.len() > 3 {
        return None;
    }
    let whole: u64 = whole.parse().ok()?;
    let frac_value: u64 = if frac.is_empty() {
        0
    } else {
        frac.parse().ok()?
    };
    let unit = 10u64.pow(decimals as u32);
    let ppm = whole * unit + frac_value * 10u64.pow((decimals - frac.len()) as u32);
    u32::try_from(ppm).ok().filter(|&p| p <= PPM)
}

/// `A..B` or `A` (whole milliseconds, A ≤ B ≤ [`DELAY_MS_MAX`]).
fn parse_delay(text: &str) -> Option<(u32, u32)> {
    let (a, b) = text.split_once("..").unwrap_or((text, text));
    let ms = |s: &str| {
        (!s.is_empty() && s.len() <= 5 && s.bytes().all(|c| c.is_ascii_digit()))
            .then(|| s.parse::<u32>().ok())
            .flatten()
    };
    let (a, b) = (ms(a)?, ms(b)?);
    (a <= b && b <= DELAY_MS_MAX).then_some((a, b))
}

/// A session failure as a CLI error: bad setup is bad input (2), a session that ran and did
/// not complete is a failed check (1).
fn peer_error(args: &NetplayCommand, error: NetplayError) -> CliError {
    match error {
        NetplayError::Bind { .. } | NetplayError::Faults(_) => CliError::bad_input(error),
        NetplayError::Record(e) => {
            let path = args.record.as_ref().map(|p| p.display().to_string());
            CliError::bad_input(format!(
                "{}: cannot write recording: {e}",
                path.unwrap_or_default()
            ))
        }
        other => CliError::failed(format!("netplay: {other}")),
    }
}

/// One line: rollbacks, the record check, packets.
fn summary<W>(player: usize, tick_rate: u32, outcome: &PeerOutcome<W>) -> String {
    let r = &outcome.rollbacks;
    let n = &outcome.network;
    let ticks = outcome.sim.state().tick.0;
    // Display only: seconds of play and the rate per second as decimals.
    let seconds = f64::from(ticks) / f64::from(tick_rate.max(1));
    format!(
        "player {player}: {ticks} ticks confirmed in {:.1} s; rollbacks={} ({:.1}/s) \
         longest={} ticks resimulated={} ticks; record checked on {} ticks; packets \
         sent={} lost={} duplicated={} reordered={} overflowed={}; ran {} ticks past the end",
        outcome.wall.as_secs_f64(),
        r.rollbacks,
        r.rollbacks as f64 / seconds,
        r.longest_ticks,
        r.resimulated_ticks,
        outcome.checked_ticks,
        n.sent,
        n.dropped,
        n.duplicated,
        n.reordered,
        n.overflowed,
        outcome.extra_ticks,
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn probabilities_parse_exactly() {
        assert_eq!(parse_probability("0"), Some(0));
        assert_eq!(parse_probability("1"), Some(PPM));
        assert_eq!(parse_probability("0.05"), Some(50_000));
        assert_eq!(parse_probability("0.000001"), Some(1));
        assert_eq!(parse_probability("5%"), Some(50_000));
        assert_eq!(parse_probability("20%"), Some(200_000));
        assert_eq!(parse_probability("12.5%"), Some(125_000));
        assert_eq!(parse_probability("100%"), Some(PPM));
        assert_eq!(parse_probability("0.0001%"), Some(1));
        for bad in [
            "",
            "1.5",
            "101%",
            "0.0000001",
            "0.00001%",
            "-0.1",
            ".5",
            "5.",
            "1e-2",
            "%",
            "abc",
            "5 %",
            "99999999999",
        ] {
            assert_eq!(parse_probability(bad), None, "{bad:?}");
        }
    }

    #[test]
    fn delays_parse_as_ranges() {
        assert_eq!(parse_delay("30..120"), Some((30, 120)));
        assert_eq!(parse_delay("40"), Some((40, 40)));
        assert_eq!(parse_delay("0..0"), Some((0, 0)));
        for bad in [
            "120..30", "..5", "5..", "a..b", "-1..3", "0..1001", "1.5..2", "",
        ] {
            assert_eq!(parse_delay(bad), None, "{bad:?}");
        }
    }
}
