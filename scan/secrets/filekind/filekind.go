// Package filekind says how values are written in a file, judged by its
// name and, where the name says nothing, its first bytes: literals
// unquoted (.env, INI, YAML, plain text), quoted in source code, or
// natural language (translation catalogues). The secrets scanner's generic
// rules read a value by these answers.
package filekind

import (
	"bytes"
	"path"
	"strings"

	"scand/scan/secrets/rulebook"
)

// Shell reports shell scripts and profiles, where an unquoted
// password after NAME= is a literal (PGPASSWORD=... psql).
func Shell(rel string) bool {
	base := strings.ToLower(path.Base(rel))
	return rulebook.ShellFiles[base] || rulebook.ShellFiles[path.Ext(base)]
}

// Dotenv reports a dotenv file (.env, .env.local, prod.env):
// every value there is a literal, variables being written $VAR.
func Dotenv(rel string) bool {
	base := strings.ToLower(path.Base(rel))
	return base == ".env" || strings.HasPrefix(base, ".env.") || strings.HasSuffix(base, ".env")
}

// Config reports whether unquoted values are literal values
// in this file (KEY=value, key: value), as they are in .env, INI, YAML,
// TOML and properties files but not in source code.
func Config(rel string) bool {
	if Dotenv(rel) {
		return true
	}
	base := strings.ToLower(path.Base(rel))
	switch base {
	case ".npmrc", ".pypirc", ".netrc", "_netrc", ".git-credentials", "credentials", ".s3cfg", ".pgpass", ".my.cnf":
		return true
	}
	if Dockerfile(rel) {
		return true // ENV and ARG take unquoted values (ENV API_TOKEN=...)
	}
	switch path.Ext(base) {
	case ".ini", ".cfg", ".conf", ".cnf", ".properties", ".yaml", ".yml", ".toml":
		return true
	case ".bat", ".cmd":
		return true // set NAME=value: a batch file's variables are written %NAME%
	}
	return PlainText(rel)
}

// PlainText reports a file of no language (notes.txt, app.log, a file
// named for no format: FormatName): what follows "name: " there is the
// value as written, as in a configuration file, since nothing in the file
// could be a variable. Markdown is judged apart (MarkdownBlocks): it is
// documentation, whose samples the secrets scanner judges as such.
func PlainText(rel string) bool {
	return strings.EqualFold(path.Ext(rel), ".txt") || strings.EqualFold(path.Ext(rel), ".log")
}

// copySuffixes mark a copy kept beside the file it copies
// (config.yaml.example, .npmrc.bak) or a template that renders it
// (app.ini.j2, database.yml.erb, setup.cfg.in): it is written in that
// file's format, its template references being placeholders.
var copySuffixes = map[string]bool{".example": true, ".sample": true, ".template": true, ".tmpl": true, ".tpl": true,
	".dist": true, ".default": true, ".defaults": true, ".orig": true, ".bak": true, ".old": true, ".save": true, ".backup": true,
	".j2": true, ".jinja": true, ".jinja2": true, ".erb": true, ".in": true, ".gotmpl": true}

// codeFileNames are source files named without an extension, by the
// tool that reads them (Ruby's Gemfile, Groovy's Jenkinsfile, Starlark's
// BUILD): their unquoted words are code.
var codeFileNames = map[string]bool{"jenkinsfile": true, "vagrantfile": true, "gemfile": true, "rakefile": true,
	"podfile": true, "fastfile": true, "appfile": true, "brewfile": true, "guardfile": true, "capfile": true,
	"berksfile": true, "dangerfile": true, "snakefile": true, "tiltfile": true, "build": true, "workspace": true,
	"sconstruct": true, "sconscript": true}

// FormatName returns the name a file's format is judged by: the name it
// would have if it were named for its format. A copy kept beside a file
// (config.yaml.example) is the file it copies; a file named for no format
// (notes, example-3, Makefile) is plain text unless its first line names
// an interpreter (a shell script is a shell script however named); a
// .json file that does not open as JSON (an INI saved under that name) is
// plain text. Attackers name scanned files, and the outside sets name
// examples as they like: a name that says nothing must not make a file's
// literals code. data may be a fragment (a commit's added lines); only a
// fragment that starts the file carries the interpreter line.
func FormatName(rel string, data []byte) string {
	name := rel
	for {
		ext := strings.ToLower(path.Ext(name))
		if !copySuffixes[ext] || len(path.Base(name)) == len(ext) {
			break
		}
		name = name[:len(name)-len(ext)]
	}
	base := strings.ToLower(path.Base(name))
	switch ext := path.Ext(base); {
	case ext == "" && !codeFileNames[base] && !Config(name) && !Shell(name):
		if bytes.HasPrefix(data, []byte("#!")) {
			return name + interpreterExt(data)
		}
		return name + ".txt"
	case ext == ".json" && !opensAsJSON(data):
		return name + ".txt"
	}
	return name
}

// interpreterExt maps a script's #! line to its language's extension:
// ".sh" for the shells, else ".script", which no format claims (code).
func interpreterExt(data []byte) string {
	line, _, _ := bytes.Cut(data, []byte("\n"))
	fields := bytes.Fields(line[2:])
	if len(fields) == 0 {
		return ".script"
	}
	interp := path.Base(string(fields[0]))
	if interp == "env" {
		// env's own flags and NAME=value pairs come before the
		// interpreter (#!/usr/bin/env -S bash -e).
		interp = ""
		for _, f := range fields[1:] {
			if f[0] != '-' && !bytes.Contains(f, []byte("=")) {
				interp = string(f)
				break
			}
		}
	}
	switch interp {
	case "sh", "bash", "zsh", "ksh", "dash", "ash", "mksh":
		return ".sh"
	}
	return ".script"
}

// opensAsJSON reports content that a JSON reader could start on: a
// value's first byte after blanks, or a comment (JSONC). A letter, or a
// [ that a name follows, opens a properties or INI file.
func opensAsJSON(data []byte) bool {
	data = bytes.TrimLeft(data, " \t\r\n\ufeff")
	if len(data) == 0 {
		return true
	}
	switch c := data[0]; {
	case c == '[':
		rest := bytes.TrimLeft(data[1:], " \t")
		return len(rest) == 0 || !isLetter(rest[0])
	case isLetter(c):
		return bytes.HasPrefix(data, []byte("true")) || bytes.HasPrefix(data, []byte("false")) || bytes.HasPrefix(data, []byte("null"))
	}
	return true
}

func isLetter(c byte) bool { return 'a' <= c|0x20 && c|0x20 <= 'z' }

// Dockerfile reports a container build file: Dockerfile,
// Containerfile, Dockerfile.prod, app.dockerfile.
func Dockerfile(rel string) bool {
	base := strings.ToLower(path.Base(rel))
	return base == "dockerfile" || base == "containerfile" || strings.HasSuffix(base, ".dockerfile") || strings.HasPrefix(base, "dockerfile.")
}

// IaC reports infrastructure-as-code files, whose quoted
// values are what gets deployed (password = "..." in Terraform).
func IaC(rel string) bool {
	switch path.Ext(strings.ToLower(rel)) {
	case ".tf", ".tfvars", ".hcl", ".bicep", ".pkr", ".nomad":
		return true
	}
	return strings.HasSuffix(strings.ToLower(rel), ".tf.json")
}

// Translation reports i18n catalogues: gettext .po/.pot,
// XLIFF, Apple .strings, Flutter .arb, Java messages_<locale>.properties,
// and JSON/YAML/properties files named after a locale (de_DE.json,
// pt-BR.yml) or kept in a translations directory (assets/i18n/, locales/).
// Their values are natural language, so the generic assignment rules never
// read them; the vendor rules still do (a real token is a token anywhere).
func Translation(rel string) bool {
	lower := strings.ToLower(rel)
	base := path.Base(lower)
	ext := path.Ext(base)
	switch ext {
	case ".po", ".pot", ".xliff", ".xlf", ".strings", ".arb":
		return true
	case ".json", ".yaml", ".yml", ".properties", ".toml", ".ini":
	default:
		return false
	}
	stem := strings.TrimSuffix(base, ext)
	if ext == ".properties" && (stem == "messages" || strings.HasPrefix(stem, "messages_")) {
		return true
	}
	if localeName(stem) {
		return true
	}
	for dir := path.Dir(lower); dir != "." && dir != "/" && dir != ""; dir = path.Dir(dir) {
		if rulebook.TranslationDirs[path.Base(dir)] {
			return true
		}
	}
	return false
}

// localeName matches en, de_DE, pt-BR, zh-Hant-TW, sr_Latn.
func localeName(s string) bool {
	parts := strings.FieldsFunc(s, func(r rune) bool { return r == '_' || r == '-' })
	if len(parts) == 0 || len(parts) > 3 || len(s) != len(strings.Join(parts, "_")) || !rulebook.LanguageCodes[parts[0]] {
		return false
	}
	// The rest are a script (hant, latn) or a region (us, br, 419).
	for _, p := range parts[1:] {
		if len(p) < 2 || len(p) > 4 {
			return false
		}
		for _, r := range p {
			if (r < 'a' || r > 'z') && (r < '0' || r > '9') {
				return false
			}
		}
	}
	return true
}

// JSON reports a JSON document, whose string values are
// literals with no interpolation: a password there is what is deployed,
// however weak (appsettings.json's "Password": "super$ecret").
func JSON(rel string) bool {
	return strings.EqualFold(path.Ext(rel), ".json")
}

// BareDirectives reports configuration files whose lines are
// directives, a name, blanks and the value (.conf, .cnf, .cfg), rather than
// name=value pairs alone.
func BareDirectives(rel string) bool {
	switch strings.ToLower(path.Ext(rel)) {
	case ".conf", ".cnf", ".cfg":
		return true
	}
	return false
}
