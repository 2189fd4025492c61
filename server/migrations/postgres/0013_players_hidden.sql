-- The hidden players, by id: what a rank counted from SQL (store/board_sql.rs, while a board's
-- rank index builds) subtracts. The count takes every player with a counting run before the
-- entry without joining `players` (COUNT(DISTINCT player_id) over `runs` alone: 0.57 s at
-- 590 000 runs on PostgreSQL against 2.0 s with the join), then the hidden players among them,
-- found from this index (a handful, not a pass over every player). The other dialect's
-- 0013_players_hidden.sql is the same, word for word.
CREATE INDEX players_hidden ON players (id) WHERE hidden;
