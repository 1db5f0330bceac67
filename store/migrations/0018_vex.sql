-- VEX (issue 27): a false_positive verdict may carry an OpenVEX
-- justification, and imported VEX statements are kept so they apply to
-- findings of scans that complete later.

ALTER TABLE triage_states ADD COLUMN justification TEXT NOT NULL DEFAULT '';
ALTER TABLE triage_history ADD COLUMN justification TEXT NOT NULL DEFAULT '';

-- One row per imported document (OpenVEX or CycloneDX VEX).
CREATE TABLE vex_documents (
    seq          INTEGER PRIMARY KEY AUTOINCREMENT,
    doc_id       TEXT    NOT NULL DEFAULT '',   -- the document's @id or serialNumber
    format       TEXT    NOT NULL CHECK (format IN ('openvex','cyclonedx')),
    author       TEXT    NOT NULL,
    issued_at    TEXT,                          -- the document's own timestamp
    imported_at  TEXT    NOT NULL,
    imported_by  TEXT    NOT NULL DEFAULT '',
    statements   INTEGER NOT NULL
);

-- Every statement of every imported document, whatever its status: the
-- not_affected ones become verdicts, the others are shown. applied counts
-- the findings a statement has marked so far (now and at later scans).
CREATE TABLE vex_statements (
    seq               INTEGER PRIMARY KEY AUTOINCREMENT,
    doc_seq           INTEGER NOT NULL REFERENCES vex_documents (seq) ON DELETE CASCADE,
    idx               INTEGER NOT NULL,
    vulnerability     TEXT    NOT NULL,
    aliases           TEXT    NOT NULL DEFAULT '[]',  -- JSON array
    products          TEXT    NOT NULL DEFAULT '[]',  -- JSON array of purls and other ids, as given
    status            TEXT    NOT NULL,
    justification     TEXT    NOT NULL DEFAULT '',
    impact_statement  TEXT    NOT NULL DEFAULT '',
    action_statement  TEXT    NOT NULL DEFAULT '',
    applied           INTEGER NOT NULL DEFAULT 0
);
CREATE INDEX vex_statements_doc ON vex_statements (doc_seq, idx);
CREATE INDEX vex_statements_status ON vex_statements (status, seq);

-- The purl products of the not_affected statements, by package: a
-- completed scan's dependency finding looks its package up here.
-- version '' is any version.
CREATE TABLE vex_products (
    purl_key       TEXT    NOT NULL,
    version        TEXT    NOT NULL,
    statement_seq  INTEGER NOT NULL REFERENCES vex_statements (seq) ON DELETE CASCADE,
    PRIMARY KEY (purl_key, version, statement_seq)
) WITHOUT ROWID;
CREATE INDEX vex_products_statement ON vex_products (statement_seq);
