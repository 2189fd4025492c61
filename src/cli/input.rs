//! Reading input files for the subcommands: bounded in size, UTF-8, errors naming the file.

use std::fs::File;
use std::io::Read;
use std::path::Path;

use super::CliError;

/// Reads `path` as UTF-8 text of at most `limit` bytes. Reads at most `limit + 1` bytes, so
/// an oversized (or endless) input costs no more memory than the limit. Errors name the file.
pub(crate) fn read_text(path: &Path, limit: usize) -> Result<String, CliError> {
    let name = path.display();
    let file =
        File::open(path).map_err(|e| CliError::bad_input(format!("{name}: cannot open: {e}")))?;
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
