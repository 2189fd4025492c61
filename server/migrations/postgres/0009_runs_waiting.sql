-- The claim's index: only the runs waiting for a verdict (queued, or being verified under a
-- lease), in id order. The claim takes the oldest of them; with `runs_pending` (status, id)
-- beside the primary key, PostgreSQL chose to walk the primary key in id order and filter out
-- every verified run on the way — 2.1 ms a claim with 9 000 verified runs before the first
-- queued one, and linear in the board's history. With this index the claim reads only the
-- waiting runs (0.08 ms at the same 10 000). The claim query states the index's condition
-- (`status IN ('queued', 'verifying')`) so that SQLite's planner, which matches it by its
-- terms, uses it too. migrations/sqlite/0009_runs_waiting.sql is the same, word for word.
CREATE INDEX runs_waiting ON runs (id) WHERE status IN ('queued', 'verifying');
