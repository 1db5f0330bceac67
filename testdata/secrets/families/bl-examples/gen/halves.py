#!/usr/bin/env python3
"""Scores bl-examples and bl-random together on one half: the rule files
listed in ../HELDOUT, or the rest (the development half).

    go run ./bench/secrets-driver.go testdata/secrets/families/bl-examples/files > /tmp/bl-examples.jsonl
    go run ./bench/secrets-driver.go testdata/secrets/families/bl-random/files > /tmp/bl-random.jsonl
    python3 testdata/secrets/families/bl-examples/gen/halves.py heldout /tmp/bl-examples.jsonl /tmp/bl-random.jsonl

A true positive labeled on line 0 is found by a finding on any line of its
file, one on another line by a finding on its line; a negative file with
any finding is a false-positive file (as bench/secrets-score.go and
TestSecretsFamiliesCorpus score). Only counts are printed, so that the
held-out half can be scored without being looked at.
"""
import json
import os
import re
import sys

FAMILIES = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..")


def rows(part, kind):
    path = os.path.join(FAMILIES, part, kind + ".tsv")
    if not os.path.exists(path):
        return []
    out = []
    for line in open(path):
        if line.startswith("#") or not line.strip():
            continue
        f = line.rstrip("\n").split("\t")
        out.append((f[0], int(f[1]), re.search(r"/rules/([\w.-]+\.go)", f[3]).group(1)))
    return out


def main():
    if len(sys.argv) != 4 or sys.argv[1] not in ("dev", "heldout"):
        sys.exit("usage: halves.py dev|heldout BL_EXAMPLES.jsonl BL_RANDOM.jsonl")
    held = set(open(os.path.join(FAMILIES, "bl-examples", "HELDOUT")).read().split())
    want_held = sys.argv[1] == "heldout"
    tp = found = neg = fp_files = 0
    for part, findings in (("bl-examples", sys.argv[2]), ("bl-random", sys.argv[3])):
        lines = {}
        for line in open(findings):
            d = json.loads(line)
            lines.setdefault(d["file"], set()).add(d["line"])
        for f, n, rule_file in rows(part, "LABELS"):
            if (rule_file in held) != want_held:
                continue
            tp += 1
            if lines.get(f) and (n == 0 or n in lines[f]):
                found += 1
        for f, _, rule_file in rows(part, "NEGATIVES"):
            if (rule_file in held) != want_held:
                continue
            neg += 1
            fp_files += bool(lines.get(f))
    print("%s: recall %.3f (%d/%d), false-positive files %d of %d" % (sys.argv[1], found / max(tp, 1), found, tp, fp_files, neg))


main()
