-- A live room's journal (`crate::live::journal`, docs/live.md "When a server stops or dies").
-- The other dialect's 0015_room_journal.sql differs only in the id column and BLOB/BYTEA.
--
-- Everything a room must know to be taken up again by another process (or this one,
-- restarted): who races under which key and GO (at the countdown), every racer's stream
-- message with its arrival time, and each racer who left, was cut off or ran out of time. A
-- room appends a row a batch (at most every few tens of ms while its racers stream) and tells
-- a racer a message is held (`ack`) only once the row holding it is committed: what a page was
-- told is acknowledged survives kill -9. A room that closes in the normal way deletes its rows.
CREATE TABLE room_journal (
    -- The append order: a room's rows are read back in it.
    id          INTEGER PRIMARY KEY,
    room_id     TEXT    NOT NULL,
    -- Records, each: kind u8, length u16 LE, that many bytes (live/journal.rs).
    body        BLOB    NOT NULL
);
CREATE INDEX room_journal_room ON room_journal (room_id, id);
