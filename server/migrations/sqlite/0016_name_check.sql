-- A second copy of each player's name, to catch a name damaged at rest (a bit flipped on
-- disk): every query that serves a name serves it only where the two copies agree
-- (`store::player_name!`), and `pogo-server check` lists the players whose copies differ. A
-- flip that turned one valid name into another (`Ana` → `Ama`) would pass every check of the
-- name's form; it cannot make the two copies agree. Written by a trigger, so no code path that
-- inserts a player can forget it; no rename exists (a name is never updated), and the trigger
-- is on INSERT only, so an UPDATE of `name` is seen as the damage it would be. Existing rows
-- are copied as they stand: damage done before this migration is not detectable by it.
-- migrations/postgres/0016_name_check.sql is the same in PostgreSQL's dialect.
ALTER TABLE players ADD COLUMN name_check TEXT;

UPDATE players SET name_check = name;

CREATE TRIGGER players_name_check AFTER INSERT ON players
BEGIN
    UPDATE players SET name_check = NEW.name WHERE id = NEW.id;
END;
