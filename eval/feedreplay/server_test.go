package feedreplay

import (
	"fmt"
	"io"
	"math"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/deltaq/deltaq/eval/feedtrace"
	"github.com/deltaq/deltaq/feeds"
	"github.com/deltaq/deltaq/internal/clock"
	"github.com/deltaq/deltaq/internal/datasets"
)

func get(t *testing.T, ts *httptest.Server, path, etag string) (*http.Response, []byte) {
	t.Helper()
	req, _ := http.NewRequestWithContext(t.Context(), http.MethodGet, ts.URL+path, nil)
	if etag != "" {
		req.Header.Set("If-None-Match", etag)
	}
	res, err := ts.Client().Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	body, _ := io.ReadAll(res.Body)
	return res, body
}

func TestFeedsShowTheirPostingsUpToTheClock(t *testing.T) {
	tr, err := feedtrace.Load(t.Context(), datasets.Path(t, "feeds"))
	if err != nil {
		t.Fatal(err)
	}
	f := tr.Feeds[0]
	// k: a posting after which the next comes later (not in the same push).
	k := 30
	for !f.Postings[k+1].After(f.Postings[k]) {
		k++
	}
	clk := clock.NewManual(f.Postings[k])
	srv, err := New(tr, Options{Now: clk.Now, Items: 20})
	if err != nil {
		t.Fatal(err)
	}
	ts := httptest.NewServer(srv)
	defer ts.Close()
	path := "/" + f.Name + ".atom"
	res, body := get(t, ts, path, "")
	if res.StatusCode != 200 {
		t.Fatalf("status %d", res.StatusCode)
	}
	p, err := feeds.Parse(body, 1<<20, 100)
	if err != nil {
		t.Fatal(err)
	}
	// Postings 0..k are out: the feed shows the latest 20, newest first.
	if len(p.Items) != 20 || p.Items[0].Key != fmt.Sprintf("g:urn:deltaq:feed:%s:%d", f.Name, k) || !p.Items[0].Published.Equal(f.Postings[k]) {
		t.Fatalf("%d items, newest %s published %s; want 20, newest posting %d at %s", len(p.Items), p.Items[0].Key, p.Items[0].Published, k, f.Postings[k])
	}
	for _, it := range p.Items {
		if it.Published.After(clk.Now()) {
			t.Fatalf("item %s published %s after the replayed clock %s", it.Key, it.Published, clk.Now())
		}
	}
	etag := res.Header.Get("ETag")
	if res, _ := get(t, ts, path, etag); res.StatusCode != http.StatusNotModified {
		t.Fatalf("unchanged feed with its ETag: status %d, want 304", res.StatusCode)
	}
	clk.Set(f.Postings[len(f.Postings)-1])
	res, body = get(t, ts, path, etag)
	if res.StatusCode != 200 || res.Header.Get("ETag") == etag {
		t.Fatalf("after new postings: status %d, etag %s (was %s)", res.StatusCode, res.Header.Get("ETag"), etag)
	}
	if p, err := feeds.Parse(body, 1<<20, 100); err != nil || !p.Items[0].Published.Equal(f.Postings[len(f.Postings)-1]) {
		t.Fatalf("newest item after the clock moved: %v, %v", p, err)
	}
	if res, _ := get(t, ts, "/no/such.atom", ""); res.StatusCode != 404 {
		t.Errorf("unknown feed: status %d", res.StatusCode)
	}
}

func TestSpeedRunsTheTraceFaster(t *testing.T) {
	wall := time.Date(2030, 1, 1, 0, 0, 0, 0, time.UTC)
	start := time.Date(2025, 3, 3, 0, 0, 0, 0, time.UTC)
	now := Speed(start, 3600, func() time.Time { return wall })
	wall = wall.Add(10 * time.Second)
	if got := now(); !got.Equal(start.Add(10 * time.Hour)) {
		t.Fatalf("10 s at speed 3600 → %s, want 10 h after start", got.Sub(start))
	}
}

// TestSpeedStopsWhereDurationsEnd: at the fastest speed, long enough for
// the replayed time to pass what a time.Duration holds, the clock stays
// at its last instant instead of wrapping round to the past (it read
// 1732 at --speed 1e10).
func TestSpeedStopsWhereDurationsEnd(t *testing.T) {
	wall := time.Date(2030, 1, 1, 0, 0, 0, 0, time.UTC)
	start := time.Date(2025, 3, 3, 0, 0, 0, 0, time.UTC)
	now := Speed(start, MaxSpeed, func() time.Time { return wall })
	wall = wall.Add(time.Hour) // 114 years replayed
	if got := now(); !got.Equal(start.Add(time.Duration(MaxSpeed) * time.Hour)) {
		t.Fatalf("an hour on: %s", got)
	}
	last := start.Add(math.MaxInt64)
	for _, after := range []time.Duration{2 * time.Hour, 1000 * time.Hour} { // 342 years, then far past
		wall = wall.Add(after)
		if got := now(); !got.Equal(last) {
			t.Fatalf("%s more of wall time: %s, want %s", after, got, last)
		}
	}
}

// TestConditionalGetMatchesWeakAndAnyTags: If-None-Match compares entity
// tags weakly and "*" matches any feed there is (RFC 9110 §13.1.2); a
// weakened tag of an unchanged feed, or "*", got the whole feed again.
func TestConditionalGetMatchesWeakAndAnyTags(t *testing.T) {
	tr, err := feedtrace.Load(t.Context(), datasets.Path(t, "feeds"))
	if err != nil {
		t.Fatal(err)
	}
	f := tr.Feeds[0]
	srv, err := New(tr, Options{Now: clock.NewManual(f.Postings[30]).Now, Items: 20})
	if err != nil {
		t.Fatal(err)
	}
	ts := httptest.NewServer(srv)
	defer ts.Close()
	path := "/" + f.Name + ".atom"
	res, _ := get(t, ts, path, "")
	etag := res.Header.Get("ETag")
	for _, inm := range [][]string{{"W/" + etag}, {"*"}, {`"other", W/` + etag}} {
		req, _ := http.NewRequestWithContext(t.Context(), http.MethodGet, ts.URL+path, nil)
		req.Header["If-None-Match"] = inm
		res, err := ts.Client().Do(req)
		if err != nil {
			t.Fatal(err)
		}
		res.Body.Close()
		if res.StatusCode != http.StatusNotModified {
			t.Errorf("If-None-Match %q for an unchanged feed (ETag %s): status %d, want 304", inm, etag, res.StatusCode)
		}
	}
}
