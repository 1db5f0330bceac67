-- Constant memory at a million findings (issue 13).
--
-- Findings move to a table keyed by k = scans.seq << 32 | ord, so one scan's
-- rows are one rowid range: read, paged and deleted by range, with no index
-- on text ids. The rows of 0001's table are moved by Go at startup
-- (store.backfill) through the same writer a new scan uses, because the
-- per-scan aggregates below come from Go code (tags, suppression, rules);
-- until then they wait in findings_v1.
--
-- Aggregates that only depend on scan rows are kept by triggers, so every
-- code path that inserts, finishes, hides or deletes a scan keeps them
-- right. Aggregates over findings are written by the ingest writer.

ALTER TABLE findings RENAME TO findings_v1;
DROP INDEX findings_fingerprint;

-- hidden: deleted through the API; the row goes once its findings are
-- purged in the background. purge: findings rows (possibly partial, from a
-- cancelled or failed ingest) wait for the purger.
ALTER TABLE scans ADD COLUMN hidden INTEGER NOT NULL DEFAULT 0;
ALTER TABLE scans ADD COLUMN purge INTEGER NOT NULL DEFAULT 0;
-- live_counts: unsuppressed findings by severity (the summary);
-- severity_counts stays every finding by severity (events, trends).
ALTER TABLE scans ADD COLUMN live_counts TEXT NOT NULL DEFAULT '{}';
ALTER TABLE scans ADD COLUMN suppressed_count INTEGER NOT NULL DEFAULT 0;
CREATE INDEX scans_completed ON scans (status, completed_at);
CREATE INDEX scans_purge ON scans (purge) WHERE purge = 1;

CREATE TABLE findings (
    k            INTEGER PRIMARY KEY,             -- scans.seq << 32 | canonical ord
    severity     TEXT    NOT NULL,
    scanner      TEXT    NOT NULL,
    scan_type    TEXT    NOT NULL,
    fingerprint  TEXT    NOT NULL,
    suppressed   INTEGER NOT NULL,               -- 1: metadata.suppressed_by is set
    tagset       INTEGER NOT NULL,               -- tagsets.id of compliance_tags
    text_id      INTEGER,                        -- finding_texts.id of the description left out of body
    body         TEXT    NOT NULL                -- canonical JSON (description spliced back when text_id is set)
);
-- Both indexes end in the implied rowid k, so a filter walks them in
-- canonical order within one scan's range.
CREATE INDEX findings_tagset ON findings (tagset);
CREATE INDEX findings_suppressed ON findings (suppressed) WHERE suppressed = 1;

-- One scan's fingerprints in fingerprint order: compare, coverage and the
-- triage bookkeeping look fingerprints up per scan. Written sorted, so
-- inserts append instead of touching random pages. tagset and suppressed
-- repeat the finding's, so coverage reads this table alone.
CREATE TABLE finding_fps (
    scan_seq     INTEGER NOT NULL,
    fingerprint  TEXT    NOT NULL,
    ord          INTEGER NOT NULL,
    tagset       INTEGER NOT NULL,
    suppressed   INTEGER NOT NULL,
    PRIMARY KEY (scan_seq, fingerprint, ord)
) WITHOUT ROWID;

-- A scan's long descriptions, once each: a rule's remediation text is the
-- same in every one of its findings and would be half of each row. text
-- is the JSON string token, spliced in on read.
CREATE TABLE finding_texts (
    scan_seq  INTEGER NOT NULL,
    id        INTEGER NOT NULL,
    text      TEXT    NOT NULL,
    PRIMARY KEY (scan_seq, id)
) WITHOUT ROWID;

-- A finding's compliance tags as a set id: findings carry few distinct
-- sets, and a tag filter becomes an integer IN list over findings_tagset.
CREATE TABLE tagsets (
    id    INTEGER PRIMARY KEY,
    tags  TEXT NOT NULL UNIQUE                   -- JSON array as in the finding
);
INSERT INTO tagsets (id, tags) VALUES (0, '[]');
CREATE TABLE tagset_tags (
    tag     TEXT    NOT NULL,
    tagset  INTEGER NOT NULL,
    PRIMARY KEY (tag, tagset)
) WITHOUT ROWID;

-- Per-scan counts by every filterable facet: totals of a filtered list,
-- summaries, coverage counts and the dashboard read these, never the rows.
-- triage is the fingerprint's verdict ('new' when none); SetTriage moves
-- counts between verdicts.
CREATE TABLE finding_counts (
    scan_seq    INTEGER NOT NULL,
    severity    TEXT    NOT NULL,
    scanner     TEXT    NOT NULL,
    scan_type   TEXT    NOT NULL,
    suppressed  INTEGER NOT NULL,
    triage      TEXT    NOT NULL,
    tagset      INTEGER NOT NULL,
    n           INTEGER NOT NULL,
    PRIMARY KEY (scan_seq, severity, scanner, scan_type, suppressed, triage, tagset)
) WITHOUT ROWID;

-- The canonical order sorts by severity, then scanner: each (severity,
-- scanner) pair is one contiguous ord range of a scan.
CREATE TABLE finding_blocks (
    scan_seq   INTEGER NOT NULL,
    first_ord  INTEGER NOT NULL,
    last_ord   INTEGER NOT NULL,
    severity   TEXT    NOT NULL,
    scanner    TEXT    NOT NULL,
    PRIMARY KEY (scan_seq, first_ord)
) WITHOUT ROWID;

-- One row per (scanner, rule) of a scan, for SARIF's rule table: the first
-- finding in canonical order, the most severe severity, the CWEs and tags.
CREATE TABLE finding_rules (
    scan_seq   INTEGER NOT NULL,
    scanner    TEXT    NOT NULL,
    rule_id    TEXT    NOT NULL,
    first_ord  INTEGER NOT NULL,
    worst      TEXT    NOT NULL,
    cwes       TEXT    NOT NULL,                 -- JSON array
    tags       TEXT    NOT NULL,                 -- JSON array
    PRIMARY KEY (scan_seq, scanner, rule_id)
) WITHOUT ROWID;

CREATE INDEX triage_states_status ON triage_states (status);

-- Dashboard aggregates.
CREATE TABLE scan_status_counts (
    status  TEXT PRIMARY KEY,
    n       INTEGER NOT NULL
) WITHOUT ROWID;

CREATE TABLE daily_activity (
    day        TEXT PRIMARY KEY,                 -- UTC date
    started    INTEGER NOT NULL DEFAULT 0,
    completed  INTEGER NOT NULL DEFAULT 0,
    critical   INTEGER NOT NULL DEFAULT 0,
    high       INTEGER NOT NULL DEFAULT 0,
    medium     INTEGER NOT NULL DEFAULT 0,
    low        INTEGER NOT NULL DEFAULT 0,
    info       INTEGER NOT NULL DEFAULT 0
) WITHOUT ROWID;

-- The latest completed scan of each target (path, URL, host).
CREATE TABLE targets (
    target_path  TEXT    NOT NULL,
    target_url   TEXT    NOT NULL,
    target_host  TEXT    NOT NULL,
    scan_seq     INTEGER NOT NULL,
    PRIMARY KEY (target_path, target_url, target_host)
) WITHOUT ROWID;

INSERT INTO scan_status_counts (status, n) SELECT status, count(*) FROM scans GROUP BY status;
INSERT INTO daily_activity (day, started) SELECT substr(started_at, 1, 10), count(*) FROM scans GROUP BY 1;
INSERT INTO daily_activity (day, completed, critical, high, medium, low, info)
    SELECT substr(completed_at, 1, 10), count(*),
        sum(coalesce(json_extract(severity_counts, '$.critical'), 0)), sum(coalesce(json_extract(severity_counts, '$.high'), 0)),
        sum(coalesce(json_extract(severity_counts, '$.medium'), 0)), sum(coalesce(json_extract(severity_counts, '$.low'), 0)),
        sum(coalesce(json_extract(severity_counts, '$.info'), 0))
    FROM scans WHERE status = 'completed' GROUP BY 1
    ON CONFLICT (day) DO UPDATE SET completed = excluded.completed, critical = excluded.critical, high = excluded.high,
        medium = excluded.medium, low = excluded.low, info = excluded.info;
INSERT INTO targets (target_path, target_url, target_host, scan_seq)
    SELECT target_path, coalesce(target_url, ''), coalesce(target_host, ''), max(seq) FROM scans
    WHERE status = 'completed' GROUP BY 1, 2, 3;

-- A scan row contributes to the aggregates while it is not hidden: its
-- status, its start day and, once completed, its completion day, severity
-- counts and target. Each trigger takes the old contribution away and adds
-- the new one.
CREATE TRIGGER scans_agg_insert AFTER INSERT ON scans WHEN NEW.hidden = 0 BEGIN
    INSERT INTO scan_status_counts (status, n) VALUES (NEW.status, 1) ON CONFLICT (status) DO UPDATE SET n = n + 1;
    INSERT INTO daily_activity (day, started) VALUES (substr(NEW.started_at, 1, 10), 1)
        ON CONFLICT (day) DO UPDATE SET started = started + 1;
    INSERT INTO daily_activity (day, completed, critical, high, medium, low, info)
        SELECT substr(NEW.completed_at, 1, 10), 1,
            coalesce(json_extract(NEW.severity_counts, '$.critical'), 0), coalesce(json_extract(NEW.severity_counts, '$.high'), 0),
            coalesce(json_extract(NEW.severity_counts, '$.medium'), 0), coalesce(json_extract(NEW.severity_counts, '$.low'), 0),
            coalesce(json_extract(NEW.severity_counts, '$.info'), 0)
        WHERE NEW.status = 'completed'
        ON CONFLICT (day) DO UPDATE SET completed = completed + 1, critical = critical + excluded.critical, high = high + excluded.high,
            medium = medium + excluded.medium, low = low + excluded.low, info = info + excluded.info;
    INSERT INTO targets (target_path, target_url, target_host, scan_seq)
        SELECT NEW.target_path, coalesce(NEW.target_url, ''), coalesce(NEW.target_host, ''), NEW.seq WHERE NEW.status = 'completed'
        ON CONFLICT (target_path, target_url, target_host) DO UPDATE SET scan_seq = max(scan_seq, excluded.scan_seq);
END;

CREATE TRIGGER scans_agg_update AFTER UPDATE OF status, hidden, completed_at, severity_counts ON scans
WHEN OLD.status IS NOT NEW.status OR OLD.hidden IS NOT NEW.hidden OR OLD.completed_at IS NOT NEW.completed_at
    OR OLD.severity_counts IS NOT NEW.severity_counts BEGIN
    -- take OLD away
    UPDATE scan_status_counts SET n = n - 1 WHERE status = OLD.status AND OLD.hidden = 0;
    UPDATE daily_activity SET started = started - 1 WHERE day = substr(OLD.started_at, 1, 10) AND OLD.hidden = 0;
    UPDATE daily_activity SET completed = completed - 1,
            critical = critical - coalesce(json_extract(OLD.severity_counts, '$.critical'), 0),
            high = high - coalesce(json_extract(OLD.severity_counts, '$.high'), 0),
            medium = medium - coalesce(json_extract(OLD.severity_counts, '$.medium'), 0),
            low = low - coalesce(json_extract(OLD.severity_counts, '$.low'), 0),
            info = info - coalesce(json_extract(OLD.severity_counts, '$.info'), 0)
        WHERE day = substr(OLD.completed_at, 1, 10) AND OLD.hidden = 0 AND OLD.status = 'completed';
    UPDATE targets SET scan_seq = coalesce((SELECT max(s.seq) FROM scans s WHERE s.status = 'completed' AND s.hidden = 0
            AND s.seq <> OLD.seq AND s.target_path = OLD.target_path AND coalesce(s.target_url, '') = coalesce(OLD.target_url, '')
            AND coalesce(s.target_host, '') = coalesce(OLD.target_host, '')), -1)
        WHERE target_path = OLD.target_path AND target_url = coalesce(OLD.target_url, '') AND target_host = coalesce(OLD.target_host, '')
            AND scan_seq = OLD.seq AND OLD.hidden = 0 AND OLD.status = 'completed';
    DELETE FROM targets WHERE scan_seq = -1;
    -- add NEW
    INSERT INTO scan_status_counts (status, n) SELECT NEW.status, 1 WHERE NEW.hidden = 0
        ON CONFLICT (status) DO UPDATE SET n = n + 1;
    INSERT INTO daily_activity (day, started) SELECT substr(NEW.started_at, 1, 10), 1 WHERE NEW.hidden = 0
        ON CONFLICT (day) DO UPDATE SET started = started + 1;
    INSERT INTO daily_activity (day, completed, critical, high, medium, low, info)
        SELECT substr(NEW.completed_at, 1, 10), 1,
            coalesce(json_extract(NEW.severity_counts, '$.critical'), 0), coalesce(json_extract(NEW.severity_counts, '$.high'), 0),
            coalesce(json_extract(NEW.severity_counts, '$.medium'), 0), coalesce(json_extract(NEW.severity_counts, '$.low'), 0),
            coalesce(json_extract(NEW.severity_counts, '$.info'), 0)
        WHERE NEW.status = 'completed' AND NEW.hidden = 0
        ON CONFLICT (day) DO UPDATE SET completed = completed + 1, critical = critical + excluded.critical, high = high + excluded.high,
            medium = medium + excluded.medium, low = low + excluded.low, info = info + excluded.info;
    INSERT INTO targets (target_path, target_url, target_host, scan_seq)
        SELECT NEW.target_path, coalesce(NEW.target_url, ''), coalesce(NEW.target_host, ''), NEW.seq
        WHERE NEW.status = 'completed' AND NEW.hidden = 0
        ON CONFLICT (target_path, target_url, target_host) DO UPDATE SET scan_seq = max(scan_seq, excluded.scan_seq);
END;

CREATE TRIGGER scans_agg_delete AFTER DELETE ON scans WHEN OLD.hidden = 0 BEGIN
    UPDATE scan_status_counts SET n = n - 1 WHERE status = OLD.status;
    UPDATE daily_activity SET started = started - 1 WHERE day = substr(OLD.started_at, 1, 10);
    UPDATE daily_activity SET completed = completed - 1,
            critical = critical - coalesce(json_extract(OLD.severity_counts, '$.critical'), 0),
            high = high - coalesce(json_extract(OLD.severity_counts, '$.high'), 0),
            medium = medium - coalesce(json_extract(OLD.severity_counts, '$.medium'), 0),
            low = low - coalesce(json_extract(OLD.severity_counts, '$.low'), 0),
            info = info - coalesce(json_extract(OLD.severity_counts, '$.info'), 0)
        WHERE day = substr(OLD.completed_at, 1, 10) AND OLD.status = 'completed';
    UPDATE targets SET scan_seq = coalesce((SELECT max(s.seq) FROM scans s WHERE s.status = 'completed' AND s.hidden = 0
            AND s.target_path = OLD.target_path AND coalesce(s.target_url, '') = coalesce(OLD.target_url, '')
            AND coalesce(s.target_host, '') = coalesce(OLD.target_host, '')), -1)
        WHERE target_path = OLD.target_path AND target_url = coalesce(OLD.target_url, '') AND target_host = coalesce(OLD.target_host, '')
            AND scan_seq = OLD.seq AND OLD.status = 'completed';
    DELETE FROM targets WHERE scan_seq = -1;
END;
