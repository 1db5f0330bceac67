-- The whole SPEC.md data model in one migration so later features add
-- queries, not schema churn. Timestamps are UTC text in a fixed-width
-- format (see store.timeLayout) so lexical order is time order.

CREATE TABLE scans (
    seq               INTEGER PRIMARY KEY AUTOINCREMENT, -- arrival order
    id                TEXT    NOT NULL UNIQUE,
    target_path       TEXT    NOT NULL,
    scan_types        TEXT    NOT NULL,                 -- JSON array
    target_url        TEXT,
    target_host       TEXT,
    status            TEXT    NOT NULL CHECK (status IN ('pending','running','completed','failed','cancelled')),
    started_at        TEXT    NOT NULL,
    completed_at      TEXT,
    scanners_run      TEXT    NOT NULL DEFAULT '[]',     -- JSON array
    scanners_skipped  TEXT    NOT NULL DEFAULT '[]',     -- JSON array of {name, reason, install_hint}
    error             TEXT    NOT NULL DEFAULT '',
    findings_count    INTEGER NOT NULL DEFAULT 0,
    risk_score        INTEGER NOT NULL DEFAULT 0,
    severity_counts   TEXT    NOT NULL DEFAULT '{}',     -- JSON object
    components        TEXT,                              -- JSON array captured at scan time (SBOM)
    created_by        TEXT    NOT NULL DEFAULT ''
);
CREATE INDEX scans_status ON scans (status, seq);
CREATE INDEX scans_target ON scans (target_path, seq);
CREATE INDEX scans_started ON scans (started_at);

-- No index on id: nothing looks a finding up by it, and at 100k findings
-- per scan each index costs a B-tree insert per row. Findings are read by
-- (scan_id, ord) and by fingerprint.
CREATE TABLE findings (
    id               TEXT    NOT NULL,
    scan_id          TEXT    NOT NULL REFERENCES scans (id) ON DELETE CASCADE,
    ord              INTEGER NOT NULL,                  -- canonical order within the scan
    scanner          TEXT    NOT NULL,
    scan_type        TEXT    NOT NULL,
    severity         TEXT    NOT NULL,
    file_path        TEXT    NOT NULL,
    line             INTEGER NOT NULL,
    rule_id          TEXT    NOT NULL,
    cwe              TEXT,
    fingerprint      TEXT    NOT NULL,
    body             TEXT    NOT NULL                   -- canonical JSON (tags, metadata included), served as is
);
CREATE UNIQUE INDEX findings_scan_ord ON findings (scan_id, ord);
CREATE INDEX findings_fingerprint ON findings (fingerprint);

-- Triage lives on the fingerprint, not on the scan: no foreign key, so a
-- verdict survives deletion of every scan that showed the finding.
CREATE TABLE triage_states (
    fingerprint  TEXT PRIMARY KEY,
    status       TEXT NOT NULL CHECK (status IN ('new','triaged','false_positive','accepted_risk','fixed','wont_fix')),
    note         TEXT NOT NULL DEFAULT '',
    updated_at   TEXT NOT NULL,
    updated_by   TEXT NOT NULL DEFAULT ''
);

CREATE TABLE triage_history (
    seq          INTEGER PRIMARY KEY AUTOINCREMENT,
    fingerprint  TEXT NOT NULL,
    status       TEXT NOT NULL,
    note         TEXT NOT NULL DEFAULT '',
    updated_at   TEXT NOT NULL,
    updated_by   TEXT NOT NULL DEFAULT ''
);
CREATE INDEX triage_history_fp ON triage_history (fingerprint, seq);

CREATE TABLE finding_comments (
    seq          INTEGER PRIMARY KEY AUTOINCREMENT,
    id           TEXT NOT NULL UNIQUE,
    fingerprint  TEXT NOT NULL,
    text         TEXT NOT NULL,
    author       TEXT NOT NULL DEFAULT '',
    created_at   TEXT NOT NULL
);
CREATE INDEX finding_comments_fp ON finding_comments (fingerprint, seq);

CREATE TABLE api_keys (
    id            TEXT PRIMARY KEY,
    name          TEXT NOT NULL,
    prefix        TEXT NOT NULL,
    hash          TEXT NOT NULL,                          -- <salt-hex>$<sha256-hex>
    scopes        TEXT NOT NULL,                          -- JSON array
    created_at    TEXT NOT NULL,
    last_used_at  TEXT,
    revoked_at    TEXT
);

CREATE TABLE webhooks (
    id            TEXT PRIMARY KEY,
    name          TEXT NOT NULL,
    url           TEXT NOT NULL,
    secret        TEXT NOT NULL,
    event_filter  TEXT NOT NULL,                          -- JSON array
    enabled       INTEGER NOT NULL DEFAULT 1,
    created_at    TEXT NOT NULL,
    updated_at    TEXT NOT NULL
);

CREATE TABLE webhook_deliveries (
    seq              INTEGER PRIMARY KEY AUTOINCREMENT,   -- created_at order, ties broken by arrival
    id               TEXT    NOT NULL UNIQUE,
    webhook_id       TEXT    NOT NULL REFERENCES webhooks (id) ON DELETE CASCADE,
    event            TEXT    NOT NULL,
    payload          TEXT    NOT NULL,                    -- JSON of the event data
    status           TEXT    NOT NULL CHECK (status IN ('pending','delivering','succeeded','failed')),
    attempt          INTEGER NOT NULL DEFAULT 0,
    next_attempt_at  TEXT    NOT NULL,
    response_code    INTEGER,
    response_note    TEXT    NOT NULL DEFAULT '',
    created_at       TEXT    NOT NULL,
    updated_at       TEXT    NOT NULL
);
CREATE INDEX webhook_deliveries_queue ON webhook_deliveries (webhook_id, status, seq);
CREATE INDEX webhook_deliveries_status ON webhook_deliveries (status, next_attempt_at);

CREATE TABLE notifications (
    seq         INTEGER PRIMARY KEY AUTOINCREMENT,
    id          TEXT NOT NULL UNIQUE,
    severity    TEXT NOT NULL,
    title       TEXT NOT NULL,
    body        TEXT NOT NULL,
    scan_id     TEXT NOT NULL DEFAULT '',
    created_at  TEXT NOT NULL,
    read_at     TEXT
);
CREATE INDEX notifications_unread ON notifications (read_at, seq);
