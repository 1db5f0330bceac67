package ui

import (
	"errors"
	"net"
	"net/http"
	"strconv"
	"strings"
	"time"

	"scand/auth"
)

type loginView struct {
	Next    string
	Dev     bool
	Message string
	Error   string
}

var loginMessages = map[string]string{
	"out": "You have signed out.",
}

// loginPage shows the sign-in form. It opens an anonymous session first:
// the form's CSRF token is bound to it, so another site cannot sign a
// browser in with the other site's key.
func (c *Console) loginPage(w http.ResponseWriter, r *http.Request, rq *Request) error {
	ctx := r.Context()
	v := loginView{Next: localTarget(r.URL.Query().Get("next")), Message: loginMessages[r.URL.Query().Get("done")]}
	dev, err := c.cfg.Auth.DevMode(ctx)
	if err != nil {
		return err
	}
	v.Dev = dev
	if rq.sess.KeyID != "" && !dev {
		if _, err := c.cfg.Auth.PrincipalByKeyID(ctx, rq.sess.KeyID); err == nil {
			return Redirect(w, r, v.Next)
		}
	}
	c.showLogin(w, r, rq, http.StatusOK, v)
	return nil
}

func (c *Console) showLogin(w http.ResponseWriter, r *http.Request, rq *Request, status int, v loginView) {
	now := c.cfg.Now()
	if rq.sess.Nonce == "" || rq.sess.KeyID != "" || !now.Before(rq.sess.Expires) {
		rq.sess = session{Nonce: newNonce(), Expires: now.Add(anonymousTTL)}
		c.sess.setCookie(w, r, rq.sess, now)
	}
	// The sign-in page never shows who is signed in: rq.P stays empty.
	c.Render(w, r, rq, status, "login", "Sign in", "", v)
}

func (c *Console) login(w http.ResponseWriter, r *http.Request, rq *Request) error {
	ctx := r.Context()
	next := localTarget(r.PostForm.Get("next"))
	key := strings.TrimSpace(r.PostForm.Get("key"))
	if key == "" {
		c.showLogin(w, r, rq, http.StatusUnprocessableEntity, loginView{Next: next, Error: "Enter an API key."})
		return nil
	}
	addr := c.cfg.ClientAddr(r)
	// A key is checked only outside a back-off: answering a right key
	// during one would tell a guesser it is right.
	if wait := c.cfg.Throttle.Check(addr, c.cfg.Now()); wait > 0 {
		secs := int((wait + time.Second - 1) / time.Second)
		c.cfg.Log.WarnContext(ctx, "console sign-in throttled", "request_id", c.cfg.RequestID(ctx), "client", addr, "retry_after_s", secs)
		w.Header().Set("Retry-After", strconv.Itoa(secs))
		c.showLogin(w, r, rq, http.StatusTooManyRequests, loginView{Next: next,
			Error: "Too many failed sign-in attempts from this address; try again in " + strconv.Itoa(secs) + " s."})
		return nil
	}
	p, err := c.cfg.Auth.Authenticate(ctx, key, true)
	if errors.Is(err, auth.ErrUnauthorized) {
		backoff := c.cfg.Throttle.Fail(addr, c.cfg.Now())
		c.cfg.Log.InfoContext(ctx, "console sign-in refused", "request_id", c.cfg.RequestID(ctx), "client", addr, "backoff_s", int(backoff.Seconds()))
		c.showLogin(w, r, rq, http.StatusUnauthorized, loginView{Next: next, Error: "That key is not valid: it is unknown, malformed or revoked."})
		return nil
	}
	if err != nil {
		return err
	}
	now := c.cfg.Now()
	// A new nonce: the session a visitor had before signing in (and any
	// token an attacker planted in it) is not the one they have after.
	c.sess.end(rq.sess, now)
	ss := session{KeyID: p.ID, Nonce: newNonce(), Expires: now.Add(sessionTTL)}
	c.sess.setCookie(w, r, ss, now)
	c.cfg.Log.InfoContext(ctx, "console sign-in", "request_id", c.cfg.RequestID(ctx), "key_id", p.ID, "source", p.Source)
	return Redirect(w, r, next)
}

func (c *Console) logout(w http.ResponseWriter, r *http.Request, rq *Request) error {
	// guard has checked the CSRF token against this very session.
	c.sess.end(rq.sess, c.cfg.Now())
	clearCookie(w, r)
	c.cfg.Log.InfoContext(r.Context(), "console sign-out", "request_id", c.cfg.RequestID(r.Context()), "key_id", rq.sess.KeyID)
	return Redirect(w, r, "/ui/login?done=out")
}

// peerAddr is the peer's IP address without the port.
func peerAddr(r *http.Request) string {
	if host, _, err := net.SplitHostPort(r.RemoteAddr); err == nil {
		return host
	}
	return r.RemoteAddr
}
