-- Re-evaluation of stored SBOMs against new advisory data (issue 27).
--
-- A re-evaluation matches the components of each target's latest
-- completed scan against the advisory data imported now, with the wrapped
-- tools that read an SBOM offline. Each target's run is a scan of its own
-- (source 'reevaluation'); based_on_scan names the scan whose components
-- it read.
ALTER TABLE scans ADD COLUMN based_on_scan TEXT NOT NULL DEFAULT '';

-- One row per run: after an import ('import') or on demand ('manual').
-- data_state is the imported advisory data's identity when the run was
-- made (a hash of the vulndb manifest), so an import made by the command
-- line while the daemon was down is still noticed at its next start.
CREATE TABLE reevaluations (
    id           TEXT    PRIMARY KEY,
    trigger      TEXT    NOT NULL CHECK (trigger IN ('import', 'manual')),
    status       TEXT    NOT NULL CHECK (status IN ('pending', 'running', 'completed', 'failed', 'cancelled')),
    data_state   TEXT    NOT NULL DEFAULT '',
    created_by   TEXT    NOT NULL DEFAULT '',
    created_at   TEXT    NOT NULL,
    started_at   TEXT,
    completed_at TEXT,
    error        TEXT    NOT NULL DEFAULT '',
    -- whether the advisory.new_matches event went out (or there was
    -- nothing new): set once, so a resumed run never sends it twice
    announced    INTEGER NOT NULL DEFAULT 0
);
CREATE INDEX reevaluations_created ON reevaluations (created_at, id);

-- The targets of a run in processing order. status: pending until the
-- target's scan ends; completed, failed (the scan failed or the target
-- had nothing to re-evaluate, see note), cancelled. new_matches is the
-- JSON list of advisories the target's scan matched that its previous
-- latest scan did not have.
CREATE TABLE reevaluation_targets (
    reevaluation_id TEXT    NOT NULL REFERENCES reevaluations(id) ON DELETE CASCADE,
    position        INTEGER NOT NULL,
    target_id       INTEGER NOT NULL,
    base_scan_id    TEXT    NOT NULL DEFAULT '',
    scan_id         TEXT    NOT NULL DEFAULT '',
    status          TEXT    NOT NULL DEFAULT 'pending',
    note            TEXT    NOT NULL DEFAULT '',
    new_matches     TEXT    NOT NULL DEFAULT '[]',
    PRIMARY KEY (reevaluation_id, position)
) WITHOUT ROWID;
CREATE INDEX reevaluation_targets_target ON reevaluation_targets (target_id);
CREATE INDEX reevaluation_targets_scan ON reevaluation_targets (scan_id) WHERE scan_id != '';
