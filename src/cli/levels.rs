//! `pogo levels`: the built-in levels, one line each.

use std::fmt::Write as _;
use std::io::Write;

use clap::Args;
use pogo::replay::levels::{BUILTIN_LEVELS, builtin_level};

use super::CliError;

/// Arguments of `pogo levels` (none yet).
#[derive(Debug, Args)]
pub(crate) struct LevelsCommand {}

/// Runs `pogo levels`.
pub(crate) fn run(_args: &LevelsCommand, out: &mut dyn Write) -> Result<(), CliError> {
    out.write_all(report()?.as_bytes())?;
    Ok(())
}

/// One line per built-in level: name, counts, content hash, description; columns aligned.
fn report() -> Result<String, CliError> {
    let mut rows = Vec::new();
    for (name, description) in BUILTIN_LEVELS {
        let desc = builtin_level(name)
            .ok_or_else(|| CliError::bad_input(format!("built-in level `{name}` is missing")))?;
        rows.push([
            name.to_string(),
            format!("boxes={}", desc.solids.len()),
            format!("ramps={}", desc.ramps.len()),
            format!("platforms={}", desc.platforms.len()),
            format!("checkpoints={}", desc.checkpoints.len()),
            format!("hash={:016x}", desc.content_hash()),
            description.to_string(),
        ]);
    }
    let mut widths = [0; 6];
    for row in &rows {
        for (width, cell) in widths.iter_mut().zip(row) {
            *width = (*width).max(cell.chars().count());
        }
    }
    let mut text = String::new();
    for row in &rows {
        for (cell, width) in row.iter().zip(widths) {
            let _ = write!(text, "{cell:<width$}  ");
        }
        let _ = writeln!(text, "{}", row[6]);
    }
    Ok(text)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn one_aligned_line_per_builtin_level() {
        let text = report().unwrap();
        let lines: Vec<&str> = text.lines().collect();
        assert_eq!(lines.len(), BUILTIN_LEVELS.len());
        for (line, (name, description)) in lines.iter().zip(BUILTIN_LEVELS) {
            assert!(line.starts_with(&format!("{name} ")), "{line}");
            assert!(line.ends_with(description), "{line}");
        }
        let hash_column = |line: &str| line.find("hash=");
        assert!(
            lines
                .iter()
                .all(|l| hash_column(l) == hash_column(lines[0]))
        );
        assert!(text.contains("boxes=1 "), "{text}");
        assert!(text.contains("hash=8d77da143a8a5812"), "{text}");
    }
}
