-- Run tickets (`api::tickets`): a play session asks for one before its countdown, commits to
-- the run as it goes (the tick and state hash at the start, at each checkpoint and at the
-- finish, each stamped with the server's clock on arrival), and the upload names it. The
-- verdict then says whether the run was played in real time (`realtime`, migration 0004) and,
-- for a ticketed run that was not, why (`realtime_note`). PostgreSQL dialect:
-- migrations/sqlite/0007_tickets.sql is the same; the types agree (ids are `BIGINT`
-- in both; times are Unix milliseconds, BIGINT, in both).

-- A ticket: 32 lowercase hex digits (128 random bits), bound to its player and to the board
-- of its level it was issued for (level, level hash, tuning hash, rules version).
-- `run_id` is set, once, by the upload that names it, in the transaction that stores the run.
CREATE TABLE tickets (
    id              TEXT    PRIMARY KEY,
    player_id       BIGINT  NOT NULL REFERENCES players (id),
    level           TEXT    NOT NULL,
    level_hash      TEXT    NOT NULL,
    tuning_hash     TEXT    NOT NULL,
    rules_version   BIGINT  NOT NULL,
    issued_ms       BIGINT  NOT NULL,
    run_id          BIGINT  UNIQUE REFERENCES runs (id)
);
-- The open-tickets cap: a player's recent tickets.
CREATE INDEX tickets_player ON tickets (player_id, issued_ms);

-- A commitment, in the order received (`seq` 0, 1, …): `kind` start (tick 0, the state
-- before the first tick), checkpoint or finish (the tick of the split, the state after it);
-- `hash` 16 lowercase hex digits; `received_ms` the server's clock when it arrived.
CREATE TABLE ticket_commits (
    ticket_id       TEXT    NOT NULL REFERENCES tickets (id),
    seq             BIGINT  NOT NULL,
    kind            TEXT    NOT NULL CHECK (kind IN ('start', 'checkpoint', 'finish')),
    tick            BIGINT  NOT NULL,
    hash            TEXT    NOT NULL,
    received_ms     BIGINT  NOT NULL,
    PRIMARY KEY (ticket_id, seq)
);

-- Why a ticketed run is not real-time, for a human ("checkpoint 2 was committed 3.4 s after
-- its game time …"); NULL for real-time runs and runs without a ticket.
ALTER TABLE runs ADD COLUMN realtime_note TEXT;
