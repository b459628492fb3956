package crawler

import (
	"net/http"
	"testing"
	"time"
)

// TestRetryAfterHugeSecondsSaturates: a Retry-After of more seconds than a
// time.Duration holds is a very long wait, not an overflow to a negative
// one (which backoff turns into crawler.politeness.min_delay, 1 s) nor
// "no Retry-After" (backoff_initial).
func TestRetryAfterHugeSecondsSaturates(t *testing.T) {
	now := time.Now()
	for _, v := range []string{"9223372037", "18446744073", "99999999999", "99999999999999999999999"} {
		h := http.Header{"Retry-After": {v}}
		d, ok := retryAfter(h, now)
		if !ok || d < 24*time.Hour {
			t.Errorf("Retry-After: %s = %v, %v; want a very long wait", v, d, ok)
		}
		p := &politeness{cfg: PolitenessConfig{MinDelay: time.Second, BackoffInitial: 30 * time.Second, BackoffMax: time.Hour}}
		if got := p.backoff(1, d, ok); got != time.Hour {
			t.Errorf("Retry-After: %s: back-off %v, want backoff_max 1h", v, got)
		}
	}
}
