-- Targets as records, per-target finding age (issue 25).
--
-- A target is what scans point at: a directory, an image archive, a
-- repository URL or an imported scan's label. Every scan is attached to
-- one when its row is inserted (trigger below), whichever code path
-- inserts it, so the daemon, imports, schedules and image and repository
-- scans need no code of their own for it.

-- 0002 kept the latest completed scan per (path, url, host) in a table
-- named targets, written by its scan triggers. Targets are records now,
-- each with its latest completed scan (latest_seq): the old table goes,
-- and 0002's triggers are recreated as they were without it.
DROP TRIGGER scans_agg_insert;
DROP TRIGGER scans_agg_update;
DROP TRIGGER scans_agg_delete;
DROP TABLE targets;
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
END;

CREATE TABLE targets (
    id          INTEGER PRIMARY KEY AUTOINCREMENT,
    kind        TEXT    NOT NULL CHECK (kind IN ('dir', 'image', 'repo', 'import')),
    key         TEXT    NOT NULL,            -- canonical: path, archive path, URL without credentials, label
    url         TEXT    NOT NULL DEFAULT '', -- a DAST scan's target_url, a network scan's target_host: two
    host        TEXT    NOT NULL DEFAULT '', -- URLs scanned from one directory are two targets
    name        TEXT    NOT NULL,            -- display name, editable
    labels      TEXT    NOT NULL DEFAULT '{}', -- JSON object of key=value labels
    created_at  TEXT    NOT NULL,
    latest_seq  INTEGER,                     -- latest completed, not deleted scan; NULL before the first
    UNIQUE (kind, key, url, host)
);
CREATE INDEX targets_name ON targets (name, id);

-- kind and canonical key of every scan, computed one way for the trigger
-- and the migration of existing scans. A user:password@ in a URL-shaped
-- repository or import key is dropped: it is a credential, never a name.
CREATE VIEW scan_target_keys AS
SELECT seq, kind,
    CASE WHEN kind IN ('repo', 'import') AND instr(k, '://') > 0
            AND instr(substr(k, instr(k, '://') + 3), '@') > 0
            AND (instr(substr(k, instr(k, '://') + 3), '/') = 0
                OR instr(substr(k, instr(k, '://') + 3), '@') < instr(substr(k, instr(k, '://') + 3), '/'))
        THEN substr(k, 1, instr(k, '://') + 2) || substr(substr(k, instr(k, '://') + 3), instr(substr(k, instr(k, '://') + 3), '@') + 1)
        ELSE k END AS key,
    url, host, started_at
FROM (SELECT s.seq, s.target_path AS k, coalesce(s.target_url, '') AS url, coalesce(s.target_host, '') AS host, s.started_at,
        CASE WHEN s.source = 'import' THEN 'import'
            WHEN json_type(t.spec, '$.image') IS NOT NULL THEN 'image'
            WHEN json_type(t.spec, '$.repo') IS NOT NULL THEN 'repo'
            ELSE 'dir' END AS kind
    FROM scans s LEFT JOIN scan_targets t ON t.scan_id = s.id);

ALTER TABLE scans ADD COLUMN target_id INTEGER;
-- aged: 1 once the scan's fingerprints are in finding_age (the ingest
-- does it right after the scan completes; Open redoes what a crash left).
ALTER TABLE scans ADD COLUMN aged INTEGER NOT NULL DEFAULT 0;

-- Existing scans, set-based.
INSERT INTO targets (kind, key, url, host, name, created_at)
    SELECT kind, key, url, host, trim(key || ' ' || url || ' ' || host), min(started_at) FROM scan_target_keys
    GROUP BY kind, key, url, host ORDER BY min(seq);
UPDATE scans SET target_id = (SELECT t.id FROM scan_target_keys v JOIN targets t ON t.kind = v.kind AND t.key = v.key
    AND t.url = v.url AND t.host = v.host WHERE v.seq = scans.seq);
CREATE INDEX scans_by_target ON scans (target_id, status, seq);
CREATE INDEX scans_unaged ON scans (seq) WHERE aged = 0;
UPDATE targets SET latest_seq = (SELECT max(seq) FROM scans s WHERE s.target_id = targets.id AND s.status = 'completed' AND s.hidden = 0);

-- first_seen, last_seen: completion times of the first and the last
-- completed scan of the target that had the fingerprint. No foreign key:
-- the age outlives the scans retention deletes. sla_notified: the
-- finding.sla_breached event went out for this finding (once).
CREATE TABLE finding_age (
    target_id     INTEGER NOT NULL,
    fingerprint   TEXT    NOT NULL,
    first_seen    TEXT    NOT NULL,
    last_seen     TEXT    NOT NULL,
    sla_notified  INTEGER NOT NULL DEFAULT 0,
    PRIMARY KEY (target_id, fingerprint)
) WITHOUT ROWID;
CREATE INDEX finding_age_first_seen ON finding_age (first_seen);

INSERT INTO finding_age (target_id, fingerprint, first_seen, last_seen)
    SELECT s.target_id, p.fingerprint, min(s.completed_at), max(s.completed_at)
    FROM finding_fps p JOIN scans s ON s.seq = p.scan_seq
    WHERE s.status = 'completed' AND s.hidden = 0
    GROUP BY s.target_id, p.fingerprint;
UPDATE scans SET aged = 1;

CREATE TRIGGER scans_attach_target AFTER INSERT ON scans WHEN NEW.target_id IS NULL BEGIN
    INSERT INTO targets (kind, key, url, host, name, created_at)
        SELECT kind, key, url, host, trim(key || ' ' || url || ' ' || host), started_at FROM scan_target_keys WHERE seq = NEW.seq
        ON CONFLICT (kind, key, url, host) DO NOTHING;
    UPDATE scans SET target_id = (SELECT t.id FROM scan_target_keys v JOIN targets t ON t.kind = v.kind AND t.key = v.key
        AND t.url = v.url AND t.host = v.host WHERE v.seq = NEW.seq) WHERE seq = NEW.seq;
    UPDATE targets SET latest_seq = max(coalesce(latest_seq, 0), NEW.seq)
        WHERE id = (SELECT target_id FROM scans WHERE seq = NEW.seq) AND NEW.status = 'completed' AND NEW.hidden = 0;
END;

CREATE TRIGGER scans_target_latest_update AFTER UPDATE OF status, hidden ON scans
WHEN NEW.target_id IS NOT NULL AND (OLD.status IS NOT NEW.status OR OLD.hidden IS NOT NEW.hidden) BEGIN
    UPDATE targets SET latest_seq = (SELECT max(seq) FROM scans s WHERE s.target_id = NEW.target_id
        AND s.status = 'completed' AND s.hidden = 0) WHERE id = NEW.target_id;
END;

CREATE TRIGGER scans_target_latest_delete AFTER DELETE ON scans WHEN OLD.target_id IS NOT NULL BEGIN
    UPDATE targets SET latest_seq = (SELECT max(seq) FROM scans s WHERE s.target_id = OLD.target_id
        AND s.status = 'completed' AND s.hidden = 0) WHERE id = OLD.target_id;
END;
