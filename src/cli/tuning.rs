//! `pogo tuning`: resolve a tuning from its layers and show it, or write it as a tuning file.
//!
//! Also home of [`TuningArgs`], the `--tuning FILE` / `--set key=value` options every
//! simulating subcommand shares. A `--set` value is written exactly as a number in a tuning
//! file, a JSON number: `24`, `-0.5`, `0.35`, `1e2`, `25e-1`; not `.5`, `5.`, `+24` or `01`
//! (each refused with what to write instead). It is parsed straight to fixed point, never
//! through a float, so `--set k=v` and `{"k": v}` give the same bits.

use std::fmt::Write as _;
use std::io::Write;
use std::path::PathBuf;

use clap::Args;
use pogo::core::{ParseFxError, Tuning, TuningError, TuningSpec};
use pogo::replay::tuning_file::{self, TUNING_FILE_BYTES_MAX};

use super::{CliError, input};

/// Where a tuning comes from: the defaults, then a tuning file, then `--set` overrides, each
/// layer overriding the one before.
#[derive(Debug, Args)]
pub(crate) struct TuningArgs {
    /// A JSON tuning file: an object mapping tuning keys to numbers, e.g.
    /// {"gravity": 24, "impact_transfer": 0.35}. Keys not given keep their defaults.
    #[arg(long = "tuning", value_name = "FILE")]
    pub file: Option<PathBuf>,
    /// Override one tuning key (applied after --tuning, in order); may be repeated. VALUE is
    /// written as in a tuning file (a JSON number): 24, -0.5, 1e2; not .5, 5. or +24.
    #[arg(long = "set", value_name = "KEY=VALUE")]
    pub overrides: Vec<String>,
}

impl TuningArgs {
    /// Builds the tuning: defaults ← file ← overrides, then validated as a whole (relations
    /// between keys are checked only at the end, so a later layer may fix an earlier one).
    pub fn resolve(&self) -> Result<Tuning, CliError> {
        let mut spec = TuningSpec::default();
        if let Some(path) = &self.file {
            let text = input::read_text(path, TUNING_FILE_BYTES_MAX)?;
            tuning_file::apply_tuning_json(&mut spec, &text)
                .map_err(|e| CliError::bad_input(format!("{}: {e}", path.display())))?;
        }
        for assignment in &self.overrides {
            spec.apply_override(assignment).map_err(|e| {
                let hint = match &e {
                    TuningError::NotANumber {
                        text,
                        reason: ParseFxError::NotDecimal,
                        ..
                    } => format!(" ({})", decimal_hint(text)),
                    _ => String::new(),
                };
                CliError::bad_input(format!("--set {assignment}: {e}{hint}"))
            })?;
        }
        Tuning::new(spec).map_err(|e| CliError::bad_input(format!("invalid tuning: {e}")))
    }
}

/// What to write instead of `text`, which is not a JSON number.
fn decimal_hint(text: &str) -> String {
    let (sign, body) = match text.strip_prefix('-') {
        Some(body) => ("-", body),
        None => ("", text),
    };
    let digits = |s: &str| !s.is_empty() && s.bytes().all(|b| b.is_ascii_digit());
    if let Some(rest) = text.strip_prefix('+') {
        format!("no leading +: write {rest}")
    } else if let Some(frac) = body.strip_prefix('.').filter(|f| digits(f)) {
        format!("a digit before the point: write {sign}0.{frac}")
    } else if let Some(whole) = body.strip_suffix('.').filter(|w| digits(w)) {
        format!("a digit after the point, or none: write {sign}{whole}")
    } else if digits(body) && body.len() > 1 && body.starts_with('0') {
        let trimmed = body.trim_start_matches('0');
        format!(
            "no leading zeros: write {sign}{}",
            if trimmed.is_empty() { "0" } else { trimmed }
        )
    } else {
        "numbers are written as in a tuning file, e.g. 24, -0.5, 1e2".to_string()
    }
}

/// Arguments of `pogo tuning`.
#[derive(Debug, Args)]
pub(crate) struct TuningCommand {
    #[command(flatten)]
    tuning: TuningArgs,
    /// Print the resolved tuning as a JSON tuning file (every key, exact values), to start a
    /// tuning file from.
    #[arg(long)]
    json: bool,
}

/// Runs `pogo tuning`.
pub(crate) fn run(args: &TuningCommand, out: &mut dyn Write) -> Result<(), CliError> {
    let tuning = args.tuning.resolve()?;
    let text = if args.json {
        tuning_file::tuning_to_json(tuning.spec())
    } else {
        report(&tuning)
    };
    out.write_all(text.as_bytes())?;
    Ok(())
}

/// The human-readable report: keys, derived values, hash, steady bounce.
fn report(tuning: &Tuning) -> String {
    let spec = tuning.spec();
    let mut keys = vec![row("key", "value", "unit", "range")];
    for key in TuningSpec::KEYS {
        let unit = if key.unit.is_empty() { "-" } else { key.unit };
        let range = format!("{}..={}", key.min, key.max);
        keys.push(row(key.name, &key.get(spec).to_string(), unit, &range));
    }

    let d = tuning.derived();
    let ticks = |t: pogo::core::Ticks| t.to_string();
    let derived = [
        row("dt", &d.dt.to_string(), "s", "1 / tick_rate"),
        row(
            "half_dt_squared",
            &d.half_dt_squared.to_string(),
            "s²",
            "dt² / 2",
        ),
        row(
            "compression_ticks",
            &ticks(d.compression_ticks),
            "ticks",
            "compression_time",
        ),
        row(
            "relaunch_cooldown_ticks",
            &ticks(d.relaunch_cooldown_ticks),
            "ticks",
            "relaunch_cooldown",
        ),
        row("stun_ticks", &ticks(d.stun_ticks), "ticks", "stun_time"),
        row("trick_ticks", &ticks(d.trick_ticks), "ticks", "trick_time"),
        row(
            "launch_cone_cos",
            &d.launch_cone_cos.to_string(),
            "-",
            "cos max_launch_angle",
        ),
        row(
            "launch_cone_sin",
            &d.launch_cone_sin.to_string(),
            "-",
            "sin max_launch_angle",
        ),
        row(
            "assist_cos",
            &d.assist_cos.to_string(),
            "-",
            "cos assist_angle",
        ),
        row(
            "perfect_cos",
            &d.perfect_cos.to_string(),
            "-",
            "cos perfect_angle",
        ),
        row(
            "lean_max_sin",
            &d.lean_max_sin.to_string(),
            "-",
            "sin max_lean_angle",
        ),
        row(
            "lean_step_cos",
            &d.lean_step_cos.to_string(),
            "-",
            "cos (lean_rate · dt)",
        ),
        row(
            "lean_step_sin",
            &d.lean_step_sin.to_string(),
            "-",
            "sin (lean_rate · dt)",
        ),
        row(
            "perfect_min_hop_squared",
            &d.perfect_min_hop_squared.to_string(),
            "m²",
            "perfect_min_hop²",
        ),
    ];

    let mut text = String::new();
    write_table(&mut text, &keys, "");
    text.push_str("derived:\n");
    write_table(&mut text, &derived, "  ");
    let _ = writeln!(text, "hash={:016x}", tuning.content_hash());
    let (launch, apex) = pogo_core::design::steady_bounce(spec);
    let _ = writeln!(text, "steady: launch={launch:.4} apex={apex:.4}");
    text
}

type Row = [String; 4];

fn row(a: &str, b: &str, c: &str, d: &str) -> Row {
    [a.to_string(), b.to_string(), c.to_string(), d.to_string()]
}

/// Writes rows with every column but the last padded to its widest cell (in characters).
fn write_table(text: &mut String, rows: &[Row], indent: &str) {
    let width = |col: usize| {
        rows.iter()
            .map(|r| r[col].chars().count())
            .max()
            .unwrap_or(0)
    };
    let widths = [width(0), width(1), width(2)];
    for r in rows {
        let _ = writeln!(
            text,
            "{indent}{:<w0$}  {:<w1$}  {:<w2$}  {}",
            r[0],
            r[1],
            r[2],
            r[3],
            w0 = widths[0],
            w1 = widths[1],
            w2 = widths[2],
        );
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn report_lists_every_key_and_ends_with_hash_and_steady() {
        let text = report(&Tuning::default());
        for key in TuningSpec::KEYS {
            assert!(
                text.lines().any(|l| l.starts_with(key.name)),
                "{}",
                key.name
            );
        }
        let lines: Vec<&str> = text.lines().collect();
        assert!(lines[lines.len() - 2].starts_with("hash="));
        assert_eq!(lines[lines.len() - 1], "steady: launch=12.6316 apex=3.3241");
    }
}
