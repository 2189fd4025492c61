//! Escaping untrusted text before it reaches a terminal.
//!
//! A replay's header (level name), a file path, a level file's name, an error quoting any of
//! them: all come from someone else, and a terminal obeys what it is sent. A newline in a
//! name could print a fake `OK` line under a `FAIL` one; an ANSI escape could recolour or
//! erase output; a right-to-left override (U+202E) or a zero-width space (U+200B) could make
//! two different names look alike. So every piece of untrusted text in the CLI's text output
//! goes through [`escape`]:
//!
//! - control characters (Unicode category Cc: C0, DEL, C1 — newline, tab, ESC…), format
//!   characters (Cf: bidirectional overrides and isolates, zero-width spaces and joiners, the
//!   byte-order mark…) and the line and paragraph separators (Zl, Zp: U+2028, U+2029) become
//!   `\u{…}` with the code point in lowercase hex (`\u{a}`, `\u{1b}`, `\u{202e}`);
//! - a backslash becomes two, so an escape in the output always came from [`escape`] and the
//!   original text can be read back unambiguously;
//! - everything else (letters of every script, symbols, emoji, spaces) is kept.
//!
//! JSON output is not escaped here: serde_json escapes control characters itself, and a JSON
//! reader gets the exact string. The SVG of `pogo plot` is XML-escaped by its backend, on top
//! of this (XML cannot carry most control characters at all).

use std::borrow::Cow;
use std::fmt::Write as _;
use std::path::Path;

use unicode_properties::{GeneralCategory, UnicodeGeneralCategory};

/// `text` with control and format characters as `\u{…}` and backslashes doubled (see the
/// module docs). Borrows when nothing needs escaping, the common case.
pub(crate) fn escape(text: &str) -> Cow<'_, str> {
    if !text.chars().any(needs_escape) {
        return Cow::Borrowed(text);
    }
    let mut out = String::with_capacity(text.len() + 8);
    for c in text.chars() {
        if c == '\\' {
            out.push_str("\\\\");
        } else if needs_escape(c) {
            // Writing to a String cannot fail.
            let _ = write!(out, "\\u{{{:x}}}", u32::from(c));
        } else {
            out.push(c);
        }
    }
    Cow::Owned(out)
}

/// A path as text for a terminal: lossily decoded (bytes that are not UTF-8 become U+FFFD),
/// then [`escape`]d.
pub(crate) fn path(path: &Path) -> String {
    escape(&path.to_string_lossy()).into_owned()
}

/// Whether `c` is written as an escape.
fn needs_escape(c: char) -> bool {
    c == '\\'
        || matches!(
            c.general_category(),
            GeneralCategory::Control
                | GeneralCategory::Format
                | GeneralCategory::LineSeparator
                | GeneralCategory::ParagraphSeparator
        )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn control_and_format_characters_are_escaped_and_backslashes_doubled() {
        for (text, shown) in [
            ("bot", "bot"),
            ("Zoë 山田 Ελένη 🙂", "Zoë 山田 Ελένη 🙂"),
            ("a\nOK  x.pogo", "a\\u{a}OK  x.pogo"),
            ("\x1b[31mred\x1b[0m", "\\u{1b}[31mred\\u{1b}[0m"),
            ("tab\there\r", "tab\\u{9}here\\u{d}"),
            ("\u{7f}\u{85}\u{9b}", "\\u{7f}\\u{85}\\u{9b}"),
            ("evil\u{202e}gnp.exe", "evil\\u{202e}gnp.exe"),
            ("zero\u{200b}width\u{feff}", "zero\\u{200b}width\\u{feff}"),
            ("iso\u{2066}late\u{2069}", "iso\\u{2066}late\\u{2069}"),
            ("line\u{2028}para\u{2029}", "line\\u{2028}para\\u{2029}"),
            ("back\\slash", "back\\\\slash"),
            ("\\u{a}", "\\\\u{a}"),
            ("", ""),
        ] {
            assert_eq!(escape(text), shown, "{text:?}");
        }
    }

    #[test]
    fn nothing_escaped_still_contains_a_control_or_format_character() {
        // Every code point, one at a time: what `needs_escape` flags never comes out raw, and
        // (an oracle independent of the category table) neither does any `char::is_control`.
        for c in (0..=0x10ffff).filter_map(char::from_u32) {
            let text = format!("a{c}b");
            let shown = escape(&text);
            assert!(
                !shown.contains(c) || !c.is_control(),
                "U+{:04X}",
                u32::from(c)
            );
            assert!(
                shown.chars().all(|s| s == '\\' || !needs_escape(s)),
                "U+{:04X}",
                u32::from(c)
            );
            if needs_escape(c) {
                assert!(shown.len() > text.len(), "U+{:04X}", u32::from(c));
            } else {
                assert_eq!(shown, text);
            }
        }
    }

    #[test]
    fn unescaped_text_is_borrowed() {
        assert!(matches!(escape("plain"), Cow::Borrowed("plain")));
    }

    #[test]
    fn paths_are_escaped_too() {
        assert_eq!(path(Path::new("/tmp/a\nb.pogo")), "/tmp/a\\u{a}b.pogo");
    }
}
