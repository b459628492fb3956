package frontier

import (
	"testing"

	"github.com/deltaq/deltaq/repo"
)

// TestInsertKeepsOneEntryPerKey covers the race between a refill and a
// Publish: the writer commits new entries, a worker's refill reads them
// from Pebble and may hand one out, then the writer publishes them.
func TestInsertKeepsOneEntryPerKey(t *testing.T) {
	h := newHostQueue("example.org")
	a := entry{key: "k-a", url: "http://example.org/a", reason: repo.ReasonLink}
	b := entry{key: "k-b", url: "http://example.org/b", reason: repo.ReasonLink}
	h.insert(a, 8)
	h.insert(b, 8)
	h.insert(a, 8) // published after a refill buffered it
	c := a.reason.Class()
	if got := len(h.buf[c]); got != 2 {
		t.Fatalf("buffer holds %d entries, want 2: %+v", got, h.buf[c])
	}
	// b is handed out; publishing it again must not queue it twice.
	h.buf[c] = h.buf[c][:1]
	h.inflight = append(h.inflight, b)
	h.insert(b, 8)
	if got := len(h.buf[c]); got != 1 || h.buf[c][0].key != "k-a" {
		t.Fatalf("buffer %+v, want only k-a while k-b is in flight", h.buf[c])
	}
}
