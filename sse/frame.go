package sse

import (
	"encoding/json"
	"fmt"
	"io"
	"strings"
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
