package schedule

import (
	"errors"
	"fmt"
	"strings"
	"sync"
	"time"
)

// zoneCache keeps the zones schedules use: time.LoadLocation reads and
// parses a zoneinfo file on every call. Failures are not cached, so
// installing tzdata fixes a schedule without a restart.
type zoneCache struct {
	mu    sync.Mutex
	zones map[string]*time.Location
}

func newZoneCache() *zoneCache { return &zoneCache{zones: map[string]*time.Location{}} }

// load resolves an IANA zone name from the system's time-zone database
// (/usr/share/zoneinfo, or the file $ZONEINFO names). scand does not embed
// time/tzdata: the system copy gets the rule updates its distribution
// ships, and an unknown name is a clear validation error.
func (c *zoneCache) load(name string) (*time.Location, error) {
	if name == "" || len(name) > MaxTimezoneLen {
		return nil, fmt.Errorf("timezone must be an IANA name of 1 to %d characters such as Europe/Berlin", MaxTimezoneLen)
	}
	if name == "Local" {
		// It would follow whatever zone the daemon's host happens to use.
		return nil, errors.New(`timezone "Local" is not allowed; name the zone, such as Europe/Berlin, or use UTC`)
	}
	c.mu.Lock()
	loc, ok := c.zones[name]
	c.mu.Unlock()
	if ok {
		return loc, nil
	}
	loc, err := time.LoadLocation(name)
	if err != nil || strings.ContainsAny(name, "\x00\\") {
		return nil, fmt.Errorf("unknown time zone %q: not in this system's time-zone database (install tzdata); use an IANA name such as UTC, Europe/Berlin or America/New_York", name)
	}
	c.mu.Lock()
	c.zones[name] = loc
	c.mu.Unlock()
	return loc, nil
}
