//! Reading input files for the subcommands: one way to open a path (so a missing file, a
//! directory and `-` are the same bad input everywhere), bounded in size, errors naming the
//! file.

use std::fmt;
use std::fs::File;
use std::io::{self, Read};
use std::path::Path;

use super::CliError;

/// Why a path given as input cannot be read. Every command treats it as bad input (exit 2).
#[derive(Debug)]
pub(crate) enum OpenError {
    /// `-`: no command reads standard input.
    Stdin,
    /// The path is a directory.
    Directory,
    /// Opening failed (missing, no permission…).
    Io(io::Error),
}

impl fmt::Display for OpenError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            OpenError::Stdin => {
                f.write_str("cannot read standard input (`-`): this command reads files; name one")
            }
            OpenError::Directory => f.write_str("is a directory, not a file"),
            OpenError::Io(e) => write!(f, "cannot open: {e}"),
        }
    }
}

/// Opens `path` for reading: a file, not `-` and not a directory.
pub(crate) fn open(path: &Path) -> Result<File, OpenError> {
    if path.as_os_str() == "-" {
        return Err(OpenError::Stdin);
    }
    let file = File::open(path).map_err(OpenError::Io)?;
    match file.metadata() {
        Ok(meta) if meta.is_dir() => Err(OpenError::Directory),
        Ok(_) => Ok(file),
        Err(e) => Err(OpenError::Io(e)),
    }
}

/// [`open`] as a CLI error naming the file.
pub(crate) fn open_or_bad_input(path: &Path) -> Result<File, CliError> {
    open(path).map_err(|e| CliError::bad_input(format!("{}: {e}", path.display())))
}

/// Reads `path` as UTF-8 text of at most `limit` bytes. Reads at most `limit + 1` bytes, so
/// an oversized (or endless) input costs no more memory than the limit. Errors name the file.
pub(crate) fn read_text(path: &Path, limit: usize) -> Result<String, CliError> {
    let name = path.display();
    let file = open_or_bad_input(path)?;
    let mut bytes = Vec::new();
    let cap = u64::try_from(limit).unwrap_or(u64::MAX).saturating_add(1);
    file.take(cap)
        .read_to_end(&mut bytes)
        .map_err(|e| CliError::bad_input(format!("{name}: cannot read: {e}")))?;
    if bytes.len() > limit {
        return Err(CliError::bad_input(format!(
            "{name}: larger than the {limit}-byte limit for this file"
        )));
    }
    String::from_utf8(bytes).map_err(|e| {
        CliError::bad_input(format!(
            "{name}: not UTF-8 text (invalid byte at offset {})",
            e.utf8_error().valid_up_to()
        ))
    })
}

/// Refuses `-` as an output path (no command writes its file output to standard output, except
/// `simulate --trace -`, which handles it itself): a file called `-` would be created instead.
pub(crate) fn check_output(option: &str, path: &Path) -> Result<(), CliError> {
    if path.as_os_str() == "-" {
        return Err(CliError::bad_input(format!(
            "{option} -: cannot write this to standard output; name a file"
        )));
    }
    Ok(())
}
