package crawler

import (
	"net/http"
	"testing"
)

// TestRobotsStatusesFollowRFC9309 maps robots.txt statuses as §2.3.1 does.
func TestRobotsStatusesFollowRFC9309(t *testing.T) {
	body := []byte("User-agent: *\nDisallow: /private/\n")
	for _, c := range []struct {
		status  int
		known   bool
		private bool // /private/x allowed
	}{
		{http.StatusOK, true, false},
		{http.StatusMovedPermanently, true, true}, // still a redirect after five: unavailable
		{http.StatusNotFound, true, true},
		{http.StatusForbidden, true, true},
		{http.StatusServiceUnavailable, false, false},
		{0, false, false}, // network error
	} {
		r := robotsFor(c.status, body)
		if (r != nil) != c.known || robotsKnown(c.status) != c.known {
			t.Errorf("status %d: rules %v, robotsKnown %v; want %v", c.status, r != nil, robotsKnown(c.status), c.known)
			continue
		}
		if r != nil {
			if got := r.Group("deltaq").Allowed("/private/x"); got != c.private {
				t.Errorf("status %d: /private/x allowed = %v, want %v", c.status, got, c.private)
			}
		}
	}
}
