#!/usr/bin/env python3
"""Writes two parts of the families corpus from transcribed Kingfisher rule files
(and, since round 28, Praetorian Titus' rule files, which have the same shape).

Usage, from the repository root:
  python3 testdata/secrets/families/kf-source/mk.py RULESDIR PART

RULESDIR holds the transcriptions (kf-source/rules1 or rules2, Titus' rules3); PART-dev gets
the files at even indexes in C order, PART-heldout the odd ones, each a
gen/corpus.txt for testdata/secrets/heldout/gen. Context and labels are
decided by the rule's name and the example's syntax, never by what a scanner
reports; kf-source/SOURCE says how.
"""
import math, os, re, sys, yaml, glob, collections

REPO = '.'
RULES = sys.argv[1]
PART = sys.argv[2]

# Rules that find no credential, by the last words of their name (parentheses
# dropped): identifiers, hosts, URLs, addresses, public keys, indicators.
NONCRED = re.compile(r'(?i)(\bid|organi[sz]ation|domain|host|url|endpoint|name|username|email|'
                     r'recipient|public key|indicator|card number)$')
# A token shared with another rule's examples makes a negative example that
# rule's credential only when it is a value (letters and digits mixed), not
# a name or call both files write (AMPLITUDE_API_KEY, psycopg2.connect):
# digits and both cases, or 24 characters or more with digits; round 28,
# found on Titus' files, whose negatives reuse their examples' names.
VALUEISH = re.compile(r'^(?=.*[0-9])(?=.*[a-z])(?=.*[A-Z])|^(?=.*[0-9])(?=.*[A-Za-z]).{24,}$')
# Public by design: client-side tokens and publishable keys; encrypted values.
PUBLIC = re.compile(r'(?i)((?<![/\w])client (api )?(token|key)\b|client-side|publishable|'
                    r'public access token|encrypted|password hash)')
# ...unless the name says the secret is in it or is the credential's half
# that vendors ship as one (a key in a URL, a signed or webhook URL, an
# access key ID, a secret ID, a reporter ID).
CRED_IN = re.compile(r'(?i)(\bin (a |the )?url|\bsas url|\bsigned url|\bwebhook url|access key id|'
                     r'access id|secret id|reporter id)$')
# A negative example whose note says the rule should have matched it.
SHOULD_MATCH = re.compile(r'(?i)fixme|would be nice|unfortunately|should match|xxx|todo')


def tokenset():
    toks = set()
    lines = set()
    for root, _, files in os.walk(os.path.join(REPO, 'testdata', 'secrets')):
        if '/kf-source' in root or '/%s-' % PART in root + '/':
            continue
        for f in files:
            p = os.path.join(root, f)
            try:
                t = open(p, encoding='utf-8', errors='replace').read()
            except OSError:
                continue
            toks.update(re.findall(r'[A-Za-z0-9]{20,}', t))
            for l in t.splitlines():
                l = l.strip()
                if len(l) >= 12:
                    lines.add(l)
    return toks, lines


def seen(text, toks, lines):
    for l in text.splitlines():
        if l.strip() in lines:
            return True
    return any(t in toks for t in re.findall(r'[A-Za-z0-9]{20,}', text))


def varname(rule_name):
    w = re.sub(r'\(.*?\)', '', rule_name)
    w = re.sub(r'[^A-Za-z0-9]+', '_', w).strip('_').upper()
    return w or 'SECRET'


def kind_of_line(l):
    s = l.strip()
    if re.match(r'(?i)^(curl|wget|http)\s', s) or s.startswith('export ') or s.startswith('$ '):
        return 'sh'
    if re.match(r'^[A-Za-z_][A-Za-z0-9_.]*\s*=\s*\S', s) and not re.search(r'[;(){}]', s):
        return 'env'
    if re.match(r'^-?\s*[A-Za-z_"\'][\w."\'-]*\s*:\s+\S', s) and not re.search(r'[;(){}]', s):
        return 'yaml'
    if re.search(r'[;(){}]|\bconst\b|\bvar\b|\blet\b', s):
        return 'js'
    return 'txt'


def kind_of_block(t):
    s = t.lstrip()
    if s.startswith('-----BEGIN'):
        return 'pem'
    if s.startswith('{') or s.startswith('['):
        return 'json'
    if re.search(r'(?m)^\s*(curl|export)\s', t):
        return 'sh'
    if re.search(r'(?m)^\s*<\?xml|^\s*<\w', t):
        return 'xml'
    if re.search(r'(?m)^[A-Za-z_][\w.]*\s*=', t) and not re.search(r'[;{}]', t):
        return 'env'
    if re.search(r'(?m)^\s*[\w"\'-]+:\s', t):
        return 'yaml'
    return 'txt'


def entropy(s):
    c = collections.Counter(s)
    return -sum(v / len(s) * math.log2(v / len(s)) for v in c.values())


# A line of a multi-line example that names an identifier, not a secret.
IDKEY = re.compile(r'(?i)^\s*(#\s*|//\s*)?["\']?(id|app_?id|name|client_?id|tenant(_?id)?|user(_?name)?|'
                   r'host(_?name)?|url|endpoint|region|account(_?name)?|organi[sz]ation(_?id)?|'
                   r'project(_?id)?|type|created|public key)["\']?\s*[:=]')
UUID = re.compile(r'^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$')


def secret_lines(block):
    """Lines of a multi-line example that hold a random-looking value; else
    the line with the longest letters-and-digits run of 16 or more; else the
    last line that names a password, secret, token or key."""
    out = []
    ls = block.split('\n')
    # A PEM block is one secret, reported where it begins.
    pem = [i for i, l in enumerate(ls) if l.lstrip().startswith('-----BEGIN ')]
    if pem:
        return pem
    for i, l in enumerate(ls):
        if IDKEY.search(l):
            continue
        for t in re.findall(r'[A-Za-z0-9+/=_.~-]{16,}', l):
            if UUID.match(t):
                continue
            if re.search(r'[0-9]', t) and re.search(r'[A-Za-z]', t) and entropy(t) >= 3.2:
                out.append(i)
                break
    if not out:
        best, bl = -1, 15
        for i, l in enumerate(ls):
            if IDKEY.search(l):
                continue
            for t in re.findall(r'[A-Za-z0-9]{16,}', l):
                if len(t) > bl:
                    best, bl = i, len(t)
        if best >= 0:
            out.append(best)
    if not out:
        # A short password: the last line that names one.
        for i, l in enumerate(ls):
            if not IDKEY.search(l) and re.search(r'(?i)pass|secret|token|key|pwd', l):
                best = i
        if best >= 0:
            out.append(best)
    return out


def main():
    toks, lines = tokenset()
    files = sorted(glob.glob(os.path.join(RULES, '*.yml')), key=lambda p: os.path.basename(p).encode())
    parts = {PART + '-dev': [], PART + '-heldout': []}
    extoks = set()
    for p in files:
        for r in yaml.safe_load(open(p)).get('rules') or []:
            for e in r.get('examples') or []:
                extoks.update(re.findall(r'[A-Za-z0-9_.~+/-]{16,}', str(e)))
    stats = collections.Counter()
    global TITUS
    TITUS = any('praetorian-inc/titus' in str(yaml.safe_load(open(p)).get('source', '')) for p in files[:1])
    for idx, p in enumerate(files):
        part = PART + ('-dev' if idx % 2 == 0 else '-heldout')
        d = yaml.safe_load(open(p))
        base = os.path.basename(p)[:-4]
        src = d['source']
        out = parts[part]
        for r in d.get('rules') or []:
            rid = str(r['id'])
            name = str(r.get('name', ''))
            fam = ('kf.' if 'kingfisher' in src else PART + '.') + rid.replace('kingfisher.', '')
            bare_name = re.sub(r'\s*\(.*?\)', '', name).strip()
            noncred = (bool(NONCRED.search(bare_name)) and not CRED_IN.search(bare_name)) or bool(PUBLIC.search(name))
            note = str(r.get('notes') or '')
            neg_is_pos = bool(SHOULD_MATCH.search(note))
            items = [(e, 'ex') for e in (r.get('examples') or [])] + \
                    [(e, 'neg') for e in (r.get('negative_examples') or [])]
            single = collections.defaultdict(list)  # (label?, kind) -> lines
            nblock = 0
            for e, what in items:
                e = str(e).rstrip('\n')
                if not e.strip():
                    continue
                if seen(e, toks, lines):
                    stats['dup'] += 1
                    continue
                other = what == 'neg' and any(t in extoks and VALUEISH.search(t) for t in re.findall(r'[A-Za-z0-9_.~+/-]{16,}', e))
                positive = (what == 'ex' and not noncred) or (what == 'neg' and (neg_is_pos or other) and not noncred)
                why = 'examples' if what == 'ex' else 'negative_examples'
                if noncred and what == 'ex':
                    why += ', an identifier, not a credential: negative'
                if what == 'neg' and neg_is_pos:
                    why += ', which the file says should match: labeled'
                elif other:
                    why += ", another rule's example: labeled"
                srcline = '@@source %s (%s %s)' % (src, rid, why)
                if '\n' in e:
                    nblock += 1
                    k = kind_of_block(e)
                    path = '%s/%s-%s%d.%s' % (base, rid.replace('kingfisher.', ''), what, nblock, k)
                    out.append('@@file ' + path)
                    out.append(srcline)
                    marks = secret_lines(e) if positive else None
                    for i, l in enumerate(e.split('\n')):
                        if positive and i in marks:
                            out.append('!%s %s' % (fam, l))
                        elif not positive and what == 'neg' and i in secret_lines(e):
                            out.append('~kf-negative %s' % l)
                        else:
                            out.append('|' + l)
                    out.append('')
                    stats['pos' if positive else 'neg'] += 1
                    continue
                s = e.strip()
                bare = not re.search(r'[\s=:"\'(),;<>]', s)
                if bare and what == 'ex':
                    line, k = '%s=%s' % (varname(name), s), 'env'
                else:
                    line, k = e, kind_of_line(e)
                single[(positive, what, k)].append((line, srcline))
                stats['pos' if positive else 'neg'] += 1
            for (positive, what, k), ls in single.items():
                tag = ('pos' if what == 'ex' else 'negpos') if positive else ('id' if what == 'ex' else 'neg')
                path = '%s/%s-%s.%s' % (base, rid.replace('kingfisher.', ''), tag, k)
                if k == 'sh':
                    path = path[:-3] + '.sh'
                out.append('@@file ' + path)
                last = None
                for line, srcline in ls:
                    if srcline != last:
                        out.append(srcline)
                        last = srcline
                    if positive:
                        out.append('!%s %s' % (fam, line))
                    elif what == 'neg':
                        out.append('~kf-negative %s' % line)
                    else:
                        out.append('~kf-identifier %s' % line)
                out.append('')
    for part, out in parts.items():
        d = os.path.join(REPO, 'testdata', 'secrets', 'families', part, 'gen')
        os.makedirs(d, exist_ok=True)
        if TITUS:
            what = ['@@# Part %s of the families corpus (issue 28, round 28): the examples of Praetorian\'s' % part,
                    '@@# Titus rules (praetorian-inc/titus pkg/rule/rules, the tool']
        else:
            what = ['@@# Part %s of the families corpus (issue 28, round 27): the examples of MongoDB' % part,
                    '@@# Kingfisher\'s rules (mongodb/kingfisher crates/kingfisher-rules/data/rules, the tool']
        hdr = what + [
               '@@# library\'s copy, transcribed in %s; the files at %s indexes in C order).' %
               (RULES.rstrip('/'), 'even' if part.endswith('-dev') else 'odd'),
               '@@# Written by kf-source/mk.py before any scanner ran on them; kf-source/SOURCE says',
               '@@# how. Markers as in testdata/secrets/heldout/gen/corpus.txt.', '']
        open(os.path.join(d, 'corpus.txt'), 'w').write('\n'.join(hdr + out) + '\n')
    print(dict(stats), file=sys.stderr)


main()
