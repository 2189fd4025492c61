-- The change feed of the leaderboards: one row each time a run enters, leaves or moves on a
-- board (a verdict, a hide or show, a run filed by `reverify`) or a player is hidden or shown.
-- Every server process keeps an in-memory rank index per board (`store::ranks`) and applies the
-- rows after the last one it saw, re-reading the affected players' best runs from `runs`: the
-- database stays the source of truth; a change row only says "look again at this player".
-- Written by triggers, so no code path that changes `runs` or `players` can forget it.
--
-- `seq` must grow in commit order, so that a reader that has seen seq N has seen every change
-- committed before it. A PostgreSQL sequence alone does not: two transactions may take 7 and 8
-- and commit 8 first, and a reader would skip 7 for ever. So the trigger first takes a
-- transaction-scoped advisory lock, held until commit: a transaction that changes a board
-- takes its numbers only after every earlier one has committed or rolled back. Board-changing
-- transactions (verdict batches, hides, reverify batches) are short; uploads and claims do not
-- take the lock. migrations/sqlite/0008_board_changes.sql is the same feed in SQLite's dialect.
CREATE TABLE board_changes (
    seq         BIGINT  GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    player_id   BIGINT  NOT NULL,
    -- The level whose boards changed; NULL: every level (a player hidden or shown).
    level       TEXT,
    changed_ms  BIGINT  NOT NULL
);

CREATE FUNCTION board_changed() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    -- 0x706f676f ("pogo"): the feed's lock, nothing else takes it.
    PERFORM pg_advisory_xact_lock(1886349167);
    IF TG_TABLE_NAME = 'players' THEN
        INSERT INTO board_changes (player_id, level, changed_ms)
        VALUES (NEW.id, NULL, (EXTRACT(EPOCH FROM clock_timestamp()) * 1000)::BIGINT);
    ELSIF TG_OP = 'DELETE' THEN
        INSERT INTO board_changes (player_id, level, changed_ms)
        VALUES (OLD.player_id, OLD.level, (EXTRACT(EPOCH FROM clock_timestamp()) * 1000)::BIGINT);
    ELSE
        INSERT INTO board_changes (player_id, level, changed_ms)
        VALUES (NEW.player_id, NEW.level, (EXTRACT(EPOCH FROM clock_timestamp()) * 1000)::BIGINT);
    END IF;
    RETURN NULL;
END
$$;

CREATE TRIGGER runs_board_insert AFTER INSERT ON runs
FOR EACH ROW WHEN (NEW.status = 'verified') EXECUTE FUNCTION board_changed();

-- A claim (queued → verifying) touches no board; a verdict, a hide, a realtime flag on a
-- verified run does.
CREATE TRIGGER runs_board_update AFTER UPDATE ON runs
FOR EACH ROW WHEN (OLD.status = 'verified' OR NEW.status = 'verified')
EXECUTE FUNCTION board_changed();

CREATE TRIGGER runs_board_delete AFTER DELETE ON runs
FOR EACH ROW WHEN (OLD.status = 'verified') EXECUTE FUNCTION board_changed();

CREATE TRIGGER players_board_update AFTER UPDATE OF hidden ON players
FOR EACH ROW WHEN (OLD.hidden IS DISTINCT FROM NEW.hidden) EXECUTE FUNCTION board_changed();
