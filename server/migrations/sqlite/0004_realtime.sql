-- Whether a verified run was played in real time: it named a run ticket, every commitment
-- posted during the run arrived at a wall-clock time consistent with its game time, and the
-- re-simulation reproduced every committed state hash (`api::tickets`). Written with the rest
-- of the verdict. Real-time runs rank on the "realtime" board and on the "open" one; the
-- others only on "open" (`store::Category`). FALSE for every run verified before this
-- migration. migrations/postgres/0004_realtime.sql is the same but for the boolean's type.
ALTER TABLE runs ADD COLUMN realtime INTEGER NOT NULL DEFAULT 0;
