//! Errors: a status code and a message, as data until the boundary, where the code is
//! returned and the message kept for `pogo_last_error` (per thread) and `pogo_handle_error`
//! (per handle).
//!
//! Messages may quote what a caller passed (a level name, a JSON key), so they are made safe
//! to print when they are built: control characters are escaped and the length is capped.

use std::any::Any;
use std::cell::RefCell;
use std::fmt;

use crate::types::PogoStatus;

/// Longest message kept (bytes); longer ones are cut at a character boundary. Messages are
/// ours and short (a JSON error with its line and column, a desync with two hashes); the cap
/// only bounds what a caller-supplied string inside one can add.
pub(crate) const MESSAGE_BYTES_MAX: usize = 1024;

/// A failed call: what to return and what to tell.
#[derive(Clone, PartialEq, Eq)]
pub struct Error {
    pub status: PogoStatus,
    pub message: String,
}

impl fmt::Debug for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{:?}: {}", self.status, self.message)
    }
}

impl Error {
    pub fn new(status: PogoStatus, message: impl fmt::Display) -> Error {
        Error {
            status,
            message: printable(&message.to_string()),
        }
    }

    pub fn null(what: &str) -> Error {
        Error::new(PogoStatus::NullPointer, format_args!("{what} is NULL"))
    }

    pub fn invalid(message: impl fmt::Display) -> Error {
        Error::new(PogoStatus::InvalidArgument, message)
    }

    pub fn mismatch(message: impl fmt::Display) -> Error {
        Error::new(PogoStatus::Mismatch, message)
    }

    pub fn state(message: impl fmt::Display) -> Error {
        Error::new(PogoStatus::InvalidState, message)
    }

    pub fn limit(message: impl fmt::Display) -> Error {
        Error::new(PogoStatus::Limit, message)
    }

    /// A panic caught at the boundary: a bug here, reported instead of unwinding into C.
    pub fn internal(payload: &(dyn Any + Send)) -> Error {
        let what = payload
            .downcast_ref::<&str>()
            .copied()
            .or_else(|| payload.downcast_ref::<String>().map(String::as_str))
            .unwrap_or("unknown panic");
        Error::new(
            PogoStatus::Internal,
            format_args!("internal error in pogo-ffi (please report): {what}"),
        )
    }
}

/// `text` with control characters escaped (`\n`, `\u{1b}`) and cut to [`MESSAGE_BYTES_MAX`].
pub fn printable(text: &str) -> String {
    let mut out = String::with_capacity(text.len().min(MESSAGE_BYTES_MAX));
    for c in text.chars() {
        let piece: String = if c.is_control() {
            c.escape_default().collect()
        } else {
            c.to_string()
        };
        if out.len() + piece.len() > MESSAGE_BYTES_MAX {
            break;
        }
        out.push_str(&piece);
    }
    out
}

thread_local! {
    /// The message of this thread's last failed call (a thread-local, like `errno`, so
    /// threads using different handles don't see each other's errors).
    static LAST_ERROR: RefCell<String> = const { RefCell::new(String::new()) };
}

/// Remembers `error` as this thread's last error.
pub fn set_last(error: &Error) {
    LAST_ERROR.with(|last| last.borrow_mut().clone_from(&error.message));
}

/// This thread's last error message ("" if no call failed yet).
pub fn last() -> String {
    LAST_ERROR.with(|last| last.borrow().clone())
}

/// `api.rs`'s `call` for entry points that return a value rather than a status: `fallback` if the
/// body panics (after remembering the error).
pub fn call_value<T>(fallback: T, body: impl FnOnce() -> T) -> T {
    match std::panic::catch_unwind(std::panic::AssertUnwindSafe(body)) {
        Ok(value) => value,
        Err(payload) => {
            set_last(&Error::internal(&*payload));
            fallback
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn messages_are_printable_and_bounded() {
        let e = Error::invalid("a\nb\u{1b}[31mc");
        assert_eq!(e.message, "a\\nb\\u{1b}[31mc");
        let long = "é".repeat(MESSAGE_BYTES_MAX);
        let cut = printable(&long);
        assert!(cut.len() <= MESSAGE_BYTES_MAX);
        assert_eq!(cut.len(), MESSAGE_BYTES_MAX); // 2-byte characters fill it exactly
    }
}
