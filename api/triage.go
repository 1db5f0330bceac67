package api

import (
	"context"
	"errors"
	"net/http"
	"slices"
	"strings"
	"unicode/utf8"

	"scand/api/httpio"
	"scand/auth"
	"scand/store"
)

// TriageRequest is the body of PATCH /findings/{fingerprint}/state.
type TriageRequest struct {
	Status    string  `json:"status"`
	Note      *string `json:"note,omitempty"`
	UpdatedBy *string `json:"updated_by,omitempty" doc:"defaults to the caller's key id"`
}

// CommentRequest is the body of POST /findings/{fingerprint}/comments.
type CommentRequest struct {
	Text   string  `json:"text" doc:"1 to 10,000 characters"`
	Author *string `json:"author,omitempty" doc:"defaults to the caller's key id"`
}

const maxCommentChars = 10000

var fpParam = Param{Name: "fingerprint", In: "path", Type: "string", Required: true, Description: "finding fingerprint (64 hex characters)"}

func (s *Server) triageRoutes() []Route {
	return []Route{
		{Method: "PATCH", Path: "/findings/{fingerprint}/state", Scope: auth.ScopeWrite, Tag: "triage", Summary: "Set or replace the triage verdict of a fingerprint (status new clears it)", Request: TriageRequest{}, Response: store.TriageState{}, Params: []Param{fpParam}, Errors: []int{404}, Handler: s.handleSetTriage},
		{Method: "GET", Path: "/findings/{fingerprint}/history", Scope: auth.ScopeRead, Tag: "triage", Summary: "Every verdict change of a fingerprint, oldest first", Response: []store.TriageState{}, Params: []Param{fpParam}, Errors: []int{404}, Handler: s.handleTriageHistory},
		{Method: "GET", Path: "/findings/{fingerprint}/comments", Scope: auth.ScopeRead, Tag: "triage", Summary: "Comments on a fingerprint, oldest first", Response: []store.Comment{}, Params: []Param{fpParam}, Errors: []int{404}, Handler: s.handleListComments},
		{Method: "POST", Path: "/findings/{fingerprint}/comments", Scope: auth.ScopeWrite, Tag: "triage", Summary: "Add a comment", Request: CommentRequest{}, Response: store.Comment{}, Status: http.StatusCreated, Params: []Param{fpParam}, Errors: []int{404}, Handler: s.handleAddComment},
		{Method: "DELETE", Path: "/findings/{fingerprint}/comments/{comment_id}", Scope: auth.ScopeWrite, Tag: "triage", Summary: "Delete a comment", Status: http.StatusNoContent, Params: []Param{fpParam, {Name: "comment_id", In: "path", Type: "string", Required: true}}, Errors: []int{404}, Handler: s.handleDeleteComment},
	}
}

func validFingerprint(fp string) bool {
	if len(fp) != 64 {
		return false
	}
	for i := 0; i < len(fp); i++ {
		c := fp[i]
		if !(c >= '0' && c <= '9' || c >= 'a' && c <= 'f') {
			return false
		}
	}
	return true
}

// knownFingerprint 404s a fingerprint no finding, verdict or comment has
// ever carried, so a typo never creates a verdict nothing will match.
func (s *Server) knownFingerprint(ctx context.Context, fp string) error {
	if !validFingerprint(fp) {
		return httpio.NotFound("Finding not found: a fingerprint is 64 lowercase hex characters")
	}
	ok, err := s.Store.FingerprintKnown(ctx, fp)
	if err != nil {
		return err
	}
	if !ok {
		return httpio.NotFound("Finding not found")
	}
	return nil
}

func (s *Server) handleSetTriage(w http.ResponseWriter, r *http.Request) error {
	var req TriageRequest
	if err := httpio.DecodeBody(r, &req); err != nil {
		return err
	}
	st, err := s.setTriage(r.Context(), PrincipalFrom(r.Context()), r.PathValue("fingerprint"), req)
	if err != nil {
		return err
	}
	httpio.WriteJSON(w, http.StatusOK, st)
	return nil
}

// setTriage applies the triage rules (status, note and author limits, a
// known fingerprint) and stores the verdict; API and console share it.
func (s *Server) setTriage(ctx context.Context, p auth.Principal, fp string, req TriageRequest) (store.TriageState, error) {
	var v httpio.Validation
	if !slices.Contains(store.TriageStatuses, req.Status) {
		v.Add("enum", "status must be one of "+strings.Join(store.TriageStatuses, ", "), req.Status, "body", "status")
	}
	note := ""
	if req.Note != nil {
		note = *req.Note
		if utf8.RuneCountInString(note) > maxCommentChars {
			v.Add("string_too_long", "note must be at most 10000 characters", nil, "body", "note")
		}
	}
	by := p.ID
	if req.UpdatedBy != nil && strings.TrimSpace(*req.UpdatedBy) != "" {
		by = strings.TrimSpace(*req.UpdatedBy)
		if utf8.RuneCountInString(by) > 200 {
			v.Add("string_too_long", "updated_by must be at most 200 characters", nil, "body", "updated_by")
		}
	}
	if err := v.Err(); err != nil {
		return store.TriageState{}, err
	}
	if err := s.knownFingerprint(ctx, fp); err != nil {
		return store.TriageState{}, err
	}
	return s.Store.SetTriage(ctx, store.TriageState{Fingerprint: fp, Status: req.Status, Note: note, UpdatedBy: by})
}

func (s *Server) handleTriageHistory(w http.ResponseWriter, r *http.Request) error {
	fp := r.PathValue("fingerprint")
	if err := s.knownFingerprint(r.Context(), fp); err != nil {
		return err
	}
	h, err := s.Store.TriageHistory(r.Context(), fp)
	if err != nil {
		return err
	}
	httpio.WriteJSON(w, http.StatusOK, h)
	return nil
}

func (s *Server) handleListComments(w http.ResponseWriter, r *http.Request) error {
	fp := r.PathValue("fingerprint")
	if err := s.knownFingerprint(r.Context(), fp); err != nil {
		return err
	}
	cs, err := s.Store.Comments(r.Context(), fp)
	if err != nil {
		return err
	}
	httpio.WriteJSON(w, http.StatusOK, cs)
	return nil
}

func (s *Server) handleAddComment(w http.ResponseWriter, r *http.Request) error {
	var req CommentRequest
	if err := httpio.DecodeBody(r, &req); err != nil {
		return err
	}
	c, err := s.addComment(r.Context(), PrincipalFrom(r.Context()), r.PathValue("fingerprint"), req)
	if err != nil {
		return err
	}
	httpio.WriteJSON(w, http.StatusCreated, c)
	return nil
}

// addComment validates and stores a comment (API and console).
func (s *Server) addComment(ctx context.Context, p auth.Principal, fp string, req CommentRequest) (store.Comment, error) {
	var v httpio.Validation
	if n := utf8.RuneCountInString(req.Text); strings.TrimSpace(req.Text) == "" || n > maxCommentChars {
		v.Add("string_length", "text must be 1 to 10000 characters", nil, "body", "text")
	}
	author := p.ID
	if req.Author != nil && strings.TrimSpace(*req.Author) != "" {
		author = strings.TrimSpace(*req.Author)
		if utf8.RuneCountInString(author) > 200 {
			v.Add("string_too_long", "author must be at most 200 characters", nil, "body", "author")
		}
	}
	if err := v.Err(); err != nil {
		return store.Comment{}, err
	}
	if err := s.knownFingerprint(ctx, fp); err != nil {
		return store.Comment{}, err
	}
	return s.Store.AddComment(ctx, store.Comment{Fingerprint: fp, Text: req.Text, Author: author})
}

func (s *Server) handleDeleteComment(w http.ResponseWriter, r *http.Request) error {
	if err := s.deleteComment(r.Context(), r.PathValue("fingerprint"), r.PathValue("comment_id")); err != nil {
		return err
	}
	w.WriteHeader(http.StatusNoContent)
	return nil
}

// deleteComment removes one comment of a fingerprint (API and console).
func (s *Server) deleteComment(ctx context.Context, fp, id string) error {
	err := s.Store.DeleteComment(ctx, fp, id)
	if errors.Is(err, store.ErrNotFound) {
		return httpio.NotFound("Comment not found")
	}
	return err
}
