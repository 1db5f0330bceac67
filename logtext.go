package main

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"log/slog"
	"strconv"
	"sync"
	"time"
	"unicode"
	"unicode/utf8"
)

// textHandler writes one line per record for people reading a terminal
// (SVC_LOG_FORMAT=text):
//
//	2026-01-02T03:04:05.000Z INFO  [scand] scand listening addr=127.0.0.1:8000
//
// Values that could break the line (spaces, quotes, '=', control
// characters, invalid UTF-8) are quoted Go-style, so a hostile request
// path or scanner message can never forge a second line.
type textHandler struct {
	mu     *sync.Mutex
	w      io.Writer
	level  slog.Leveler
	logger string // the "logger" attribute, shown in brackets
	attrs  []byte // attributes added by WithAttrs, already formatted
	group  string // "a.b." while inside WithGroup("a").WithGroup("b")
}

func newTextHandler(w io.Writer, level slog.Leveler) *textHandler {
	return &textHandler{mu: &sync.Mutex{}, w: w, level: level}
}

func (h *textHandler) Enabled(_ context.Context, l slog.Level) bool {
	return l >= h.level.Level()
}

func (h *textHandler) Handle(_ context.Context, r slog.Record) error {
	var b bytes.Buffer
	t := r.Time
	if t.IsZero() {
		t = time.Now()
	}
	b.WriteString(t.UTC().Format("2006-01-02T15:04:05.000Z"))
	b.WriteByte(' ')
	fmt.Fprintf(&b, "%-5s", levelName(r.Level))
	if h.logger != "" {
		b.WriteString(" [")
		b.WriteString(quoteIfNeeded(h.logger))
		b.WriteByte(']')
	}
	b.WriteByte(' ')
	b.WriteString(quoteMessage(r.Message))
	b.Write(h.attrs)
	r.Attrs(func(a slog.Attr) bool {
		appendAttr(&b, h.group, a)
		return true
	})
	b.WriteByte('\n')
	h.mu.Lock()
	defer h.mu.Unlock()
	_, err := h.w.Write(b.Bytes())
	return err
}

func (h *textHandler) WithAttrs(attrs []slog.Attr) slog.Handler {
	c := *h
	var b bytes.Buffer
	b.Write(h.attrs)
	for _, a := range attrs {
		if h.group == "" && a.Key == "logger" {
			c.logger = a.Value.String()
			continue
		}
		appendAttr(&b, h.group, a)
	}
	c.attrs = b.Bytes()
	return &c
}

func (h *textHandler) WithGroup(name string) slog.Handler {
	if name == "" {
		return h
	}
	c := *h
	c.group = h.group + name + "."
	return &c
}

func levelName(l slog.Level) string {
	if l >= levelCritical {
		return "CRITICAL"
	}
	return l.String()
}

func appendAttr(b *bytes.Buffer, prefix string, a slog.Attr) {
	a.Value = a.Value.Resolve()
	if a.Equal(slog.Attr{}) {
		return
	}
	if a.Value.Kind() == slog.KindGroup {
		inner := prefix
		if a.Key != "" {
			inner = prefix + a.Key + "."
		}
		for _, g := range a.Value.Group() {
			appendAttr(b, inner, g)
		}
		return
	}
	b.WriteByte(' ')
	b.WriteString(quoteIfNeeded(prefix + a.Key))
	b.WriteByte('=')
	b.WriteString(quoteIfNeeded(valueText(a.Value)))
}

func valueText(v slog.Value) string {
	switch v.Kind() {
	case slog.KindTime:
		return v.Time().UTC().Format(time.RFC3339Nano)
	case slog.KindAny:
		if err, ok := v.Any().(error); ok {
			return err.Error()
		}
	}
	return v.String()
}

// quoteIfNeeded leaves plain tokens bare and quotes anything a reader or
// a line-based tool could misparse.
func quoteIfNeeded(s string) string {
	if s == "" {
		return `""`
	}
	if !utf8.ValidString(s) {
		return strconv.Quote(s)
	}
	for _, r := range s {
		if r == ' ' || r == '=' || r == '"' || !unicode.IsPrint(r) {
			return strconv.Quote(s)
		}
	}
	return s
}

// quoteMessage keeps a readable message bare unless it could break the
// line: messages have spaces by nature.
func quoteMessage(s string) string {
	if !utf8.ValidString(s) {
		return strconv.Quote(s)
	}
	for _, r := range s {
		if r != ' ' && !unicode.IsPrint(r) {
			return strconv.Quote(s)
		}
	}
	return s
}
