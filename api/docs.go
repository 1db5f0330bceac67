package api

import (
	"bytes"
	_ "embed"
	"net/http"
)

// The docs pages are one embedded HTML file that renders /openapi.json
// with inline script and style: no CDN, no external request, so they work
// on an air-gapped machine.
//
//go:embed assets/docs.html
var docsPage []byte

// docsCSP forbids every origin but the service itself, which also proves
// to a browser-based check that the page needs nothing from outside.
const docsCSP = "default-src 'none'; script-src 'unsafe-inline'; style-src 'unsafe-inline'; connect-src 'self'; img-src 'self' data:; base-uri 'none'; form-action 'none'; frame-ancestors 'none'"

func (s *Server) serveDocs(w http.ResponseWriter, mode string) {
	page := bytes.Replace(docsPage, []byte("{{MODE}}"), []byte(mode), 1)
	h := w.Header()
	h.Set("Content-Type", "text/html; charset=utf-8")
	h.Set("Content-Security-Policy", docsCSP)
	h.Set("X-Content-Type-Options", "nosniff")
	h.Set("Referrer-Policy", "no-referrer")
	w.Write(page)
}

func (s *Server) handleDocs(w http.ResponseWriter, r *http.Request) error {
	s.serveDocs(w, "interactive")
	return nil
}

func (s *Server) handleRedoc(w http.ResponseWriter, r *http.Request) error {
	s.serveDocs(w, "readonly")
	return nil
}
