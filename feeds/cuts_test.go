package feeds

import (
	"fmt"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

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

// An item's title, GUID and link are bounded however long the feed makes
// them: a title is cut at a character boundary with a mark, a GUID too
// long for a key keys its item by its hash (the same from poll to poll),
// a link too long is dropped; the poll and the feed's state count each.
func TestItemFieldsAreBounded(t *testing.T) {
	s, db := openStore(t, vfs.NewMem(), "")
	defer db.Close()
	longTitle := strings.Repeat("é", 100000) // 200,000 bytes, a cut inside a character unless it is careful
	longGUID := strings.Repeat("g", 100000)
	longLink := "http://h.test/" + strings.Repeat("p", 3000)
	body := `<?xml version="1.0"?><rss version="2.0"><channel><title>` + longTitle + `</title>` +
		`<item><title>` + longTitle + `</title><guid>` + longGUID + `</guid><link>` + longLink + `</link></item>` +
		`<item><title>short</title><guid>short</guid><link>http://h.test/short</link></item></channel></rss>`
	items, up := recordOne(t, s, "http://h.test/long.rss", body)
	if len(items) != 2 {
		t.Fatalf("%d items, want 2", len(items))
	}
	for _, it := range items {
		if it.Title == "short" {
			if it.Key != "g:short" || it.Link != "http://h.test/short" {
				t.Errorf("a short item changed: %+v", it)
			}
			continue
		}
		if len(it.Title) > MaxTitleBytes || !utf8.ValidString(it.Title) || !strings.HasSuffix(it.Title, "é…") {
			t.Errorf("title of %d bytes (valid UTF-8 %v) ending %q, want at most %d ending in a whole é and the mark",
				len(it.Title), utf8.ValidString(it.Title), it.Title[max(0, len(it.Title)-8):], MaxTitleBytes)
		}
		if len(it.Key) > MaxKeyBytes || !strings.HasPrefix(it.Key, "g#") {
			t.Errorf("key of %d bytes %.20q…, want the GUID's hash", len(it.Key), it.Key)
		}
		if it.Link != "" {
			t.Errorf("a link of %d bytes was kept", len(it.Link))
		}
	}
	want := Cuts{Titles: 2, Links: 1, Keys: 1}
	if up.Cuts != want {
		t.Errorf("the poll's cuts: %+v, want %+v", up.Cuts, want)
	}
	f, err := s.Subscription(IDOf("http://h.test/long.rss"))
	if err != nil || f.LastCuts != want || len(f.Title) > MaxTitleBytes {
		t.Fatalf("the feed: title of %d bytes, cuts %+v, %v; want %+v", len(f.Title), f.LastCuts, err, want)
	}
	if got := f.LastCuts.String(); !strings.Contains(got, "2 titles cut at 1024 bytes") || !strings.Contains(got, "1 GUIDs or links over 256 bytes keyed by their hash") {
		t.Errorf("the cuts say %q", got)
	}
	if up, err := s.Record(t.Context(), f.ID, Fetch{At: t0.Add(time.Hour), Status: 200, Body: []byte(body)}); err != nil || len(up.New) != 0 {
		t.Errorf("the same feed again: %d new, %v; want none (the hashed key is stable)", len(up.New), err)
	}
}
