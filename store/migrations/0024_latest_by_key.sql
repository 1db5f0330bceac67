-- A large scan's latest_findings rewrite without a random index (issue 13,
-- 1M bars).
--
-- latest_findings_fp (target_id, fingerprint) served only the two
-- finding_age triggers of 0022, which carry a changed first_seen to the
-- target's latest rows. A fingerprint is a hash, so every row the batched
-- rewrite of a million-finding scan added or removed landed on a random
-- page of that index: about half of the rewrite's time, and a minute of
-- the writer at 1M.
--
-- The triggers now find the rows by key: finding_fps holds each scan's
-- fingerprints with their canonical ord, and a latest row's k is
-- latest_seq << 32 | ord. Rows of an older scan still waiting for the
-- batched rewrite (latest_stale) are no longer updated; readers skip them
-- and the rewrite copies first_seen from finding_age as it adds each row.
DROP INDEX latest_findings_fp;

DROP TRIGGER finding_age_latest_insert;
CREATE TRIGGER finding_age_latest_insert AFTER INSERT ON finding_age BEGIN
    UPDATE latest_findings SET first_seen = NEW.first_seen
        FROM targets t JOIN finding_fps p ON p.scan_seq = t.latest_seq AND p.fingerprint = NEW.fingerprint
        WHERE t.id = NEW.target_id AND latest_findings.k = (t.latest_seq << 32) | p.ord
            AND latest_findings.first_seen IS NOT NEW.first_seen;
END;

DROP TRIGGER finding_age_latest_update;
CREATE TRIGGER finding_age_latest_update AFTER UPDATE OF first_seen ON finding_age
WHEN OLD.first_seen IS NOT NEW.first_seen BEGIN
    UPDATE latest_findings SET first_seen = NEW.first_seen
        FROM targets t JOIN finding_fps p ON p.scan_seq = t.latest_seq AND p.fingerprint = NEW.fingerprint
        WHERE t.id = NEW.target_id AND latest_findings.k = (t.latest_seq << 32) | p.ord
            AND latest_findings.first_seen IS NOT NEW.first_seen;
END;
