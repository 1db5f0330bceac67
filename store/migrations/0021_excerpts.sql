-- Code excerpts kept at scan time around findings with a file and line
-- (issue 26): up to 7 lines, each capped, secrets redacted. A window of a
-- file is stored once however many findings and scans show it: a rescan
-- of an unchanged tree adds only the small rows of finding_excerpts.
-- hash is the first 8 bytes of the body's SHA-256; refs counts the rows
-- pointing at a body, kept by the triggers, so a body goes with its last
-- finding when retention purges scans.
CREATE TABLE excerpt_bodies (
    id    INTEGER PRIMARY KEY,
    hash  INTEGER NOT NULL UNIQUE,
    refs  INTEGER NOT NULL DEFAULT 0,
    body  BLOB    NOT NULL
);

-- fp is the first 8 bytes of the finding's fingerprint as an integer: the
-- key stays 20 bytes instead of 70 per finding, and a clash within one
-- scan only shares an excerpt between two findings.
CREATE TABLE finding_excerpts (
    scan_seq  INTEGER NOT NULL,
    fp        INTEGER NOT NULL,
    body_id   INTEGER NOT NULL,
    PRIMARY KEY (scan_seq, fp)
) WITHOUT ROWID;

CREATE TRIGGER finding_excerpts_ref AFTER INSERT ON finding_excerpts BEGIN
    UPDATE excerpt_bodies SET refs = refs + 1 WHERE id = NEW.body_id;
END;
CREATE TRIGGER finding_excerpts_unref AFTER DELETE ON finding_excerpts BEGIN
    UPDATE excerpt_bodies SET refs = refs - 1 WHERE id = OLD.body_id;
    DELETE FROM excerpt_bodies WHERE id = OLD.body_id AND refs <= 0;
END;
