-- Offline advisory data a scan used (issue 16): one row per database a
-- dependency scanner read, with its build date and age at scan time, and
-- whether it was older than SVC_VULNDB_MAX_AGE_DAYS (the scan's warning).

CREATE TABLE scan_data_sources (
    scan_id   TEXT    NOT NULL REFERENCES scans(id) ON DELETE CASCADE,
    name      TEXT    NOT NULL,              -- osv/npm, govulndb, trivy
    tool      TEXT    NOT NULL,
    path      TEXT    NOT NULL,
    source    TEXT    NOT NULL,              -- imported, or the variable naming the folder
    built_at  TEXT,                          -- NULL when unknown
    age_days  REAL,                          -- NULL when unknown
    stale     INTEGER NOT NULL DEFAULT 0,
    warning   TEXT    NOT NULL DEFAULT '',
    PRIMARY KEY (scan_id, name)
);
