package api

import (
	"context"
	"errors"
	"net/http"
	"scand/finding"
	"strings"
	"unicode/utf8"

	"scand/api/httpio"
	"scand/api/review"
	"scand/auth"
	"scand/store"
	"scand/store/audit"
)

// TriageRequest is the body of PATCH /findings/{fingerprint}/state, the
// verdict fields POST /findings/triage takes too.
type TriageRequest = review.Verdict

// CommentRequest is the body of POST /findings/{fingerprint}/comments.
type CommentRequest struct {
	Text   string  `json:"text" doc:"1 to 10,000 characters"`
	Author *string `json:"author,omitempty" doc:"defaults to the caller's key name and id"`
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

// knownFingerprint 404s a fingerprint no finding, verdict or comment has
// ever carried, so a typo never creates a verdict nothing will match.
func (s *Server) knownFingerprint(ctx context.Context, fp string) error {
	if !finding.IsFingerprint(fp) {
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

// setTriage applies the triage rules (status, note and author limits, an
// expiry only on acceptances and in the future, a known fingerprint),
// stores the verdict and records it; API and console share it.
func (s *Server) setTriage(ctx context.Context, p auth.Principal, fp string, req TriageRequest) (store.TriageState, error) {
	var v httpio.Validation
	st := req.State(p, s.Now(), &v)
	if err := v.Err(); err != nil {
		return store.TriageState{}, err
	}
	if err := s.knownFingerprint(ctx, fp); err != nil {
		return store.TriageState{}, err
	}
	before, err := s.Store.TriageStateOf(ctx, fp)
	if err != nil {
		return store.TriageState{}, err
	}
	st.Fingerprint = fp
	rec := review.RecordOf(ctx, p, "finding.triage", "finding", fp, review.VerdictChanges(before, st))
	st, _, err = s.Store.SetVerdicts(ctx, []string{fp}, st, &rec)
	st.Fingerprint = fp
	return st, err
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
	author := review.DisplayName(p)
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
	c, err := s.Store.AddComment(ctx, store.Comment{Fingerprint: fp, Text: req.Text, Author: author})
	if err == nil {
		s.audit(ctx, p, "finding.comment_add", "finding", fp, audit.Changes{"comment_id": {After: c.ID}, "text": {After: c.Text}})
	}
	return c, err
}

func (s *Server) handleDeleteComment(w http.ResponseWriter, r *http.Request) error {
	if err := s.deleteComment(r.Context(), PrincipalFrom(r.Context()), r.PathValue("fingerprint"), r.PathValue("comment_id")); err != nil {
		return err
	}
	w.WriteHeader(http.StatusNoContent)
	return nil
}

// deleteComment removes one comment of a fingerprint (API and console).
func (s *Server) deleteComment(ctx context.Context, p auth.Principal, fp, id string) error {
	err := s.Store.DeleteComment(ctx, fp, id)
	if errors.Is(err, store.ErrNotFound) {
		return httpio.NotFound("Comment not found")
	}
	if err == nil {
		s.audit(ctx, p, "finding.comment_delete", "finding", fp, audit.Changes{"comment_id": {Before: id, After: nil}})
	}
	return err
}

// audit records a change p made (api/review's Recorder).
func (s *Server) audit(ctx context.Context, p auth.Principal, action, objectType, objectID string, changes audit.Changes) {
	s.review.Recorder.Record(ctx, p, action, objectType, objectID, changes)
}
