//! Seasons: the boards of one level over time.
//!
//! A board is keyed by the level's name, its content hash, the tuning hash and the rules
//! version (`store::Board`). When the operator changes the level file, the tuning or the
//! binary's rules, the server starts a new board — a new **season** — and the old one stays
//! in the database as a **past season**: readable (`GET /api/levels/{level}/seasons`, then
//! `?season=ID` on the leaderboard and the export), never written to again by uploads.
//! `pogo-server reverify` (`crate::reverify`) files the past seasons' runs that still verify
//! under the running rules on the current board.
//!
//! A season's id is its key without the level (the level is in the route):
//! `r{rules_version}-{level_hash}-{tuning_hash}`, the hashes as 16 lowercase hex digits, as
//! every API document shows them — e.g. `r2-5f0c61b2a9e3d417-0b7de4c2f1a85693`. It is stable
//! (the same board always has the same id, on every server of the same database), readable
//! (the rules version first, then the hashes `GET /api/levels` shows) and needs no lookup
//! table: the id is the key.

use std::fmt;
use std::str::FromStr;

use crate::store::{Board, Category, hash_hex};

/// A season of some level: the board key but the level name and category.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct SeasonId {
    pub rules_version: u32,
    /// `WorldDesc::content_hash` of the level's content.
    pub level_hash: u64,
    /// `TuningSpec::content_hash` of the tuning.
    pub tuning_hash: u64,
}

impl SeasonId {
    /// The season a board belongs to, if its hashes are well-formed (as the store writes them).
    pub fn of(board: &Board) -> Option<SeasonId> {
        Some(SeasonId {
            rules_version: board.rules_version,
            level_hash: parse_hash(&board.level_hash)?,
            tuning_hash: parse_hash(&board.tuning_hash)?,
        })
    }

    /// The season from the hashes as stored (16 lowercase hex digits each).
    pub fn from_stored(
        rules_version: u32,
        level_hash: &str,
        tuning_hash: &str,
    ) -> Option<SeasonId> {
        Some(SeasonId {
            rules_version,
            level_hash: parse_hash(level_hash)?,
            tuning_hash: parse_hash(tuning_hash)?,
        })
    }

    /// The board of `level` in this season, in `category`. The one way a board is built: the
    /// current one (`Catalog::board`, the season `Catalog::season` names) and a past season's
    /// (the API and `reverify`) alike.
    pub fn board(&self, level: &str, category: Category) -> Board {
        Board {
            level: level.to_string(),
            level_hash: hash_hex(self.level_hash),
            tuning_hash: hash_hex(self.tuning_hash),
            rules_version: self.rules_version,
            category,
        }
    }
}

impl fmt::Display for SeasonId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "r{}-{}-{}",
            self.rules_version,
            hash_hex(self.level_hash),
            hash_hex(self.tuning_hash)
        )
    }
}

/// Why a text is not a season id (the message says what the form is).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct BadSeasonId(pub String);

impl fmt::Display for BadSeasonId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "season={:?}: not a season id (r<rules version>-<level hash>-<tuning hash>, the \
             hashes 16 lowercase hex digits each, as GET /api/levels/{{level}}/seasons lists them)",
            self.0.escape_debug().to_string()
        )
    }
}

impl std::error::Error for BadSeasonId {}

impl FromStr for SeasonId {
    type Err = BadSeasonId;

    /// Exactly the form [`Display`](fmt::Display) writes: one spelling per season (no
    /// leading zeros, no upper case), so an id read back is the id written.
    fn from_str(text: &str) -> Result<SeasonId, BadSeasonId> {
        let bad = || BadSeasonId(text.chars().take(80).collect());
        let rest = text.strip_prefix('r').ok_or_else(bad)?;
        let mut parts = rest.split('-');
        let (Some(rules), Some(level), Some(tuning), None) =
            (parts.next(), parts.next(), parts.next(), parts.next())
        else {
            return Err(bad());
        };
        let canonical_number = !rules.is_empty()
            && rules.bytes().all(|b| b.is_ascii_digit())
            && (rules == "0" || !rules.starts_with('0'));
        if !canonical_number {
            return Err(bad());
        }
        Ok(SeasonId {
            rules_version: rules.parse().map_err(|_| bad())?,
            level_hash: parse_hash(level).ok_or_else(bad)?,
            tuning_hash: parse_hash(tuning).ok_or_else(bad)?,
        })
    }
}

/// A hash as stored and shown: exactly 16 lowercase hex digits.
fn parse_hash(text: &str) -> Option<u64> {
    let canonical =
        text.len() == 16 && text.bytes().all(|b| matches!(b, b'0'..=b'9' | b'a'..=b'f'));
    if !canonical {
        return None;
    }
    u64::from_str_radix(text, 16).ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn season_ids_read_back_as_written_and_only_so() {
        let id = SeasonId {
            rules_version: 2,
            level_hash: 0x5f0c_61b2_a9e3_d417,
            tuning_hash: 0x000d_e4c2_f1a8_5693,
        };
        let text = id.to_string();
        assert_eq!(text, "r2-5f0c61b2a9e3d417-000de4c2f1a85693");
        assert_eq!(text.parse::<SeasonId>(), Ok(id));
        let board = id.board("course", Category::Open);
        assert_eq!(board.level_hash, "5f0c61b2a9e3d417");
        assert_eq!(SeasonId::of(&board), Some(id));
        for bad in [
            "",
            "r",
            "2-5f0c61b2a9e3d417-000de4c2f1a85693",
            "r02-5f0c61b2a9e3d417-000de4c2f1a85693",
            "r-5f0c61b2a9e3d417-000de4c2f1a85693",
            "r+2-5f0c61b2a9e3d417-000de4c2f1a85693",
            "r2-5F0C61B2A9E3D417-000de4c2f1a85693",
            "r2-5f0c61b2a9e3d41-000de4c2f1a85693",
            "r2-5f0c61b2a9e3d4170-000de4c2f1a85693",
            "r2-5f0c61b2a9e3d417-000de4c2f1a85693-",
            "r2-5f0c61b2a9e3d417",
            "r99999999999-5f0c61b2a9e3d417-000de4c2f1a85693",
            "r2-5f0c61b2a9e3d417-000de4c2f1a8569g",
            "r2-+f0c61b2a9e3d417-000de4c2f1a85693",
        ] {
            assert!(bad.parse::<SeasonId>().is_err(), "{bad:?} parsed");
        }
        assert_eq!(
            "r0-0000000000000000-ffffffffffffffff".parse::<SeasonId>(),
            Ok(SeasonId {
                rules_version: 0,
                level_hash: 0,
                tuning_hash: u64::MAX
            })
        );
    }
}
