package scan

import (
	"context"
	"encoding/json"
)

// CaptureComponentsJSON discovers the target's components and serializes
// them for storage with the scan, so the scan's SBOM never changes when
// the tree does.
func CaptureComponentsJSON(ctx context.Context, root string) ([]byte, error) {
	comps, err := DiscoverComponents(ctx, root)
	if err != nil {
		return nil, err
	}
	if comps == nil {
		comps = []Component{}
	}
	return json.Marshal(comps)
}
