package ui

import (
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"errors"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"time"
)

// Session lifetimes: a signed-in session lasts 12 hours from login (never
// extended, so a stolen cookie has a bounded life); the anonymous session
// that carries the login form's CSRF token lasts one hour.
const (
	sessionTTL   = 12 * time.Hour
	anonymousTTL = time.Hour
	cookieName   = "scand_session"
	cookiePath   = "/ui"
	// maxEndedSessions bounds the memory logged-out sessions take; past it
	// the oldest-expiring entries go first.
	maxEndedSessions = 100000
)

var (
	errNoSession      = errors.New("no session")
	errSessionExpired = errors.New("session expired")
	errSessionEnded   = errors.New("session signed out")
	errSessionInvalid = errors.New("session invalid")
)

// session is what the cookie carries. The cookie is the whole session:
// nothing but logged-out nonces is kept on the server.
type session struct {
	// KeyID is the principal the session acts as: a DB key id, "env" for
	// SVC_API_KEY, "dev" in dev mode, or "" for the anonymous session of
	// the login form.
	KeyID   string
	Nonce   string
	Expires time.Time
}

// sessions signs and checks session cookies and derives CSRF tokens. Its
// keys are derived from the configured secret so the raw secret (which
// also signs event tokens) is never used for two purposes.
type sessions struct {
	macKey  []byte
	csrfKey []byte

	mu    sync.Mutex
	ended map[string]time.Time // nonce -> expiry of a logged-out session
}

func newSessions(secret []byte) *sessions {
	derive := func(label string) []byte {
		m := hmac.New(sha256.New, secret)
		m.Write([]byte("scand/ui/" + label + "/v1"))
		return m.Sum(nil)
	}
	return &sessions{macKey: derive("session"), csrfKey: derive("csrf"), ended: map[string]time.Time{}}
}

func newNonce() string {
	b := make([]byte, 18)
	if _, err := rand.Read(b); err != nil {
		panic("crypto/rand failed: " + err.Error())
	}
	return base64.RawURLEncoding.EncodeToString(b)
}

// Cookie wire format: "v1.<b64url key id>.<nonce>.<unix expiry>.<b64url
// HMAC-SHA256 of everything before the last dot>".
const sessionVersion = "v1"

func (s *sessions) encode(ss session) string {
	body := sessionVersion + "." + base64.RawURLEncoding.EncodeToString([]byte(ss.KeyID)) + "." + ss.Nonce + "." + strconv.FormatInt(ss.Expires.Unix(), 10)
	return body + "." + base64.RawURLEncoding.EncodeToString(s.mac(body))
}

func (s *sessions) mac(body string) []byte {
	m := hmac.New(sha256.New, s.macKey)
	m.Write([]byte(body))
	return m.Sum(nil)
}

// decode verifies a cookie value. A forged or malformed value is
// errSessionInvalid; a genuine one past its expiry is errSessionExpired,
// one signed out errSessionEnded.
func (s *sessions) decode(v string, now time.Time) (session, error) {
	parts := strings.Split(v, ".")
	if len(parts) != 5 || parts[0] != sessionVersion {
		return session{}, errSessionInvalid
	}
	mac, err := base64.RawURLEncoding.DecodeString(parts[4])
	if err != nil || !hmac.Equal(mac, s.mac(strings.Join(parts[:4], "."))) {
		return session{}, errSessionInvalid
	}
	keyID, err1 := base64.RawURLEncoding.DecodeString(parts[1])
	exp, err2 := strconv.ParseInt(parts[3], 10, 64)
	if err1 != nil || err2 != nil || parts[2] == "" {
		return session{}, errSessionInvalid
	}
	ss := session{KeyID: string(keyID), Nonce: parts[2], Expires: time.Unix(exp, 0)}
	if !now.Before(ss.Expires) {
		return ss, errSessionExpired
	}
	if s.isEnded(ss.Nonce, now) {
		return ss, errSessionEnded
	}
	return ss, nil
}

// csrfToken is the session's CSRF token. It is bound to the nonce, which
// only the HttpOnly cookie carries, so another site can neither read nor
// compute it.
func (s *sessions) csrfToken(ss session) string {
	m := hmac.New(sha256.New, s.csrfKey)
	m.Write([]byte(ss.Nonce))
	return base64.RawURLEncoding.EncodeToString(m.Sum(nil))
}

func (s *sessions) csrfValid(ss session, token string) bool {
	return token != "" && hmac.Equal([]byte(token), []byte(s.csrfToken(ss)))
}

// end logs a session out for the rest of its life.
func (s *sessions) end(ss session, now time.Time) {
	s.mu.Lock()
	defer s.mu.Unlock()
	for nonce, exp := range s.ended {
		if !now.Before(exp) {
			delete(s.ended, nonce)
		}
	}
	if len(s.ended) >= maxEndedSessions {
		var oldest string
		for nonce, exp := range s.ended {
			if oldest == "" || exp.Before(s.ended[oldest]) {
				oldest = nonce
			}
		}
		delete(s.ended, oldest)
	}
	s.ended[ss.Nonce] = ss.Expires
}

func (s *sessions) isEnded(nonce string, now time.Time) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	exp, ok := s.ended[nonce]
	return ok && now.Before(exp)
}

// secureRequest reports whether the browser reached scand over TLS, directly
// or through a proxy that says so; the cookie is then marked Secure.
func secureRequest(r *http.Request) bool {
	return r.TLS != nil || strings.EqualFold(r.Header.Get("X-Forwarded-Proto"), "https")
}

func (s *sessions) setCookie(w http.ResponseWriter, r *http.Request, ss session, now time.Time) {
	http.SetCookie(w, &http.Cookie{
		Name: cookieName, Value: s.encode(ss), Path: cookiePath,
		Expires: ss.Expires, MaxAge: int(ss.Expires.Sub(now) / time.Second),
		HttpOnly: true, SameSite: http.SameSiteStrictMode, Secure: secureRequest(r),
	})
}

func clearCookie(w http.ResponseWriter, r *http.Request) {
	http.SetCookie(w, &http.Cookie{Name: cookieName, Value: "", Path: cookiePath, MaxAge: -1,
		HttpOnly: true, SameSite: http.SameSiteStrictMode, Secure: secureRequest(r)})
}

// fromRequest reads the request's session cookie.
func (s *sessions) fromRequest(r *http.Request, now time.Time) (session, error) {
	c, err := r.Cookie(cookieName)
	if err != nil || c.Value == "" {
		return session{}, errNoSession
	}
	return s.decode(c.Value, now)
}
