-- Run tickets anchored to one instant the client cannot move (issue 29; the rule is
-- `crate::realtime`'s). SQLite dialect: migrations/postgres/0010_ticket_go.sql is the same,
-- but that it drops the column's default afterwards (SQLite cannot; every insert sets it).
--
-- 1. GO is set by the server when it issues a ticket (`issued_ms + TICKET_COUNTDOWN_MS`), and
--    every commitment, the start included, is judged against it. Tickets issued before this
--    migration get the GO their page counted down to: 3 s after the issue.
ALTER TABLE tickets ADD COLUMN go_ms BIGINT NOT NULL DEFAULT 0;
UPDATE tickets SET go_ms = issued_ms + 3000;

-- 2. A commitment is identified by its kind and tick: a second copy (a retry, a duplicate
--    the network delivered) is the first one, and commitments may arrive in any order (`seq`
--    stays the order of arrival). Two checkpoints crossed on one tick commit one state: one
--    row. Earlier duplicates (none should exist) keep their first arrival.
DELETE FROM ticket_commits
WHERE EXISTS (
    SELECT 1 FROM ticket_commits o
    WHERE o.ticket_id = ticket_commits.ticket_id AND o.kind = ticket_commits.kind
      AND o.tick = ticket_commits.tick AND o.seq < ticket_commits.seq
);
CREATE UNIQUE INDEX ticket_commits_split ON ticket_commits (ticket_id, kind, tick);
