package crawler

import (
	"net/http"
	"testing"
	"time"
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

// TestAnOverrideWithoutAPortHoldsOnEveryPort: an override naming a host
// with its port holds for that port; one naming the host name alone holds
// on every port of it (a test web on 127.0.0.1 at whatever port); other
// hosts keep crawler.politeness.
func TestAnOverrideWithoutAPortHoldsOnEveryPort(t *testing.T) {
	p := newPoliteness(PolitenessConfig{MinDelay: time.Second, PerHost: 1, Overrides: []HostOverride{
		{Host: "127.0.0.1", MinDelay: 0, PerHost: 4},
		{Host: "127.0.0.1:9000", MinDelay: 5 * time.Millisecond, PerHost: 2},
		{Host: "[::1]", MinDelay: 0, PerHost: 3},
		{Host: "a.test", MinDelay: 0, PerHost: 5},
	}}, newHostCache(nil, "deltaq", 8))
	for _, c := range []struct {
		host     string
		capacity int
		interval time.Duration
	}{
		{"127.0.0.1:18081", 4, 0},
		{"127.0.0.1:9000", 2, 5 * time.Millisecond},
		{"[::1]:8080", 3, 0},
		{"a.test", 5, 0},
		{"a.test:8443", 5, 0},
		{"b.test", 1, time.Second},
		{"127.0.0.2:18081", 1, time.Second},
	} {
		if got, d := p.Capacity(c.host), p.Interval(c.host); got != c.capacity || d != c.interval {
			t.Errorf("%s: %d at once, %s apart; want %d, %s", c.host, got, d, c.capacity, c.interval)
		}
	}
}
