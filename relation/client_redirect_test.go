package relation

import (
	"errors"
	"net/http"
	"testing"
	"time"
)

// TestClientRedirectObeysRobots: an item URL robots.txt allows that
// redirects under a path it disallows is refused, not followed: the
// client's requests are "allowed by robots.txt", redirect hops included.
func TestClientRedirectObeysRobots(t *testing.T) {
	s, _, cl := newShopClient(t, ClientOptions{})
	var private int
	s.set("/item/", func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, "/private/a1", http.StatusFound)
	})
	s.set("/private/", func(w http.ResponseWriter, r *http.Request) {
		private++
		w.Header().Set("Content-Type", "text/html")
		w.Write([]byte(`<html><body><h1>secret</h1><span id="price">0</span></body></html>`))
	})
	rec, _, err := cl.Item(t.Context(), "a1")
	if private != 0 {
		t.Errorf("/private/ requested %d times through a redirect; robots.txt disallows it", private)
	}
	if !errors.Is(err, ErrDisallowed) {
		t.Errorf("item redirected under a disallowed path: %v, %v; want ErrDisallowed", rec, err)
	}
}

// TestClientRetryAfterIsBounded: a 429 whose Retry-After asks for a wait
// longer than any sync can make (a day, a billion seconds, more than a
// time.Duration holds) ends the request with ErrThrottled at once rather
// than blocking the sync that long, or retrying at once when the value
// overflowed.
func TestClientRetryAfterIsBounded(t *testing.T) {
	for _, v := range []string{"100000", "1000000000", "9223372037"} {
		clk := &recordingClock{now: time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)}
		s, _, cl := newShopClient(t, ClientOptions{Retries: 3, Backoff: time.Second, Clock: clk})
		s.set("/search", func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Retry-After", v)
			w.WriteHeader(http.StatusTooManyRequests)
		})
		_, err := cl.Search(t.Context(), []string{"apple"}, 1)
		if !errors.Is(err, ErrThrottled) {
			t.Errorf("Retry-After: %s: %v, want ErrThrottled", v, err)
		}
		for _, w := range clk.waits() {
			if w > time.Hour || w <= 0 {
				t.Errorf("Retry-After: %s: waited %v; want no wait past 1h", v, w)
			}
		}
	}
}

// TestClientRobotsRedirectLoopEnds: a robots.txt that redirects to itself
// ends (as unreadable: disallow all), rather than each hop asking for
// robots.txt again.
func TestClientRobotsRedirectLoopEnds(t *testing.T) {
	s, _, cl := newShopClient(t, ClientOptions{})
	s.set("/robots.txt", func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, "/robots.txt", http.StatusFound)
	})
	done := make(chan error, 1)
	go func() { _, _, err := cl.Item(t.Context(), "a1"); done <- err }()
	select {
	case err := <-done:
		if !errors.Is(err, ErrDisallowed) {
			t.Errorf("robots.txt in a redirect loop: %v, want ErrDisallowed (unreachable reads as disallow all)", err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("robots.txt redirect loop did not end")
	}
}
