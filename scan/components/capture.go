package components

import (
	"context"
	"encoding/json"
)

// CaptureJSON discovers the target's components and serializes
// them for storage with the scan, so the scan's SBOM never changes when
// the tree does.
func CaptureJSON(ctx context.Context, root string) ([]byte, error) {
	comps, err := Discover(ctx, root)
	if err != nil {
		return nil, err
	}
	if comps == nil {
		comps = []Component{}
	}
	return json.Marshal(comps)
}
