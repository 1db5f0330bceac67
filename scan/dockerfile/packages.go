package dockerfile

import (
	"fmt"
	"strings"
)

// Package-manager rules (DF028-DF036): which arguments are packages, and
// when a package is pinned. The rule table is in dockerfile.go.

// Options that take a value, per package manager: the value is not a
// package.
var (
	dockerfileAptValueFlags = map[string]bool{"-o": true, "-c": true, "-t": true, "--target-release": true, "--option": true, "--config-file": true}
	dockerfileApkValueFlags = map[string]bool{"-X": true, "--repository": true, "-t": true, "--virtual": true, "-p": true, "--root": true,
		"--arch": true, "--cache-dir": true, "--keys-dir": true, "--repositories-file": true}
	dockerfileGemValueFlags = map[string]bool{"-v": true, "--version": true, "-i": true, "--install-dir": true, "-n": true, "--bindir": true,
		"--source": true, "-s": true, "-P": true, "--trust-policy": true, "--platform": true, "-g": true, "--file": true}
	dockerfileNPMValueFlags = map[string]bool{"--prefix": true, "--registry": true, "--cache": true, "--tag": true, "-w": true, "--workspace": true}
	dockerfilePipValueFlags = map[string]bool{"-e": true, "--editable": true, "-i": true, "--index-url": true, "--extra-index-url": true,
		"-f": true, "--find-links": true, "-t": true, "--target": true, "--prefix": true, "--root": true, "--platform": true,
		"--python-version": true, "--implementation": true, "--abi": true, "--src": true, "--upgrade-strategy": true, "--progress-bar": true,
		"--trusted-host": true, "--cert": true, "--client-cert": true, "--cache-dir": true, "--log": true, "--proxy": true,
		"--retries": true, "--timeout": true, "--exists-action": true, "--only-binary": true, "--no-binary": true}
	dockerfileRPMValueFlags = map[string]bool{"--setopt": true, "--enablerepo": true, "--disablerepo": true, "--repo": true,
		"--releasever": true, "--installroot": true, "-c": true, "--config": true, "-x": true, "--exclude": true, "--repofrompath": true}
)

// dockerfilePackageArgs returns the arguments after sub that name
// packages: not options (nor the values of the options in valueFlags), not
// variables, not redirections.
func dockerfilePackageArgs(c dockerfileShellCmd, sub dockerfileWord, valueFlags map[string]bool) []dockerfileWord {
	args := c.args()
	start := -1
	for i, w := range args {
		if w == sub {
			start = i + 1
			break
		}
	}
	if start < 0 {
		return nil
	}
	var out []dockerfileWord
	for i := start; i < len(args); i++ {
		t := args[i].text
		switch {
		case t == ">" || t == ">>" || t == "<" || t == "2>" || t == "&>" || t == "2>>":
			i++ // and its target
		case strings.HasPrefix(t, ">") || strings.HasPrefix(t, "2>") || strings.HasPrefix(t, "<") || strings.HasPrefix(t, "&>"):
		case strings.HasPrefix(t, "-"):
			if valueFlags[t] {
				i++
			}
		case strings.HasPrefix(t, "$") || strings.Contains(t, "${") || strings.Contains(t, "$("):
		case t == "":
		default:
			out = append(out, args[i])
		}
	}
	return out
}

// unpinned raises rule id once for the command when any of its packages
// is not pinned, listing them in metadata.packages.
func (a *dockerfileAnalysis) unpinned(id string, prog dockerfileWord, pkgs []dockerfileWord, pinned func(string) bool, meta map[string]any) {
	var names []string
	for _, p := range pkgs {
		if !pinned(p.text) {
			names = append(names, p.text)
		}
	}
	if len(names) == 0 {
		return
	}
	meta["packages"] = names
	a.add(id, prog.line, fmt.Sprintf("%s installs %s without a pinned version.", dockerfileBase(prog.text), strings.Join(names, ", ")), "", meta)
}

// dockerfileNPMInstalls reports npm install/add with package arguments.
func dockerfileNPMInstalls(c dockerfileShellCmd) bool {
	sub, ok := c.subcommand()
	if !ok {
		return false
	}
	switch sub.text {
	case "install", "i", "add", "in", "isntall":
		return true
	}
	return false
}

// dockerfilePipPackages returns the packages of a pip install (also
// python -m pip install).
func dockerfilePipPackages(c dockerfileShellCmd) []dockerfileWord {
	args := c.args()
	for i := range args {
		if args[i].text == "install" {
			return dockerfilePackageArgs(dockerfileShellCmd{words: append([]dockerfileWord{{text: "pip"}}, args...)}, args[i], dockerfilePipValueFlags)
		}
	}
	return nil
}

// dockerfileSetsPipefail reports `set -o pipefail` in any of its spellings
// (set -eo pipefail, set -euxo pipefail).
func dockerfileSetsPipefail(c dockerfileShellCmd) bool {
	args := c.args()
	for i := 1; i < len(args); i++ {
		if args[i].text == "pipefail" && strings.HasPrefix(args[i-1].text, "-") && strings.Contains(args[i-1].text, "o") {
			return true
		}
	}
	return false
}

// stageShellPipefail reports whether the SHELL in effect for instruction
// upto (in its stage or a stage it is built from) passes -o pipefail.
func (a *dockerfileAnalysis) stageShellPipefail(st *dockerfileStage, upto *dockerfileInstruction) bool {
	for s := st; s != nil; s = s.parent {
		var shell *dockerfileInstruction
		for _, in := range s.body {
			if in == upto {
				break
			}
			if in.keyword == "SHELL" {
				shell = in
			}
		}
		if shell != nil {
			for i := 1; i < len(shell.exec); i++ {
				if shell.exec[i] == "pipefail" && strings.HasPrefix(shell.exec[i-1], "-") {
					return true
				}
			}
			return false
		}
	}
	return false
}

// stageShellIsPOSIX reports whether the stage's RUN scripts run in a POSIX
// shell (the RUN rules are only applied to such stages).
func (a *dockerfileAnalysis) stageShellIsPOSIX(st *dockerfileStage) bool { return st.posix }

// checkRPM applies DF035 and DF036 to a yum, dnf, microdnf or zypper
// command and returns the first install command of the RUN (for DF034).
func (a *dockerfileAnalysis) checkRPM(c dockerfileShellCmd, prog dockerfileWord, name string, first *dockerfileWord, meta func() map[string]any) *dockerfileWord {
	args := c.args()
	var sub dockerfileWord
	subAt := -1
	for i := 0; i < len(args); i++ {
		t := args[i].text
		if dockerfileRPMValueFlags[t] {
			i++
			continue
		}
		if !strings.HasPrefix(t, "-") {
			sub, subAt = args[i], i
			break
		}
	}
	if subAt < 0 {
		return first
	}
	install := sub.text == "install" || sub.text == "groupinstall" || sub.text == "localinstall" || (name == "zypper" && sub.text == "in")
	if !install {
		return first
	}
	if first == nil {
		w := prog
		first = &w
	}
	switch name {
	case "yum", "dnf":
		if !c.hasArg("-y", "--assumeyes") {
			a.add("DF035", prog.line, fmt.Sprintf("%s %s asks for confirmation.", name, sub.text), "", meta())
		}
	case "zypper":
		global := args[:subAt]
		after := args[subAt+1:]
		confirmed := false
		for _, w := range global {
			if w.text == "-n" || w.text == "--non-interactive" {
				confirmed = true
			}
		}
		for _, w := range after {
			if w.text == "-y" || w.text == "--no-confirm" {
				confirmed = true
			}
		}
		if !confirmed {
			a.add("DF035", prog.line, "zypper install asks for confirmation.", "", meta())
		}
	}
	if sub.text == "localinstall" {
		return first
	}
	a.unpinned("DF036", prog, dockerfilePackageArgs(c, sub, dockerfileRPMValueFlags), func(p string) bool {
		if strings.HasPrefix(p, "@") || strings.HasSuffix(p, ".rpm") || strings.Contains(p, "/") {
			return true // groups, local files, URLs, provides
		}
		if name == "zypper" {
			return strings.ContainsAny(p, "=<>")
		}
		// name-version[-release]: the last dash-separated part starts
		// with a digit (httpd-2.4.57, httpd-2.4.57-1.el9), unlike
		// java-17-openjdk or python3-pip.
		i := strings.LastIndexByte(p, '-')
		return strings.ContainsAny(p, "=<>") || i > 0 && i+1 < len(p) && p[i+1] >= '0' && p[i+1] <= '9'
	}, meta())
	return first
}
