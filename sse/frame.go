package sse

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"time"
)

// WriteEvent writes one SSE frame: "event: <name>\ndata: <json>\n\n".
func WriteEvent(w io.Writer, ev Event) error {
	data, err := json.Marshal(ev.Data)
	if err != nil {
		return err
	}
	// Event names are ours, but never let one break the framing.
	name := strings.NewReplacer("\n", "", "\r", "").Replace(ev.Name)
	_, err = fmt.Fprintf(w, "event: %s\ndata: %s\n\n", name, data)
	return err
}

// WriteKeepalive writes an SSE comment line that clients ignore.
func WriteKeepalive(w io.Writer) error {
	_, err := io.WriteString(w, ": keepalive\n\n")
	return err
}

// Stream writes a subscription's events to w, flushing each, until the
// scan's terminal event, the end of ctx (the client went away) or a failed
// write; a keepalive comment fills every silence of keepAlive.
func Stream(ctx context.Context, w io.Writer, flush func() error, sub *Subscription, keepAlive time.Duration) {
	for {
		ev, ok, timedOut := sub.Next(ctx, keepAlive)
		switch {
		case timedOut:
			if err := WriteKeepalive(w); err != nil {
				return
			}
		case !ok:
			return
		default:
			if err := WriteEvent(w, ev); err != nil {
				return
			}
		}
		if err := flush(); err != nil {
			return
		}
		if ok && IsTerminal(ev.Name) {
			return
		}
	}
}
