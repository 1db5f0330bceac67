package filekind

import (
	"bytes"
	"path"
	"strings"
)

// Block is a fenced code block of a Markdown file: its lines after the
// opening fence up to the closing one, data[Start:End], and the name its
// format is judged by, from the fence's info string.
type Block struct {
	Start, End int
	Format     string
}

// Markdown reports a Markdown document.
func Markdown(rel string) bool {
	switch strings.ToLower(path.Ext(rel)) {
	case ".md", ".markdown", ".mdown", ".mkd":
		return true
	}
	return false
}

// fenceFormats names the file a fence's language would be written in,
// for the languages whose values are read otherwise than as code. Any
// other info string names its own extension (```go is main.go, ```tsx
// is code), and a fence of no language, or of plain text, is plain text:
// what it shows is a file or a terminal's lines as written.
var fenceFormats = map[string]string{
	"": "block.txt", "text": "block.txt", "txt": "block.txt", "plaintext": "block.txt", "plain": "block.txt", "none": "block.txt",
	"sh": "block.sh", "bash": "block.sh", "shell": "block.sh", "zsh": "block.sh", "console": "block.sh",
	"shell-session": "block.sh", "shellsession": "block.sh", "terminal": "block.sh", "ksh": "block.sh",
	"env": ".env", "dotenv": ".env",
	"yaml": "block.yaml", "yml": "block.yaml", "toml": "block.toml", "ini": "block.ini", "cfg": "block.cfg",
	"conf": "block.conf", "properties": "block.properties", "java-properties": "block.properties",
	"json": "block.json", "jsonc": "block.json", "json5": "block.json", "xml": "block.xml",
	"hcl": "block.hcl", "terraform": "block.tf", "tf": "block.tf",
	"dockerfile": "Dockerfile", "docker": "Dockerfile", "bat": "block.bat", "batch": "block.bat", "cmd": "block.bat",
}

// MarkdownBlocks returns the fenced code blocks of a Markdown document
// (``` or ~~~, as CommonMark writes them, indented or not, since lists
// indent theirs), in order. A code block shows a file or a terminal in
// its own language: `API_KEY=...` in a ```sh block is what the reader
// types, where the same words in prose are prose. A block left open runs
// to the end of the document.
func MarkdownBlocks(data []byte) []Block {
	var blocks []Block
	var open *Block
	var fence []byte
	for pos := 0; pos < len(data); {
		end := len(data)
		next := end
		if i := bytes.IndexByte(data[pos:], '\n'); i >= 0 {
			end, next = pos+i, pos+i+1
		}
		line := bytes.TrimRight(data[pos:end], "\r")
		trimmed := bytes.TrimLeft(line, " \t>")
		if open == nil {
			if f := fenceRun(trimmed); f != nil {
				info := strings.ToLower(string(bytes.TrimSpace(trimmed[len(f):])))
				if f[0] == '~' || !strings.Contains(info, "`") {
					fence = f
					blocks = append(blocks, Block{Start: next, Format: fenceFormat(info)})
					open = &blocks[len(blocks)-1]
				}
			}
		} else if f := fenceRun(trimmed); f != nil && f[0] == fence[0] && len(f) >= len(fence) && len(bytes.TrimSpace(trimmed[len(f):])) == 0 {
			open.End = pos
			open = nil
		}
		pos = next
	}
	if open != nil {
		open.End = len(data)
	}
	return blocks
}

// fenceRun returns the run of three or more backticks or tildes that
// opens line, or nil.
func fenceRun(line []byte) []byte {
	if len(line) < 3 || line[0] != '`' && line[0] != '~' {
		return nil
	}
	n := 0
	for n < len(line) && line[n] == line[0] {
		n++
	}
	if n < 3 {
		return nil
	}
	return line[:n]
}

// fenceFormat maps an info string (its first word; "{.yaml}" and
// "yaml title=x" name yaml) to a format name.
func fenceFormat(info string) string {
	info = strings.Trim(info, "{}.")
	if i := strings.IndexAny(info, " \t,{"); i >= 0 {
		info = info[:i]
	}
	if f, ok := fenceFormats[info]; ok {
		return f
	}
	return "block." + info
}
