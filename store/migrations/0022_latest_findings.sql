-- Portfolio reads kept at write time (issue 25, speed bar).
--
-- The portfolio lists, counts and searches the findings of each target's
-- latest completed scan. Read from findings, every such query walked the
-- latest scan of every target (100k rows at 1,000 targets) and parsed
-- JSON per row. latest_findings holds one row per finding row of each
-- target's latest completed scan with what the filters and sorts need,
-- indexed for them; latest_advisories maps each rule id and alias of
-- those dependency findings to the row. Both are rewritten for a target
-- whenever targets.latest_seq moves (a scan completes, is hidden or
-- deleted; the triggers of 0016 move it), whoever makes it move.
--
-- Overdue is not stored: it depends on now and on SVC_SLA_DAYS, so
-- readers compare first_seen with each severity's cutoff at query time
-- (index latest_findings_overdue). first_seen follows finding_age
-- (trigger below): a scan completing out of order, or an age written
-- after the scan completed, lands here too. Verdicts are not copied
-- either: they are per fingerprint and joined from triage_states.
CREATE TABLE latest_findings (
    k           INTEGER PRIMARY KEY,         -- findings.k
    target_id   INTEGER NOT NULL,
    fingerprint TEXT    NOT NULL,
    severity    TEXT    NOT NULL,
    scanner     TEXT    NOT NULL,
    scan_type   TEXT    NOT NULL,
    suppressed  INTEGER NOT NULL,
    tagset      INTEGER NOT NULL,
    first_seen  TEXT    NOT NULL,            -- finding_age.first_seen, or the scan's completion until aged
    -- Dependency findings (NULL for others): metadata.package, .version,
    -- .ecosystem, .fixed_version, .aliases (JSON) and the rule id, so the
    -- purl filter and vulnerabilities/{id} read no finding JSON.
    package       TEXT,
    version       TEXT,
    ecosystem     TEXT,
    fixed_version TEXT,
    aliases       TEXT,
    rule_id       TEXT
);
CREATE INDEX latest_findings_target ON latest_findings (target_id);
CREATE INDEX latest_findings_fp ON latest_findings (target_id, fingerprint);
CREATE INDEX latest_findings_severity ON latest_findings (severity, target_id);
CREATE INDEX latest_findings_overdue ON latest_findings (severity, first_seen, target_id);
CREATE INDEX latest_findings_first_seen ON latest_findings (first_seen, target_id);
CREATE INDEX latest_findings_package ON latest_findings (package, version) WHERE package IS NOT NULL;

CREATE TABLE latest_advisories (
    k         INTEGER NOT NULL,              -- latest_findings.k
    advisory  TEXT    NOT NULL,              -- upper-cased rule id or alias
    PRIMARY KEY (k, advisory)
) WITHOUT ROWID;
CREATE INDEX latest_advisories_id ON latest_advisories (advisory, k);

-- The rows of one latest scan, computed one way for the trigger, the
-- backfill and store/targets' repair.
CREATE VIEW latest_finding_rows AS
SELECT f.k, t.id AS target_id, f.fingerprint, f.severity, f.scanner, f.scan_type, f.suppressed, f.tagset,
    coalesce(a.first_seen, s.completed_at) AS first_seen,
    CASE WHEN f.scan_type = 'dependency' THEN json_extract(f.body, '$.metadata.package') END AS package,
    CASE WHEN f.scan_type = 'dependency' THEN json_extract(f.body, '$.metadata.version') END AS version,
    CASE WHEN f.scan_type = 'dependency' THEN json_extract(f.body, '$.metadata.ecosystem') END AS ecosystem,
    CASE WHEN f.scan_type = 'dependency' THEN json_extract(f.body, '$.metadata.fixed_version') END AS fixed_version,
    CASE WHEN f.scan_type <> 'dependency' THEN NULL
        WHEN json_type(f.body, '$.metadata.aliases') = 'array' THEN json_extract(f.body, '$.metadata.aliases')
        WHEN json_type(f.body, '$.metadata.aliases') = 'text' THEN json_array(json_extract(f.body, '$.metadata.aliases')) END AS aliases,
    CASE WHEN f.scan_type = 'dependency' THEN json_extract(f.body, '$.rule_id') END AS rule_id
FROM targets t JOIN scans s ON s.seq = t.latest_seq
    JOIN findings f ON f.k BETWEEN t.latest_seq << 32 AND (t.latest_seq << 32) + 4294967295
    LEFT JOIN finding_age a ON a.target_id = t.id AND a.fingerprint = f.fingerprint;

CREATE VIEW latest_advisory_rows AS
SELECT target_id, k, upper(rule_id) AS advisory FROM latest_findings WHERE scan_type = 'dependency' AND rule_id IS NOT NULL
UNION
SELECT lf.target_id, lf.k, upper(j.value) FROM latest_findings lf, json_each(lf.aliases) j
    WHERE lf.scan_type = 'dependency' AND json_valid(lf.aliases) AND j.value IS NOT NULL;

INSERT INTO latest_findings SELECT * FROM latest_finding_rows WHERE target_id IN (SELECT id FROM targets WHERE latest_seq IS NOT NULL);
INSERT OR IGNORE INTO latest_advisories (k, advisory) SELECT k, advisory FROM latest_advisory_rows;

-- latest_stale: the target's rows are being rewritten in batches by
-- store/targets (RefreshStaleLatest) because its latest scan changed
-- between large scans; readers skip rows of any other scan meanwhile.
ALTER TABLE targets ADD COLUMN latest_stale INTEGER NOT NULL DEFAULT 0;

-- A change between small scans (20,000 rows or fewer to remove and to
-- add) is rewritten at once, in the transaction that moved latest_seq;
-- a larger one would hold the writer for seconds, so it only marks the
-- target for the batched rewrite that runs right after the scan's aging
-- and in the maintenance loop.
CREATE TRIGGER targets_latest_findings AFTER UPDATE OF latest_seq ON targets
WHEN OLD.latest_seq IS NOT NEW.latest_seq BEGIN
    UPDATE targets SET latest_stale = 1 WHERE id = NEW.id AND (latest_stale = 1
        OR (SELECT count(*) FROM (SELECT 1 FROM latest_findings WHERE target_id = NEW.id LIMIT 20001)) > 20000
        OR coalesce((SELECT findings_count FROM scans WHERE seq = NEW.latest_seq), 0) > 20000);
    DELETE FROM latest_advisories WHERE k IN (SELECT k FROM latest_findings WHERE target_id = NEW.id)
        AND (SELECT latest_stale FROM targets WHERE id = NEW.id) = 0;
    DELETE FROM latest_findings WHERE target_id = NEW.id AND (SELECT latest_stale FROM targets WHERE id = NEW.id) = 0;
    INSERT INTO latest_findings SELECT * FROM latest_finding_rows WHERE target_id = NEW.id
        AND (SELECT latest_stale FROM targets WHERE id = NEW.id) = 0;
    INSERT OR IGNORE INTO latest_advisories (k, advisory) SELECT k, advisory FROM latest_advisory_rows WHERE target_id = NEW.id
        AND (SELECT latest_stale FROM targets WHERE id = NEW.id) = 0;
END;

CREATE TRIGGER finding_age_latest_insert AFTER INSERT ON finding_age BEGIN
    UPDATE latest_findings SET first_seen = NEW.first_seen
        WHERE target_id = NEW.target_id AND fingerprint = NEW.fingerprint AND first_seen IS NOT NEW.first_seen;
END;

CREATE TRIGGER finding_age_latest_update AFTER UPDATE OF first_seen ON finding_age
WHEN OLD.first_seen IS NOT NEW.first_seen BEGIN
    UPDATE latest_findings SET first_seen = NEW.first_seen
        WHERE target_id = NEW.target_id AND fingerprint = NEW.fingerprint AND first_seen IS NOT NEW.first_seen;
END;

-- A target's first and last scan, its series and its latest SBOM read a
-- few index entries instead of sorting or reading every scan row of the
-- target (components make the latest rows large).
CREATE INDEX scans_target_seq ON scans (target_id, seq) WHERE hidden = 0;
CREATE INDEX scans_target_sbom ON scans (target_id, seq) WHERE components IS NOT NULL AND status = 'completed' AND hidden = 0;
