// Package pdf prints the HTML report to PDF with a headless Chromium,
// offline and in a private directory.
package pdf

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"scand/scan/proc"
)

// timeout bounds one Chromium run; a report that takes longer to
// print is a renderer problem, not a big report.
const timeout = 60 * time.Second

// Programs are tried in order when SVC_PDF_RENDERER is not set.
func Programs() []string { return []string{"chromium", "chromium-browser", "google-chrome"} }

// Serve sends a rendered PDF and removes it; an error comes after the
// response started.
func Serve(w http.ResponseWriter, pdf *os.File) error {
	defer os.RemoveAll(filepath.Dir(pdf.Name()))
	defer pdf.Close()
	info, err := pdf.Stat()
	if err != nil {
		return err
	}
	w.Header().Set("Content-Length", strconv.FormatInt(info.Size(), 10))
	w.WriteHeader(http.StatusOK)
	_, err = io.Copy(w, pdf)
	return err
}

// UnavailableError means no renderer could be started.
type UnavailableError struct{ renderer string }

func (e *UnavailableError) Error() string {
	if e.renderer != "" {
		return "PDF rendering is not available: SVC_PDF_RENDERER=" + e.renderer +
			" was not found; point it at a Chromium or Chrome binary, or unset it and install Chromium (apt-get install chromium)"
	}
	return "PDF rendering needs a headless Chromium, which is not installed: " +
		"apt-get install chromium (or set SVC_PDF_RENDERER to a Chromium or Chrome binary); format=html is a printable alternative"
}

// Render prints page with headless Chromium through the runner (renderer:
// SVC_PDF_RENDERER, else the first of Programs on PATH).
// The page is written to a private temp dir that also holds Chromium's
// profile and home, so nothing of the service user's profile is read or
// written. Chromium runs with every background-networking feature off and
// a resolver that maps every host to "not found": the page needs no
// network, and a renderer that cannot reach one cannot leak to one.
func Render(ctx context.Context, runner *proc.Runner, renderer string, page func(io.Writer) error) (pdf *os.File, err error) {
	if runner == nil {
		return nil, &UnavailableError{renderer}
	}
	dir, err := os.MkdirTemp("", "scand-report-")
	if err != nil {
		return nil, err
	}
	defer func() {
		if err != nil {
			os.RemoveAll(dir)
		}
	}()
	pagePath := filepath.Join(dir, "report.html")
	if err := writeFileStream(pagePath, page); err != nil {
		return nil, err
	}
	outPath := filepath.Join(dir, "r.pdf")
	args := chromiumArgs(dir, pagePath, outPath)
	programs := Programs()
	if renderer != "" {
		programs = []string{renderer}
	}
	for _, prog := range programs {
		res, err := runner.Run(ctx, proc.Cmd{
			Program: prog, Args: args, Dir: dir, Timeout: timeout,
			Env: []string{"HOME=" + dir, "XDG_CONFIG_HOME=" + dir, "XDG_CACHE_HOME=" + dir},
		})
		if errors.Is(err, proc.ErrNotInstalled) {
			continue
		}
		if err != nil {
			return nil, fmt.Errorf("pdf renderer %s: %w (stderr tail: %s)", prog, err, OutputTail(res.Stderr, 500))
		}
		f, openErr := os.Open(outPath)
		magic := make([]byte, 5)
		if openErr == nil {
			_, openErr = io.ReadFull(f, magic)
		}
		if openErr != nil || string(magic) != "%PDF-" {
			if f != nil {
				f.Close()
			}
			return nil, fmt.Errorf("pdf renderer %s exited %d without writing a PDF (stderr tail: %s)", prog, res.ExitCode, OutputTail(res.Stderr, 500))
		}
		if _, err := f.Seek(0, io.SeekStart); err != nil {
			f.Close()
			return nil, err
		}
		return f, nil
	}
	return nil, &UnavailableError{renderer}
}

// writeFileStream writes a private file through a buffer.
func writeFileStream(path string, write func(io.Writer) error) error {
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
	if err != nil {
		return err
	}
	bw := bufio.NewWriterSize(f, 64<<10)
	if err := write(bw); err != nil {
		f.Close()
		return err
	}
	if err := bw.Flush(); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}

// chromiumArgs are Chromium's flags for one offline print. Both header
// and footer flags are given: --no-pdf-header-footer is the current name,
// --print-to-pdf-no-header the one older Chromium releases understand; each
// ignores the other.
func chromiumArgs(dir, pagePath, outPath string) []string {
	return []string{
		"--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
		"--disable-background-networking", "--disable-component-update", "--disable-sync",
		"--disable-extensions", "--disable-default-apps", "--disable-breakpad", "--disable-dev-shm-usage",
		"--host-resolver-rules=MAP * ~NOTFOUND",
		"--user-data-dir=" + filepath.Join(dir, "profile"),
		"--no-pdf-header-footer", "--print-to-pdf-no-header",
		"--print-to-pdf=" + outPath,
		(&url.URL{Scheme: "file", Path: pagePath}).String(),
	}
}

// OutputTail returns at most n bytes from the end of a process's
// output, starting on a character boundary, with invalid bytes replaced so
// the result is valid UTF-8 and still within n.
func OutputTail(b []byte, n int) string {
	if len(b) > n {
		b = b[len(b)-n:]
		for len(b) > 0 && !utf8.RuneStart(b[0]) {
			b = b[1:]
		}
	}
	return strings.ToValidUTF8(string(b), "?")
}
