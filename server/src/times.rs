//! Times the server shows or stores: ticks as times, for the JSON a page shows (integer
//! arithmetic to the millisecond; the float `time_s` is only the same number for convenience
//! at the display edge), and wall-clock instants as Unix milliseconds (what the database
//! stores: `uploaded_ms`, `verified_ms`, leases), shown as RFC 3339.
//!
//! Convention (as `pogo race` and `pogo inspect`): something that happened *on* tick `t`
//! (0-based) happened at the end of that tick, `(t + 1) / tick_rate` seconds into the run.

use std::time::{SystemTime, UNIX_EPOCH};

use serde::Serialize;
use utoipa::ToSchema;

/// Milliseconds since the Unix epoch, now (0 before 1970, `i64::MAX` past year 292 million).
pub fn now_ms() -> i64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| i64::try_from(d.as_millis()).unwrap_or(i64::MAX))
}

/// Unix milliseconds as RFC 3339 (UTC, millisecond precision); empty if out of `time`'s range.
pub fn rfc3339(ms: i64) -> String {
    let nanos = i128::from(ms) * 1_000_000;
    time::OffsetDateTime::from_unix_timestamp_nanos(nanos)
        .ok()
        .and_then(|t| {
            t.format(&time::format_description::well_known::Rfc3339)
                .ok()
        })
        .unwrap_or_default()
}

/// Unix milliseconds as a replay header's date: RFC 3339 UTC to the second,
/// `2026-12-03T23:38:25Z` (the page's format; a replay date holds only `0-9 - : T Z`).
pub fn rfc3339_seconds(ms: i64) -> String {
    let secs = ms.div_euclid(1000);
    time::OffsetDateTime::from_unix_timestamp(secs)
        .ok()
        .and_then(|t| {
            let format =
                time::macros::format_description!("[year]-[month]-[day]T[hour]:[minute]:[second]Z");
            t.format(&format).ok()
        })
        .unwrap_or_default()
}

/// `ticks / rate` in milliseconds, rounded half up.
pub fn millis(ticks: u64, rate: u32) -> u64 {
    let rate = u128::from(rate.max(1));
    ((u128::from(ticks) * 2000 + rate) / (2 * rate)) as u64
}

/// Milliseconds as `m:ss.mmm` (minutes unbounded: `75:00.000` for 75 minutes).
pub fn clock(millis: u64) -> String {
    let (minutes, rest) = (millis / 60_000, millis % 60_000);
    format!("{minutes}:{:02}.{:03}", rest / 1000, rest % 1000)
}

/// Something reached on a tick: the tick, and when.
#[derive(Clone, Debug, PartialEq, Serialize, ToSchema)]
pub struct TickTime {
    /// The tick it happened on (0-based).
    pub tick: u32,
    /// Seconds into the run: `(tick + 1) / tick_rate`, to the millisecond.
    pub time_s: f64,
    /// The same as `m:ss.mmm`.
    pub time: String,
}

impl TickTime {
    pub fn new(tick: u32, rate: u32) -> TickTime {
        let ms = millis(u64::from(tick) + 1, rate);
        TickTime {
            tick,
            time_s: ms as f64 / 1000.0,
            time: clock(ms),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ticks_become_exact_milliseconds() {
        assert_eq!(millis(0, 60), 0);
        assert_eq!(millis(1, 60), 17);
        assert_eq!(millis(3456, 60), 57_600);
        assert_eq!(millis(1, 2000), 1); // 0.5 ms rounds up
        assert_eq!(clock(57_600), "0:57.600");
        assert_eq!(clock(4_500_000), "75:00.000");
        assert_eq!(clock(61_005), "1:01.005");
        let t = TickTime::new(3455, 60);
        assert_eq!(
            (t.tick, t.time_s, t.time.as_str()),
            (3455, 57.6, "0:57.600")
        );
        assert_eq!(TickTime::new(u32::MAX, 1).time, "71582788:16.000");
    }

    #[test]
    fn unix_milliseconds_become_rfc3339_in_utc() {
        assert_eq!(rfc3339(0), "1970-01-01T00:00:00Z");
        assert_eq!(rfc3339(1_767_225_600_123), "2026-01-01T00:00:00.123Z");
        assert_eq!(rfc3339(i64::MAX), "");
        // Now is after this module was written (2026) and before the clock runs out.
        let now = now_ms();
        assert!(now > 1_767_225_600_000 && now < i64::MAX, "{now}");
    }
}
