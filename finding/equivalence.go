package finding

import (
	"slices"
	"strconv"
	"strings"
)

// The equivalence table says which rules of different scanners report the
// same problem, so that Dedup keeps one finding for it even when the
// scanners disagree on the CWE or the title (the built-in Dockerfile rules
// and KICS, a key found by both secrets and git-hygiene). Dedup consults it
// through EquivalenceKeys after its CWE/title merge; the merged scanners go
// to metadata also_reported_by as for any merge.
//
// Each class is a set of (scanner, rule) members and a scope:
//
//   - same line: the findings must be at the same file and line. A finding
//     whose metadata carries instruction_line (the built-in Dockerfile
//     rules: the line of the instruction the offending word is in) is
//     placed at that line, since KICS reports an instruction's first line.
//   - same file: whole-file findings (git-hygiene reports line 0) merge
//     with the finding of the same file, whatever its line.
//
// Rule "*" stands for every rule of the scanner; a rule ending in "*" for
// every rule with that prefix.
//
//	class                    scope      members
//	credential-file          same file  secrets:* = git-hygiene: private-key-file, ssh-private-key-file,
//	                                    keystore-file, cloud-credentials-file, package-registry-credentials,
//	                                    git-credentials-file, netrc-file, htpasswd-file, env-file
//	hardcoded-credential     same line  secrets:* = bandit: B105, B106, B107 = gosec: G101
//	dockerfile/<rule>        same line  dockerfile:DFnnn = kics:<query id> (table below)
var equivalenceClasses = []equivalenceClass{
	{name: "credential-file", sameFile: true, members: []ruleRef{
		{"secrets", "*"},
		{"git-hygiene", "private-key-file"}, {"git-hygiene", "ssh-private-key-file"}, {"git-hygiene", "keystore-file"},
		{"git-hygiene", "cloud-credentials-file"}, {"git-hygiene", "package-registry-credentials"},
		{"git-hygiene", "git-credentials-file"}, {"git-hygiene", "netrc-file"}, {"git-hygiene", "htpasswd-file"},
		{"git-hygiene", "env-file"},
	}},
	{name: "hardcoded-credential", members: []ruleRef{
		{"secrets", "*"}, {"bandit", "B105"}, {"bandit", "B106"}, {"bandit", "B107"}, {"gosec", "G101"},
	}},
}

// dockerfileKICS pairs each built-in Dockerfile rule with the KICS queries
// (by query id) that report the same problem.
var dockerfileKICS = map[string][]string{
	"DF001": {"f45ea400-6bbe-4501-9fc7-1c3d75c32067"},                                                                                 // Image Version Using 'latest'
	"DF002": {"9efb0b2d-89c9-41a3-91ca-dcc0aec911fd"},                                                                                 // Image Version Not Explicit
	"DF004": {"fd54f200-402c-4333-a5a4-36ef6709af2f"},                                                                                 // Missing User Instruction
	"DF005": {"67fd0c4a-68cf-46d7-8c41-bc9fba7e40ae"},                                                                                 // Last User Is 'root'
	"DF007": {"9513a694-aa0d-41d8-be61-3271e056f36b"},                                                                                 // Add Instead of Copy
	"DF010": {"7384dfb2-fcd1-4fbf-91cd-6c44c318c33c"},                                                                                 // APT-GET Not Avoiding Additional Packages
	"DF011": {"df746b39-6564-4fed-bf85-e9c44382303c"},                                                                                 // Apt Get Install Lists Were Not Deleted
	"DF013": {"8ada6e80-0ade-439e-b176-0b28f6bce35a"},                                                                                 // Run Using Sudo
	"DF014": {"5907595b-5b6d-4142-b173-dbb0e73fbff8"},                                                                                 // Exposing Port 22 (SSH)
	"DF016": {"b03a748a-542d-44f4-bb86-9199ab4fd2d5"},                                                                                 // Healthcheck Instruction Missing
	"DF018": {"ae9c56a6-3ed1-4ac0-9b54-31267f51151d"},                                                                                 // Apk Add Using Local Cache Path
	"DF019": {"f2f903fb-b977-461e-98d7-b3e2185c6118"},                                                                                 // Pip install Keeping Cached Packages
	"DF020": {"6b376af8-cfe8-49ab-a08d-f32de23661a4"},                                                                                 // WORKDIR Path Not Absolute
	"DF021": {"99614418-f82b-4852-a9ae-5051402b741c"},                                                                                 // MAINTAINER Instruction Being Used
	"DF022": {"41c195f4-fc31-4a5c-8a1b-90605538d49f", "6938958b-3f1a-451c-909b-baeee14bdc97"},                                         // Multiple CMD / ENTRYPOINT Instructions Listed
	"DF023": {"f4a6bcd3-e231-4acf-993c-aa027be50d2e"},                                                                                 // RUN Instruction Using 'cd' Instead of WORKDIR
	"DF027": {"b86987e1-6397-4619-81d5-8807f2387c79"},                                                                                 // Not Using JSON In CMD And ENTRYPOINT Arguments
	"DF028": {"965a08d7-ef86-4f14-8792-4a3b2098937e"},                                                                                 // Apt Get Install Pin Version Not Defined
	"DF029": {"d3499f6d-1651-41bb-a9a7-de925fea487b"},                                                                                 // Unpinned Package Version in Apk Add
	"DF030": {"02d9c71f-3ee8-4986-9c27-1a20d0d19bfc"},                                                                                 // Unpinned Package Version in Pip Install
	"DF031": {"e36d8880-3f78-4546-b9a1-12f0745ca0d5"},                                                                                 // NPM Install Command Without Pinned Version
	"DF032": {"22cd11f7-9c6c-4f6e-84c0-02058120b341"},                                                                                 // Gem Install Without Version
	"DF033": {"efbf148a-67e9-42d2-ac47-02fa1c0d0b22"},                                                                                 // Shell Running A Pipe Without Pipefail Flag
	"DF034": {"00481784-25aa-4a55-8633-3136dfcf4f37", "295acb63-9246-4b21-b441-7c1f1fb62dc0", "38300d1a-feb2-4a48-936a-d1ef1cd24313"}, // Yum/Dnf/Zypper clean missing
	"DF035": {"6e19193a-8753-436d-8a09-76dcff91bb03", "7ebd323c-31b7-4e5b-b26f-de5e9e477af8", "45e1fca5-f90e-465d-825f-c2cb63fa3944"}, // Yum/Dnf/Zypper manual input
	"DF036": {"6452c424-1d92-4deb-bb18-a03e95d579c4", "93d88cf7-f078-46a8-8ddc-178e03aeacf1", "562952e4-0348-4dea-9826-44f3a2c6117b"}, // Yum/Dnf/Zypper install without version
}

// MetaInstructionLine is the metadata key of a finding's statement line
// when its own line is inside a multi-line statement (see the class scopes
// above).
const MetaInstructionLine = "instruction_line"

type ruleRef struct{ scanner, rule string }

type equivalenceClass struct {
	name     string
	sameFile bool
	members  []ruleRef
}

func (r ruleRef) matches(scanner, rule string) bool {
	if r.scanner != scanner {
		return false
	}
	if p, ok := strings.CutSuffix(r.rule, "*"); ok {
		return strings.HasPrefix(rule, p)
	}
	return r.rule == rule
}

// EquivalenceKeys returns the keys under which f is the same problem as
// another scanner's finding: two findings of different scanners that share
// a key report one problem (see the table above). Most findings have none.
// The keys hold the class, the file and, for same-line classes, the line,
// so they can be compared as plain strings (in memory or in SQL).
func EquivalenceKeys(f Finding) []string {
	var keys []string
	line := f.Line
	if n, ok := metaInt(f.Metadata[MetaInstructionLine]); ok && n > 0 {
		line = n
	}
	lineKey := func(class string) string {
		return class + "\x00" + f.FilePath + "\x00" + strconv.Itoa(line)
	}
	for _, c := range equivalenceClasses {
		for _, m := range c.members {
			if !m.matches(f.Scanner, f.RuleID) {
				continue
			}
			if c.sameFile {
				keys = append(keys, c.name+"\x00"+f.FilePath)
			} else {
				keys = append(keys, lineKey(c.name))
			}
			break
		}
	}
	switch f.Scanner {
	case "dockerfile":
		if _, ok := dockerfileKICS[f.RuleID]; ok {
			keys = append(keys, lineKey("dockerfile/"+f.RuleID))
		}
	case "kics":
		for df, queries := range dockerfileKICS {
			for _, q := range queries {
				if q == f.RuleID {
					keys = append(keys, lineKey("dockerfile/"+df))
				}
			}
		}
		slices.Sort(keys) // map order must not decide which finding a key meets first
	}
	return keys
}

// Equivalent reports whether a and b, findings of different scanners,
// report the same problem according to the equivalence table.
func Equivalent(a, b Finding) bool {
	if a.Scanner == b.Scanner {
		return false
	}
	kb := EquivalenceKeys(b)
	for _, k := range EquivalenceKeys(a) {
		for _, l := range kb {
			if k == l {
				return true
			}
		}
	}
	return false
}

func metaInt(v any) (int, bool) {
	switch n := v.(type) {
	case int:
		return n, true
	case int64:
		return int(n), true
	case float64:
		return int(n), true
	}
	return 0, false
}
