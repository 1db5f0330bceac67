-- GET /vulnerabilities/{id} reads one advisory's rows alone (issue 25,
-- speed bar).
--
-- latest_advisories (0022) held only (k, advisory): answering an
-- advisory in thousands of findings looked each one up in
-- latest_findings (a row read per finding, scattered over the table),
-- then sorted and grouped them in temporary b-trees, three times. The
-- table now carries what the answer reads of each finding, clustered by
-- (advisory, target_id, k): one advisory's rows are one contiguous range
-- already in target order, the per-target sums and the first findings
-- read it in order, and the per-package sums read the covering index
-- latest_advisories_package in package order.
--
-- It is still written in the same statements as before, whoever moves
-- targets.latest_seq (the trigger below, the batched rewrite of
-- store/targets), from the same view. Verdicts are not copied: they are
-- per fingerprint and joined from triage_states at read time, so a
-- triage needs no maintenance here.
DROP TRIGGER targets_latest_findings;
DROP VIEW latest_advisory_rows;
DROP TABLE latest_advisories;

CREATE TABLE latest_advisories (
    advisory      TEXT    NOT NULL,          -- upper-cased rule id or alias
    target_id     INTEGER NOT NULL,
    k             INTEGER NOT NULL,          -- latest_findings.k
    fingerprint   TEXT    NOT NULL,
    severity      TEXT    NOT NULL,
    rule_id       TEXT    NOT NULL,          -- '' when none; likewise below
    ecosystem     TEXT    NOT NULL,
    package       TEXT    NOT NULL,
    version       TEXT    NOT NULL,
    fixed_version TEXT    NOT NULL,
    aliases       TEXT    NOT NULL,          -- JSON list, '[]' when none
    PRIMARY KEY (advisory, target_id, k)
) WITHOUT ROWID;
-- Rows go by finding when a target's latest rows are rewritten.
CREATE INDEX latest_advisories_k ON latest_advisories (k);
-- GET /findings?advisory= reads only the advisory's finding keys, in key
-- order (as before 0023): a narrow index, not the wide rows.
CREATE INDEX latest_advisories_id ON latest_advisories (advisory, k);
CREATE INDEX latest_advisories_package ON latest_advisories
    (advisory, ecosystem, package, version, target_id, fixed_version, rule_id, aliases);

-- The advisory rows of latest_findings, computed one way for the
-- trigger, the backfill and store/targets' batched rewrite.
CREATE VIEW latest_advisory_rows AS
SELECT upper(id) AS advisory, target_id, k, fingerprint, severity, coalesce(rule_id, '') AS rule_id,
    coalesce(ecosystem, '') AS ecosystem, coalesce(package, '') AS package, coalesce(version, '') AS version,
    coalesce(fixed_version, '') AS fixed_version, coalesce(aliases, '[]') AS aliases
FROM (SELECT lf.rule_id AS id, lf.target_id, lf.k, lf.fingerprint, lf.severity, lf.rule_id, lf.ecosystem, lf.package, lf.version,
        lf.fixed_version, lf.aliases
    FROM latest_findings lf WHERE lf.scan_type = 'dependency' AND lf.rule_id IS NOT NULL
    UNION ALL
    SELECT j.value, lf.target_id, lf.k, lf.fingerprint, lf.severity, lf.rule_id, lf.ecosystem, lf.package, lf.version,
        lf.fixed_version, lf.aliases
    FROM latest_findings lf, json_each(lf.aliases) j
    WHERE lf.scan_type = 'dependency' AND json_valid(lf.aliases) AND j.value IS NOT NULL);

INSERT OR IGNORE INTO latest_advisories SELECT * FROM latest_advisory_rows;

-- As in 0022, writing the wider rows.
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
    INSERT OR IGNORE INTO latest_advisories SELECT * FROM latest_advisory_rows WHERE target_id = NEW.id
        AND (SELECT latest_stale FROM targets WHERE id = NEW.id) = 0;
END;
