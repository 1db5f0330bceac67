-- What a scan examined (issue 23): per scan type and per scanner, ran,
-- partial, failed, not installed, not needed or disabled, and whether the
-- result is partial, as finding.ScanCoverage JSON; '' for a scan stored
-- before coverage was recorded. default_types is 1 when the scan's types
-- are the built-in default rather than asked for: a default type nothing
-- can run for here is a note, an explicit one fails closed.
ALTER TABLE scans ADD COLUMN coverage TEXT NOT NULL DEFAULT '';
ALTER TABLE scans ADD COLUMN default_types INTEGER NOT NULL DEFAULT 0;
