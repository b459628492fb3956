package crawler_test

import (
	"context"
	"net/http/httptest"
	"net/url"
	"sort"
	"testing"

	"github.com/deltaq/deltaq/crawler/extract"
	"github.com/deltaq/deltaq/eval/archive"
	"github.com/deltaq/deltaq/eval/replay"
	"github.com/deltaq/deltaq/eval/replay/replaytest"
	"github.com/deltaq/deltaq/internal/datasets"
	"github.com/deltaq/deltaq/repo"
)

// reachable walks an archive week breadth-first from "/" over the
// archive's own links (same host, existing that week), with the same
// extractor the crawler uses.
func reachable(t *testing.T, a *archive.Archive, week int, host string) map[string]bool {
	t.Helper()
	seen := map[string]bool{"/": true}
	queue := []string{"/"}
	lim := extract.Limits{MaxLinks: 100000, MaxTextBytes: 1 << 20, MaxDepth: 512, MaxNodes: 1 << 20}
	for len(queue) > 0 {
		p := queue[0]
		queue = queue[1:]
		page, ok := a.Lookup(p, week)
		if !ok {
			continue
		}
		base, _ := url.Parse("http://" + host + p)
		doc, err := extract.HTML(page.Body, "text/html; charset=utf-8", base, lim)
		if err != nil {
			t.Fatal(err)
		}
		for _, l := range doc.Links {
			u, err := url.Parse(l.URL)
			if err != nil || u.Host != host {
				continue
			}
			path := u.EscapedPath()
			if _, exists := a.Lookup(path, week); exists && !seen[path] {
				seen[path] = true
				queue = append(queue, path)
			}
		}
	}
	return seen
}

func TestCrawlOfReplayFetchesEveryReachablePageExactlyOnce(t *testing.T) {
	a, srvReplay := replaytest.Open(t, datasets.Path(t, "archives", "tldr-en"), replay.Options{})
	var log requestLog
	srv := httptest.NewServer(log.wrap(srvReplay))
	defer srv.Close()

	const host = "tldr-en.test"
	want := reachable(t, a, 0, host)
	if len(want) < 6000 {
		t.Fatalf("breadth-first walk found %d pages; the archive has %d in week 0", len(want), a.Len(0))
	}

	cfg := defaults(t)
	loopback(cfg, srv, host)
	unpolite(cfg, 8, host)
	cfg.Crawler.Politeness.Global = 8
	cfg.Crawler.Sitemaps = false // only what links reach, to compare with the walk
	e := newEnv(t, cfg, t.TempDir(), nil)
	sum := e.crawl(t, "http://"+host+"/")

	got := map[string]bool{}
	for p, err := range e.db.Pages(context.Background()) {
		if err != nil {
			t.Fatal(err)
		}
		if p.State != repo.StateLive {
			t.Errorf("%s: state %s (%s), want live", p.URL, p.State, p.LastOutcome)
			continue
		}
		u, _ := url.Parse(p.URL)
		got[u.EscapedPath()] = true
	}
	var missing, extra []string
	for p := range want {
		if !got[p] {
			missing = append(missing, p)
		}
	}
	for p := range got {
		if !want[p] {
			extra = append(extra, p)
		}
	}
	sort.Strings(missing)
	sort.Strings(extra)
	if len(missing) > 0 || len(extra) > 0 {
		t.Fatalf("crawled set differs from the walk: %d missing %v, %d extra %v", len(missing), first(missing, 5), len(extra), first(extra, 5))
	}
	// Every page is fetched successfully exactly once. A request beyond that
	// is only acceptable as a retry after a failed attempt the crawler
	// recorded (a transient error on a loaded machine), and is logged.
	perPath := map[string]int{}
	for _, r := range log.all() {
		perPath[r.path]++
	}
	retries := 0
	for p, n := range perPath {
		if n == 1 || p == "/robots.txt" {
			continue
		}
		hist, err := e.db.FetchLog(context.Background(), "http://"+host+p)
		if err != nil {
			t.Fatal(err)
		}
		ok, failed := 0, 0
		for _, h := range hist {
			if h.Outcome == repo.OutcomeOK {
				ok++
			} else {
				failed++
				t.Logf("%s: attempt at %s failed: %s", p, h.At.Format("15:04:05.000"), h.Outcome)
			}
		}
		if ok != 1 || failed != n-1 {
			t.Errorf("%s requested %d times: %d successful and %d failed attempts recorded, want 1 success", p, n, ok, failed)
		}
		retries += n - 1
	}
	if int(sum.New) != len(want) || sum.Fetched() != int64(len(want)+retries) {
		t.Errorf("summary: %d new of %d fetched, want %d new and %d retries\n%s", sum.New, sum.Fetched(), len(want), retries, sum)
	}
	// A client-side failure (a read deadline on a loaded machine) may
	// follow a 200 the server sent, so retries can add to its count.
	if st := srvReplay.Stats().Total(); st.OK-st.Robots-st.Sitemaps != int64(len(want)+retries) || st.Robots != 1 {
		t.Errorf("server answered %d pages and %d robots.txt with 200, want %d and 1", st.OK-st.Robots-st.Sitemaps, st.Robots, len(want)+retries)
	}
}

func first(s []string, n int) []string { return s[:min(n, len(s))] }
