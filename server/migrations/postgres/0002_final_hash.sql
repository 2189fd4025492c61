-- The verifier's final state hash of a verified run (`Verified::final_hash`), written with the
-- rest of the verdict in the same UPDATE, so the page can show it beside the hash the browser
-- computed. 16 lowercase hex digits, as TEXT: exact on both backends (a u64 does not fit
-- PostgreSQL's signed BIGINT without reinterpreting its sign), the form the API and the CLI
-- print, and the form of the other hashes in this table (`level_hash`, `tuning_hash`). NULL
-- until verified, for rejected runs, and for runs verified before this migration.
-- migrations/sqlite/0002_final_hash.sql is the same, word for word.
ALTER TABLE runs ADD COLUMN final_hash TEXT;
