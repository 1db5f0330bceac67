-- Schedules (issue 17): recurring scans of a target, their run history,
-- and the schedule that started a scan.

CREATE TABLE schedules (
    seq                 INTEGER PRIMARY KEY AUTOINCREMENT,
    id                  TEXT    NOT NULL UNIQUE,
    name                TEXT    NOT NULL,
    target_path         TEXT    NOT NULL,
    scan_types          TEXT    NOT NULL,                 -- JSON array
    target_url          TEXT,
    target_host         TEXT,
    cron                TEXT    NOT NULL,
    timezone            TEXT    NOT NULL DEFAULT 'UTC',
    enabled             INTEGER NOT NULL DEFAULT 1,
    alert_min_severity  TEXT,                             -- NULL: SVC_ALERT_MIN_SEVERITY
    keep_last           INTEGER,                          -- NULL: no per-schedule limit
    next_run_at         TEXT,                             -- NULL while disabled
    last_run_at         TEXT,
    created_at          TEXT    NOT NULL,
    updated_at          TEXT    NOT NULL,
    created_by          TEXT    NOT NULL DEFAULT ''
);
CREATE INDEX schedules_due ON schedules (enabled, next_run_at);

-- One row per time a schedule came due: the scan it started, or why it
-- did not start one. scan_id has no foreign key: retention and users may
-- delete the scan, and the run stays as history.
CREATE TABLE schedule_runs (
    seq            INTEGER PRIMARY KEY AUTOINCREMENT,
    id             TEXT    NOT NULL UNIQUE,
    schedule_id    TEXT    NOT NULL REFERENCES schedules (id) ON DELETE CASCADE,
    scheduled_for  TEXT    NOT NULL,                      -- the run time that came due
    created_at     TEXT    NOT NULL,                      -- when the scheduler acted
    outcome        TEXT    NOT NULL CHECK (outcome IN ('started','skipped','failed')),
    reason         TEXT    NOT NULL DEFAULT '',
    scan_id        TEXT
);
CREATE INDEX schedule_runs_schedule ON schedule_runs (schedule_id, seq);

-- No foreign key either: deleting a schedule keeps the scans it made.
ALTER TABLE scans ADD COLUMN schedule_id TEXT;
CREATE INDEX scans_schedule ON scans (schedule_id, seq);
