// Ticks and times for display. Integer arithmetic to the millisecond, as the server's
// `times.rs`: something that happened on tick t (0-based) happened (t + 1) / rate s in.

/** `ticks / rate` in milliseconds, rounded half up (the server's `times::millis`). */
export function millis(ticks, rate) {
  return Math.floor((ticks * 2000 + rate) / (2 * rate));
}

/** Milliseconds as `m:ss.mmm`. */
export function clock(ms) {
  const minutes = Math.floor(ms / 60000);
  const rest = ms % 60000;
  return `${minutes}:${String(Math.floor(rest / 1000)).padStart(2, '0')}.${String(rest % 1000).padStart(3, '0')}`;
}

/** The race clock after tick `tick`: `m:ss.mmm`. */
export function tickClock(tick, rate) {
  return clock(millis(Math.max(0, Math.floor(tick)) + 1, rate));
}

/**
 * A gap of `ticks` ticks (≥ 0) as `+s.mmm s`, or `+m:ss.mmm` from a minute on. The gap is
 * the exact tick difference converted once, not the difference of two rounded times.
 */
export function gap(ticks, rate) {
  const ms = millis(ticks, rate);
  if (ms < 60000) return `+${Math.floor(ms / 1000)}.${String(ms % 1000).padStart(3, '0')} s`;
  return `+${clock(ms)}`;
}

/** An RFC 3339 timestamp as `YYYY-MM-DD HH:MM UTC` (the same on every machine). */
export function date(rfc3339) {
  const d = new Date(rfc3339);
  if (Number.isNaN(d.getTime())) return String(rfc3339 ?? '');
  return `${d.toISOString().slice(0, 16).replace('T', ' ')} UTC`;
}

/** A checkpoint index (or `null`, the finish) as a person reads it: `CP1` for index 0, as the
 * CLI and the server's messages say (`pogo_replay::checkpoint_name`). */
export function checkpointLabel(checkpoint) {
  return checkpoint === null || checkpoint === undefined ? 'finish' : `CP${checkpoint + 1}`;
}
