//! Prometheus metrics (`GET /metrics`, the text exposition format), with `prometheus-client`:
//!
//! - `pogo_uploads_total{outcome}` — uploads by outcome: `accepted`, `duplicate`, or the
//!   error code that refused it (`bad_replay`, `name_mismatch`, `rate_limited`, `busy`, …);
//! - `pogo_verdicts_total{verdict, reason}` — verdicts written by this process: `verified`
//!   (reason `finished` or `unfinished`) or `rejected` (reason `VerifyError::kind`, e.g.
//!   `desync`);
//! - `pogo_verification_seconds` — wall-clock time of each verification (histogram);
//! - `pogo_runs{status}` and `pogo_queue_depth` — runs per status in the database (all
//!   servers): the waiting states (`queued`, `verifying`) counted on every scrape through
//!   their partial index; the others (a pass over every run: 95–130 ms at a million on
//!   PostgreSQL) counted at most once per [`RUN_TOTALS_INTERVAL`], so that a scraper, or
//!   anyone who can reach `/metrics`, cannot make the database count a million rows at will,
//!   and beside the scrape, not in it (a scrape shows the last count; only a process's first
//!   scrape waits for one), so that no scrape costs what the history costs.

use prometheus_client::encoding::EncodeLabelSet;
use prometheus_client::metrics::counter::Counter;
use prometheus_client::metrics::family::Family;
use prometheus_client::metrics::gauge::Gauge;
use prometheus_client::metrics::histogram::{Histogram, exponential_buckets};
use prometheus_client::registry::Registry;

use std::sync::Mutex;
use std::time::{Duration, Instant};

use crate::store::RunState;

/// How often `/metrics` counts every run by state (the waiting states are counted on every
/// scrape).
pub const RUN_TOTALS_INTERVAL: Duration = Duration::from_secs(15);

#[derive(Clone, Debug, Hash, PartialEq, Eq, EncodeLabelSet)]
struct OutcomeLabels {
    outcome: &'static str,
}

#[derive(Clone, Debug, Hash, PartialEq, Eq, EncodeLabelSet)]
struct VerdictLabels {
    verdict: &'static str,
    reason: String,
}

#[derive(Clone, Debug, Hash, PartialEq, Eq, EncodeLabelSet)]
struct StatusLabels {
    status: &'static str,
}

/// When a scrape counts every run by state.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum RunTotals {
    /// Never counted: count before answering.
    First,
    /// The last count is [`RUN_TOTALS_INTERVAL`] old: count again, beside the answer.
    Due,
    /// Counted lately: the gauges stand.
    Fresh,
}

/// The server's metrics.
#[derive(Debug)]
pub struct Metrics {
    registry: Registry,
    uploads: Family<OutcomeLabels, Counter>,
    verdicts: Family<VerdictLabels, Counter>,
    verification_seconds: Histogram,
    runs: Family<StatusLabels, Gauge>,
    queue_depth: Gauge,
    /// When every run was last counted by state.
    totals_counted: Mutex<Option<Instant>>,
}

impl Default for Metrics {
    fn default() -> Metrics {
        Metrics::new()
    }
}

impl Metrics {
    pub fn new() -> Metrics {
        let mut registry = Registry::with_prefix("pogo");
        let uploads = Family::<OutcomeLabels, Counter>::default();
        registry.register("uploads", "Uploads by outcome", uploads.clone());
        let verdicts = Family::<VerdictLabels, Counter>::default();
        registry.register(
            "verdicts",
            "Verdicts written by this process, by verdict and reason",
            verdicts.clone(),
        );
        // 0.5 ms … 16 s: a one-minute course run takes about a millisecond, the budget is
        // seconds.
        let verification_seconds = Histogram::new(exponential_buckets(0.0005, 2.0, 16));
        registry.register(
            "verification_seconds",
            "Wall-clock seconds per verification",
            verification_seconds.clone(),
        );
        let runs = Family::<StatusLabels, Gauge>::default();
        registry.register("runs", "Runs in the database by status", runs.clone());
        let queue_depth = Gauge::default();
        registry.register(
            "queue_depth",
            "Runs waiting for verification (queued) in the database",
            queue_depth.clone(),
        );
        Metrics {
            registry,
            uploads,
            verdicts,
            verification_seconds,
            runs,
            queue_depth,
            totals_counted: Mutex::new(None),
        }
    }

    pub fn upload(&self, outcome: &'static str) {
        self.uploads.get_or_create(&OutcomeLabels { outcome }).inc();
    }

    pub fn verdict(&self, verdict: &'static str, reason: &str, seconds: f64) {
        self.verdicts
            .get_or_create(&VerdictLabels {
                verdict,
                reason: reason.to_string(),
            })
            .inc();
        self.verification_seconds.observe(seconds);
    }

    /// Whether this scrape should count every run by state, and how (this call claims the
    /// count: the next one is due [`RUN_TOTALS_INTERVAL`] later).
    pub fn run_totals_due(&self) -> RunTotals {
        let mut at = self
            .totals_counted
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner());
        let due = match *at {
            None => RunTotals::First,
            Some(at) if at.elapsed() >= RUN_TOTALS_INTERVAL => RunTotals::Due,
            Some(_) => return RunTotals::Fresh,
        };
        *at = Some(Instant::now());
        due
    }

    /// Sets the runs of each of `states` from `counts` (a state absent from `counts` has
    /// none).
    pub fn set_runs(&self, counts: &[(RunState, i64)], states: &[RunState]) {
        for &status in states {
            let n = counts.iter().find(|(s, _)| *s == status).map_or(0, |c| c.1);
            self.runs
                .get_or_create(&StatusLabels {
                    status: status.as_str(),
                })
                .set(n);
            if status == RunState::Queued {
                self.queue_depth.set(n);
            }
        }
    }

    /// The text exposition.
    pub fn encode(&self) -> String {
        let mut text = String::new();
        // Writing into a String cannot fail.
        let _ = prometheus_client::encoding::text::encode(&mut text, &self.registry);
        text
    }
}
