package main

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"
	"unicode/utf16"
)

// `deltaq feeds rm` takes the feed's state and items, and subscribing to
// it again starts from zero: no postings, no polls, and the next poll
// finds the feed's items new, though the crawler kept its copy and the
// feed answers 304.
func TestFeedsRmThenAddStartsFromZero(t *testing.T) {
	at := time.Now().Add(-time.Hour).UTC().Format(time.RFC3339)
	site := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/good" {
			http.NotFound(w, r)
			return
		}
		w.Header().Set("ETag", `"v1"`)
		if r.Header.Get("If-None-Match") == `"v1"` {
			w.WriteHeader(http.StatusNotModified)
			return
		}
		w.Header().Set("Content-Type", "application/atom+xml")
		fmt.Fprintf(w, `<?xml version="1.0"?><feed xmlns="http://www.w3.org/2005/Atom"><title>f</title><id>urn:f</id><updated>%s</updated>`, at)
		for i := range 5 {
			fmt.Fprintf(w, `<entry><id>urn:%d</id><title>t%d</title><updated>%s</updated></entry>`, i, i, at)
		}
		fmt.Fprint(w, `</feed>`)
	}))
	defer site.Close()
	feed, data := site.URL+"/good", t.TempDir()
	step := func(want string, args ...string) string {
		t.Helper()
		out, _, err := run(t, append(args, "--data", data)...)
		if err != nil || !strings.Contains(out, want) {
			t.Fatalf("%s: %v\n%s\nwant %q", strings.Join(args, " "), err, out, want)
		}
		return out
	}
	step("0 postings known", "feeds", "add", feed)
	step("1 of 1 feeds fetched, 5 new items", "feeds", "poll", "--allow-private")
	step("(5 items removed)", "feeds", "rm", feed)
	step("0 postings known", "feeds", "add", feed)
	out := step(feed, "feeds", "list")
	// The list's columns: id, url, weight, polls, 304, postings, last poll.
	if fields := strings.Fields(strings.Split(strings.TrimSpace(out), "\n")[1]); len(fields) < 7 || fields[3] != "0" || fields[5] != "0" || fields[6] != "never" {
		t.Errorf("feeds list subscribed again:\n%s\nwant no polls, no postings, never polled", out)
	}
	step("1 of 1 feeds fetched, 5 new items", "feeds", "poll", "--allow-private")
}

// A UTF-16 feed (XML declaration and byte order mark) polled over HTTP
// gives its items.
func TestFeedsPollReadsAUTF16Feed(t *testing.T) {
	doc := `<?xml version="1.0" encoding="UTF-16"?><rss version="2.0"><channel><title>Café</title>` +
		`<item><title>Über</title><guid>1</guid></item><item><title>two</title><guid>2</guid></item></channel></rss>`
	body := []byte{0xFF, 0xFE}
	for _, c := range utf16.Encode([]rune(doc)) {
		body = append(body, byte(c), byte(c>>8))
	}
	site := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/utf16.rss" {
			http.NotFound(w, r)
			return
		}
		w.Header().Set("Content-Type", "application/rss+xml")
		w.Write(body)
	}))
	defer site.Close()
	data := t.TempDir()
	if out, _, err := run(t, "feeds", "add", site.URL+"/utf16.rss", "--data", data); err != nil {
		t.Fatalf("feeds add: %v\n%s", err, out)
	}
	out, _, err := run(t, "feeds", "poll", "--data", data, "--allow-private")
	if err != nil || !strings.Contains(out, "1 of 1 feeds fetched, 2 new items") || strings.Contains(out, "failed:") {
		t.Errorf("feeds poll of a UTF-16 feed: %v\n%s", err, out)
	}
}

// A feed of more items than feeds.max_items (200) offers the crawler the
// links of the items read alone.
func TestFeedsPollQueuesTheLinksOfTheItemsRead(t *testing.T) {
	site := bigFeedSite(t)
	data := t.TempDir()
	if out, _, err := run(t, "feeds", "add", site.URL+"/big.rss", "--data", data); err != nil {
		t.Fatalf("feeds add: %v\n%s", err, out)
	}
	out, logged, err := run(t, "feeds", "poll", "--data", data, "--allow-private")
	if err != nil || !strings.Contains(out, "200 new items") {
		t.Fatalf("feeds poll: %v\n%s", err, out)
	}
	if !strings.Contains(out, "  cut: "+site.URL+"/big.rss: 50 items past feeds.max_items (200) not read\n") {
		t.Errorf("feeds poll does not say 50 items were past the limit of 200:\n%s", out)
	}
	for _, show := range [][]string{{"feeds", "list"}, {"feeds", "explain", site.URL + "/big.rss"}} {
		if out, _, err := run(t, append(show, "--data", data)...); err != nil || !strings.Contains(out, "50 items past feeds.max_items (200) not read") {
			t.Errorf("%s does not show the cut: %v\n%s", strings.Join(show, " "), err, out)
		}
	}
	if !strings.Contains(logged, "feed items past feeds.max_items not offered") || !strings.Contains(logged, "n=50 limit=200") {
		t.Errorf("the poll's log does not name the 50 items past the limit of 200:\n%s", logged)
	}
	out, _, err = run(t, "queue", "--data", data, "--limit", "1000")
	if err != nil {
		t.Fatalf("queue: %v\n%s", err, out)
	}
	if n := strings.Count(out, site.URL+"/posts/"); n != 200 || !strings.Contains(out, site.URL+"/posts/199\n") || strings.Contains(out, site.URL+"/posts/200\n") {
		t.Errorf("%d item links queued, want the 200 of the items read:\n%.2000s", n, out)
	}
}

// bigFeedSite serves /big.rss: an RSS feed of 250 items of about 100
// bytes, each linking to its post on the site.
func bigFeedSite(t *testing.T) *httptest.Server {
	site := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/big.rss" {
			http.NotFound(w, r)
			return
		}
		w.Header().Set("Content-Type", "application/rss+xml")
		fmt.Fprint(w, `<?xml version="1.0"?><rss version="2.0"><channel><title>big</title>`)
		for i := range 250 {
			fmt.Fprintf(w, `<item><title>%d</title><guid>%d</guid><link>http://%s/posts/%d</link></item>`, i, i, r.Host, i)
		}
		fmt.Fprint(w, `</channel></rss>`)
	}))
	t.Cleanup(site.Close)
	return site
}

// A feed over feeds.max_bytes, which the feed aggregator refuses whole,
// offers the crawler none of its links either: they used to be queued.
func TestFeedsPollQueuesNoLinkOfAFeedOverMaxBytes(t *testing.T) {
	t.Setenv("DELTAQ_FEEDS_MAX_BYTES", "4096")
	site := bigFeedSite(t)
	data := t.TempDir()
	if out, _, err := run(t, "feeds", "add", site.URL+"/big.rss", "--data", data); err != nil {
		t.Fatalf("feeds add: %v\n%s", err, out)
	}
	out, logged, _ := run(t, "feeds", "poll", "--data", data, "--allow-private")
	if !strings.Contains(out, "limit 4096 (feeds.max_bytes)") {
		t.Errorf("feeds poll does not name the limit of 4096 bytes:\n%s", out)
	}
	if !strings.Contains(logged, "feed over feeds.max_bytes: its links not offered") {
		t.Errorf("the poll's log does not say the feed's links were not offered:\n%s", logged)
	}
	out, _, err := run(t, "queue", "--data", data, "--limit", "1000")
	if err != nil {
		t.Fatalf("queue: %v\n%s", err, out)
	}
	if n := strings.Count(out, site.URL+"/posts/"); n != 0 {
		t.Errorf("%d item links of a feed over feeds.max_bytes queued, want none:\n%.2000s", n, out)
	}
}

// TestFeedsExplainSaysHowOldTheHistoryIs: explain says how many postings a
// feed's history keeps and when the newest was posted, so that a rate far
// below what its items suggest is seen to come from old postings.
func TestFeedsExplainSaysHowOldTheHistoryIs(t *testing.T) {
	site := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/rss+xml")
		fmt.Fprint(w, `<?xml version="1.0"?><rss version="2.0"><channel><title>old</title>`+
			`<item><guid>2</guid><pubDate>Wed, 02 Jun 2021 10:30:00 GMT</pubDate></item>`+
			`<item><guid>1</guid><pubDate>Tue, 01 Jun 2021 08:00:00 GMT</pubDate></item></channel></rss>`)
	}))
	defer site.Close()
	data := t.TempDir()
	u := site.URL + "/old.rss"
	if out, _, err := run(t, "feeds", "add", u, "--data", data); err != nil {
		t.Fatalf("feeds add: %v\n%s", err, out)
	}
	if out, _, err := run(t, "feeds", "explain", u, "--data", data); err != nil || !strings.Contains(out, "\nposting history: none yet\n") {
		t.Errorf("feeds explain before a poll: %v\n%s, want no history", err, out)
	}
	if out, _, err := run(t, "feeds", "poll", "--data", data, "--allow-private"); err != nil || !strings.Contains(out, "2 new items") {
		t.Fatalf("feeds poll: %v\n%s", err, out)
	}
	out, _, err := run(t, "feeds", "explain", u, "--data", data)
	if want := "\nposting history: 2 postings kept (feeds.history_kept), the newest at 2021-06-02T10:30:00Z\n"; err != nil || !strings.Contains(out, want) {
		t.Errorf("feeds explain after the poll: %v\n%s, want %q", err, out, want)
	}
}
