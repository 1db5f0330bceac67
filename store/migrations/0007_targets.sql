-- Image and repository targets (issue 18). A scan whose target is a tree
-- has no row here. The row is written before its scan and removed with it
-- (trigger), so a scan never exists without its target; there is no
-- foreign key because the row comes first.
CREATE TABLE scan_targets (
    scan_id  TEXT PRIMARY KEY,
    spec     TEXT NOT NULL,               -- JSON scan.TargetSpec: what was asked
    resolved TEXT NOT NULL DEFAULT '{}'   -- JSON scan.Resolved: what preparing it learned
);

CREATE TRIGGER scan_targets_follow_scans AFTER DELETE ON scans BEGIN
    DELETE FROM scan_targets WHERE scan_id = OLD.id;
END;
