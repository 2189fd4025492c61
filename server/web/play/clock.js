// The server's clock, seen from the page (docs/live.md, "The clock"): GO is an instant of the
// server's clock, and the page must start no earlier than GO.
//
// Each `pong` carries the server's clock when it answered (µs). It was stamped before the
// page received it, so `server time − local receive time` is at most the true offset (the
// server's clock minus the page's at one instant): each sample is a lower bound, and the
// largest of them the best. Starting at `GO − offset` on the page's clock is therefore never
// before GO: late by at most the return trip of the best sample, never early (as NTP does,
// keeping only the one-sided bound a page can trust).
//
// The page's clock is `performance.timeOrigin + performance.now()` (ms, monotonic); GO and
// everything else is handed out on the performance clock the frame loop uses.

/** Pings the page sends when it joins, and how far apart (ms): a few round trips suffice. */
export const PINGS_AT_JOIN = 5;
export const PING_SPACING_MS = 60;
/** While waiting for GO the offset keeps improving: a ping this often (ms). */
export const PING_INTERVAL_MS = 1000;

/** The page's clock, Unix ms (fractional). */
export const localMs = () => performance.timeOrigin + performance.now();

export class ServerClock {
  constructor() {
    /** Server minus page (ms): the largest lower bound seen; null before the first sample. */
    this.offsetMs = null;
    /** Samples taken, and the round trip (ms) of the best one. */
    this.samples = 0;
    this.bestRoundTripMs = null;
  }

  /** A sample: the server's clock `serverUs` (µs) read at `receivedMs` (page, Unix ms),
   * on a ping sent at `sentMs`. */
  sample(serverUs, sentMs, receivedMs) {
    const bound = Number(serverUs) / 1000 - receivedMs;
    this.samples += 1;
    if (this.offsetMs === null || bound > this.offsetMs) {
      this.offsetMs = bound;
      this.bestRoundTripMs = receivedMs - sentMs;
    }
  }

  get known() {
    return this.offsetMs !== null;
  }

  /** The server's clock now as far as the page can tell (never ahead of it), Unix ms. */
  serverNowMs() {
    return localMs() + (this.offsetMs ?? 0);
  }

  /** The server's instant `serverMs` (Unix ms) on the performance clock (ms), at the
   * earliest it can be here: never before it. */
  toPerformance(serverMs) {
    return serverMs - (this.offsetMs ?? 0) - performance.timeOrigin;
  }
}
