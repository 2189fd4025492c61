-- A live room's journal as a chain (`crate::live::journal`; PERFORMANCE.md, "The journal
-- without its room index"). SQLite dialect: migrations/postgres/0019_journal_chain.sql is the
-- same, but for the types.
--
-- `room_journal_room` (room_id, id) put each room's rows in a region of their own, so a
-- commit that appended one row to each of a hundred rooms wrote a hundred index pages to the
-- write-ahead log (400 KiB, ten times a second): two thirds of the SQLite thread's CPU under
-- a hundred live rooms. Now the journal is appended to in id order only, and each room's rows
-- are a chain: each row names the room's row before it (`prev`), and `room_journal_heads`
-- names each room's last row (one small row a room with a journal, rewritten a commit).
-- Reading a room's journal (taking it up) walks its chain back by id; so does deleting it.
ALTER TABLE room_journal ADD COLUMN prev INTEGER;

-- The journals already written, chained (the old index finds each row's predecessor).
UPDATE room_journal SET prev = (
    SELECT MAX(j.id) FROM room_journal j
    WHERE j.room_id = room_journal.room_id AND j.id < room_journal.id
);

CREATE TABLE room_journal_heads (
    room_id     TEXT    PRIMARY KEY,
    -- The room's last `room_journal` row: its chain's end.
    last_id     INTEGER NOT NULL
);

INSERT INTO room_journal_heads (room_id, last_id)
SELECT room_id, MAX(id) FROM room_journal GROUP BY room_id;

DROP INDEX room_journal_room;
