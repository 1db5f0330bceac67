-- Triage at the speed of a reviewer (issue 26): the audit trail of every
-- state change, acceptances that expire, and verdicts that follow a
-- finding to its new path.

-- One row per state change, appended and never edited: the trigger below
-- refuses every UPDATE, and nothing but age-based retention deletes.
-- changes is a JSON object {field: {"before": ..., "after": ...}}; the
-- writer (store/audit) refuses fields that name a secret.
CREATE TABLE audit_log (
    seq          INTEGER PRIMARY KEY AUTOINCREMENT,
    at           TEXT    NOT NULL,
    actor_kind   TEXT    NOT NULL CHECK (actor_kind IN ('key','env','dev','system')),
    actor_id     TEXT    NOT NULL DEFAULT '',
    actor_name   TEXT    NOT NULL DEFAULT '',
    action       TEXT    NOT NULL,
    object_type  TEXT    NOT NULL,
    object_id    TEXT    NOT NULL DEFAULT '',
    changes      TEXT    NOT NULL DEFAULT '{}',
    request_id   TEXT    NOT NULL DEFAULT '',
    client       TEXT    NOT NULL DEFAULT ''
);
CREATE INDEX audit_log_at ON audit_log (at);
CREATE INDEX audit_log_actor ON audit_log (actor_id, seq);
CREATE INDEX audit_log_action ON audit_log (action, seq);
CREATE INDEX audit_log_object ON audit_log (object_type, object_id, seq);
CREATE TRIGGER audit_log_append_only BEFORE UPDATE ON audit_log BEGIN
    SELECT RAISE(ABORT, 'the audit log is append-only');
END;

-- An accepted_risk or wont_fix verdict may end: at expires_at the expiry
-- sweep sets the fingerprint back to new (and clears expires_at, so it
-- fires once).
ALTER TABLE triage_states ADD COLUMN expires_at TEXT;
ALTER TABLE triage_history ADD COLUMN expires_at TEXT;
CREATE INDEX triage_states_expiry ON triage_states (expires_at) WHERE expires_at IS NOT NULL;

-- A finding new in a scan linked to the finding of the same rule and line
-- context that disappeared from the same target in that scan: its verdict,
-- history and comments were carried to new_fp. A refused link (several
-- candidates) is kept too, with the reason, and carries nothing.
CREATE TABLE finding_links (
    seq        INTEGER PRIMARY KEY AUTOINCREMENT,
    scan_id    TEXT    NOT NULL,
    new_fp     TEXT    NOT NULL,
    old_fp     TEXT    NOT NULL DEFAULT '',
    old_path   TEXT    NOT NULL DEFAULT '',
    new_path   TEXT    NOT NULL DEFAULT '',
    linked     INTEGER NOT NULL,
    reason     TEXT    NOT NULL DEFAULT '',
    created_at TEXT    NOT NULL
);
CREATE INDEX finding_links_new ON finding_links (new_fp, seq);
CREATE INDEX finding_links_scan ON finding_links (scan_id, seq);
