-- Live rooms (`crate::live`, docs/live.md). PostgreSQL dialect: migrations/sqlite/0012_rooms.sql is
-- the same.
--
-- A room lives in the memory of one server process, its *home*; this row is how every other
-- process finds it (a join that reaches another process is proxied to the home) and how the
-- page lists the races in progress. The home writes the row when the room is made and again
-- whenever the room changes (at most every few hundred ms, and at least every few seconds
-- while it lives: `updated_ms`), so a row whose home died stops being listed.
CREATE TABLE rooms (
    -- 16 lowercase hex digits (64 random bits).
    id          TEXT    PRIMARY KEY,
    level       TEXT    NOT NULL,
    -- The home process's base URL (`--advertise-url`), e.g. http://10.0.0.7:8080.
    home        TEXT    NOT NULL,
    created_ms  BIGINT  NOT NULL,
    updated_ms  BIGINT  NOT NULL,
    phase       TEXT    NOT NULL CHECK (phase IN ('lobby', 'countdown', 'racing', 'over')),
    go_ms       BIGINT,
    -- The room as its members see it: JSON, the API's `RoomView`.
    view        TEXT    NOT NULL
);
-- The races in progress, newest first.
CREATE INDEX rooms_live ON rooms (phase, updated_ms);

-- The room a run was raced in (filed by the room at the racer's finish, with no upload).
ALTER TABLE runs ADD COLUMN room_id TEXT;
