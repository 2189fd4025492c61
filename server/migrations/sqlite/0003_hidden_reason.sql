-- Why an admin hid a run (`PUT /api/admin/runs/{id}/hidden` with `{"hidden": true, "reason": …}`):
-- 1–500 printable characters, written in the same UPDATE as `hidden`, cleared (NULL) when the
-- run is shown again. Shown to the admin only (`GET /api/admin/runs/{id}`), never on a public
-- route. NULL for visible runs and for runs hidden before this migration.
-- migrations/postgres/0003_hidden_reason.sql is the same, word for word.
ALTER TABLE runs ADD COLUMN hidden_reason TEXT;
