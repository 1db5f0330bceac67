-- Component inventory (issue 25): the components each scan captured
-- (scans.components, JSON) as rows, indexed by package URL without its
-- version and by lower-cased name, so "where do we ship lodash" reads a
-- few index entries per target instead of parsing every SBOM. Triggers
-- keep the rows in step with scans.components, whoever writes it.
CREATE TABLE scan_components (
    scan_seq   INTEGER NOT NULL,
    idx        INTEGER NOT NULL,              -- position in scans.components
    name       TEXT    NOT NULL,
    name_lc    TEXT    NOT NULL,
    version    TEXT    NOT NULL,
    ecosystem  TEXT    NOT NULL,
    purl       TEXT    NOT NULL,
    purl_base  TEXT    NOT NULL,              -- purl without @version, qualifiers and subpath
    PRIMARY KEY (scan_seq, idx)
) WITHOUT ROWID;
CREATE INDEX scan_components_purl ON scan_components (purl_base, scan_seq);
CREATE INDEX scan_components_name ON scan_components (name_lc, scan_seq);

CREATE VIEW scan_component_rows AS
SELECT seq AS scan_seq, idx, name, lower(name) AS name_lc, version, ecosystem, purl,
    CASE WHEN instr(p, '@') > 0 THEN substr(rtrim(p, replace(p, '@', '')), 1, length(rtrim(p, replace(p, '@', ''))) - 1) ELSE p END AS purl_base
FROM (SELECT s.seq, CAST(j.key AS INTEGER) AS idx,
        coalesce(json_extract(j.value, '$.name'), '') AS name, coalesce(json_extract(j.value, '$.version'), '') AS version,
        coalesce(json_extract(j.value, '$.ecosystem'), '') AS ecosystem, coalesce(json_extract(j.value, '$.purl'), '') AS purl,
        CASE WHEN instr(coalesce(json_extract(j.value, '$.purl'), ''), '?') > 0
            THEN substr(json_extract(j.value, '$.purl'), 1, instr(json_extract(j.value, '$.purl'), '?') - 1)
            WHEN instr(coalesce(json_extract(j.value, '$.purl'), ''), '#') > 0
            THEN substr(json_extract(j.value, '$.purl'), 1, instr(json_extract(j.value, '$.purl'), '#') - 1)
            ELSE coalesce(json_extract(j.value, '$.purl'), '') END AS p
    FROM scans s, json_each(s.components) j
    WHERE s.components IS NOT NULL AND json_valid(s.components) AND json_type(s.components) = 'array');

INSERT INTO scan_components SELECT * FROM scan_component_rows;

CREATE TRIGGER scans_components_rows AFTER UPDATE OF components ON scans BEGIN
    DELETE FROM scan_components WHERE scan_seq = NEW.seq;
    INSERT INTO scan_components SELECT * FROM scan_component_rows WHERE scan_seq = NEW.seq;
END;

CREATE TRIGGER scans_components_gone AFTER DELETE ON scans BEGIN
    DELETE FROM scan_components WHERE scan_seq = OLD.seq;
END;
