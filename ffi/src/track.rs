//! Player-made tracks: `pogo_track_check` runs the server's gate
//! (`pogo_replay::track::check_track`) so an editor validates a track by the same rules the
//! server publishes it by.

use pogo_core::Tuning;
use pogo_replay::track::{TRACK_TICK_COST_MAX, check_track, track_level_name};

use crate::types::PogoTrackCheck;

/// [`TRACK_TICK_COST_MAX`] as the struct carries it.
const TICK_COST_MAX: u32 = TRACK_TICK_COST_MAX as u32;

/// The check of level JSON `text` as a track: the struct, and its text (the level name when
/// accepted; the field then the reason when refused).
pub fn check(text: &str, tuning: &Tuning) -> (PogoTrackCheck, String) {
    match check_track(text, tuning) {
        Ok(track) => (
            PogoTrackCheck {
                geometry_hash: track.geometry_hash,
                accepted: 1,
                objects: track.objects as u32,
                extent_m: track.extent_m,
                field_len: 0,
                // At most TRACK_TICK_COST_MAX, which fits.
                tick_cost: u32::try_from(track.tick_cost_bound).unwrap_or(u32::MAX),
                tick_cost_max: TICK_COST_MAX,
            },
            track_level_name(track.geometry_hash),
        ),
        Err(refusal) => (
            PogoTrackCheck {
                field_len: refusal.field.len() as u32,
                tick_cost_max: TICK_COST_MAX,
                ..PogoTrackCheck::default()
            },
            format!("{}{}", refusal.field, refusal.why),
        ),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const TRACK: &str = r#"{"name":"mine","spawn":[0,1,0],
        "solids":[{"min":[-5,-1,-5],"max":[5,0,5]}],
        "finishes":[{"min":[3,0,-1],"max":[4,2,1]}]}"#;

    #[test]
    fn an_accepted_track_is_named_by_its_geometry() {
        let (found, text) = super::check(TRACK, &Tuning::default());
        assert_eq!(found.accepted, 1);
        assert_eq!(found.objects, 2);
        assert_eq!(found.extent_m, 5);
        assert!(found.tick_cost > 0 && found.tick_cost <= found.tick_cost_max);
        assert_eq!(u64::from(found.tick_cost_max), TRACK_TICK_COST_MAX);
        assert_eq!(text, track_level_name(found.geometry_hash));
    }

    #[test]
    fn a_refusal_names_its_field() {
        let no_finish = TRACK.replace(
            r#""finishes":[{"min":[3,0,-1],"max":[4,2,1]}]"#,
            r#""finishes":[]"#,
        );
        let (found, text) = super::check(&no_finish, &Tuning::default());
        assert_eq!(found.accepted, 0);
        assert_eq!(&text[..found.field_len as usize], "finishes");
        assert!(
            text[found.field_len as usize..].contains("needs a finish"),
            "{text}"
        );
        let (found, text) = super::check("not json", &Tuning::default());
        assert_eq!((found.accepted, found.field_len), (0, 0));
        assert!(!text.is_empty());
    }
}
