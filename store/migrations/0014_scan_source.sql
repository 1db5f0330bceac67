-- Scans sent by `scand scan --server` (issue 14): computed elsewhere and
-- imported through POST /scans/import. source is 'scan' for every scan
-- this daemon ran, 'import' for those; commit is the git commit an import
-- names ('' when none).
ALTER TABLE scans ADD COLUMN source TEXT NOT NULL DEFAULT 'scan';
ALTER TABLE scans ADD COLUMN commit_id TEXT NOT NULL DEFAULT '';
