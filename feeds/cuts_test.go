package feeds

import (
	"fmt"
	"strings"
	"testing"

	"github.com/cockroachdb/pebble/v2/vfs"
)

// A feed of more items than feeds.max_items is read up to the limit, and
// the poll and the feed's state say how many items were left unread and
// at which limit; a later read without cuts clears it.
func TestItemsPastTheLimitAreReported(t *testing.T) {
	s, db := openStore(t, vfs.NewMem(), "")
	defer db.Close()
	limit := testConfig().MaxItems
	var b strings.Builder
	b.WriteString(`<?xml version="1.0"?><rss version="2.0"><channel><title>r</title>`)
	for i := range limit + 60 {
		fmt.Fprintf(&b, `<item><title>i%d</title><guid>%d</guid><link>http://h.test/%d</link></item>`, i, i, i)
	}
	b.WriteString(`</channel></rss>`)
	items, up := recordOne(t, s, "http://h.test/big.rss", b.String())
	if len(items) != limit || up.Truncated != 60 {
		t.Fatalf("%d items stored, %d truncated; want %d and 60", len(items), up.Truncated, limit)
	}
	want := Cuts{Items: 60, MaxItems: limit}
	if up.Cuts != want {
		t.Errorf("the poll's cuts: %+v, want %+v", up.Cuts, want)
	}
	f, err := s.Subscription(IDOf("http://h.test/big.rss"))
	if err != nil || f.LastCuts != want {
		t.Fatalf("the feed's last cuts: %+v, %v; want %+v", f.LastCuts, err, want)
	}
	if got := f.LastCuts.String(); got != fmt.Sprintf("60 items past feeds.max_items (%d) not read", limit) {
		t.Errorf("the cuts say %q", got)
	}
	if _, err := s.Record(t.Context(), f.ID, Fetch{At: t0.Add(1), Status: 200, Body: atom(t0)}); err != nil {
		t.Fatal(err)
	}
	if f, err := s.Subscription(f.ID); err != nil || f.LastCuts != (Cuts{}) || f.LastCuts.String() != "" {
		t.Errorf("after a read of a small feed: %+v, %v; want no cuts", f.LastCuts, err)
	}
}
