package notify

import (
	"math"
	"testing"
	"time"
)

// TestBackoffSaturates: the wait doubles from backoff_base and stays at
// backoff_max however many attempts failed, even a backoff_max near the
// largest duration, where doubling used to wrap round to a wait of zero
// and a retry at once, again and again.
func TestBackoffSaturates(t *testing.T) {
	for _, max := range []time.Duration{10 * time.Minute, maxBackoff, math.MaxInt64} {
		o := &Outbox{cfg: Config{BackoffBase: time.Minute, BackoffMax: max}}
		prev := time.Duration(0)
		for attempts := 1; attempts <= maxAttempts; attempts++ {
			w := o.backoff(attempts)
			if w < prev || w > max || w < time.Minute {
				t.Fatalf("backoff_max %v: after %d attempts the wait is %v, after %d it was %v", max, attempts, w, attempts-1, prev)
			}
			prev = w
		}
		if prev != max {
			t.Errorf("backoff_max %v: after %d attempts the wait is %v, want the cap", max, maxAttempts, prev)
		}
	}
}
