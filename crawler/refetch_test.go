package crawler_test

import (
	"context"
	"testing"

	"github.com/deltaq/deltaq/eval/archive/archivetest"
	"github.com/deltaq/deltaq/repo"
)

// TestRefetchKeepsUnchangedPagesAndVersionsChangedOnes crawls week 0 of a
// small archive, moves the replay to week 1 and re-fetches every page: a
// 304 leaves the stored version alone, a changed body adds a version, and
// a deleted page goes and leaves the index through the change feed. In
// week 2 the deleted page comes back byte for byte: the crawler must not
// send the gone copy's validators (a 304 would keep it gone).
func TestRefetchKeepsUnchangedPagesAndVersionsChangedOnes(t *testing.T) {
	home := `<html><title>home</title><body><a href="/same.html">same</a> <a href="/edit.html">edit</a> <a href="/gone.html">gone</a></body></html>`
	fx := archivetest.Fixture{Name: "mini", Weeks: 3, Intervals: []archivetest.Interval{
		{URL: "/", First: 0, Last: 2, Body: home},
		{URL: "/edit.html", First: 0, Last: 0, Body: "<html><title>edit</title><body>the first text of the page</body></html>"},
		{URL: "/edit.html", First: 1, Last: 2, Body: "<html><title>edit</title><body>the second, rewritten text</body></html>"},
		{URL: "/gone.html", First: 0, Last: 0, Body: "<html><title>gone</title><body>soon deleted</body></html>"},
		{URL: "/gone.html", First: 2, Last: 2, Body: "<html><title>gone</title><body>soon deleted</body></html>"},
		{URL: "/same.html", First: 0, Last: 2, Body: "<html><title>same</title><body>never changes</body></html>"},
	}}
	rs, srv := serveFixture(t, fx)

	cfg := defaults(t)
	loopback(cfg, srv, "mini.test")
	unpolite(cfg, 2, "mini.test")
	cfg.Crawler.Sitemaps = false
	cfg.Frontier.Split.Recrawl = 1
	cfg.Frontier.Split.Monitor = 0 // no feeds or watches to poll
	cfg.Frontier.Spread = false
	e := newEnv(t, cfg, t.TempDir(), nil)
	e.crawl(t, "http://mini.test/")
	seq0 := e.db.LastChangeSeq()
	if seq0 != 4 {
		t.Fatalf("week 0 appended %d changes to the feed, want one per page (4)", seq0)
	}

	if err := rs.SetWeek(1); err != nil {
		t.Fatal(err)
	}
	n, err := e.f.Plan(context.Background())
	if err != nil || n != 4 {
		t.Fatalf("Plan = %d, %v; want all 4 pages", n, err)
	}
	sum := e.crawl(t)
	if sum.Changed != 1 || sum.Unchanged != 2 {
		t.Errorf("week 1 re-fetch: %d changed, %d unchanged, want 1 and 2", sum.Changed, sum.Unchanged)
	}

	ctx := context.Background()
	for _, c := range []struct {
		path     string
		versions int
		outcome  repo.Outcome
		state    repo.PageState
	}{
		{"/", 1, repo.OutcomeNotModified, repo.StateLive},
		{"/same.html", 1, repo.OutcomeNotModified, repo.StateLive},
		{"/edit.html", 2, repo.OutcomeOK, repo.StateLive},
		{"/gone.html", 1, repo.OutcomeGone, repo.StateGone},
	} {
		u := "http://mini.test" + c.path
		p, err := e.db.Page(u)
		if err != nil {
			t.Fatal(err)
		}
		vs, err := e.db.Versions(ctx, u, true)
		if err != nil {
			t.Fatal(err)
		}
		if len(vs) != c.versions || p.LastOutcome != c.outcome || p.State != c.state {
			t.Errorf("%s: %d versions, outcome %s, state %s; want %d, %s, %s", c.path, len(vs), p.LastOutcome, p.State, c.versions, c.outcome, c.state)
		}
		log, err := e.db.FetchLog(ctx, u)
		if err != nil || len(log) != 2 {
			t.Fatalf("%s: fetch log %v, %v", c.path, log, err)
		}
		if changed := log[1].Changed; changed != (c.path == "/edit.html") {
			t.Errorf("%s: week 1 fetch recorded changed=%v", c.path, changed)
		}
	}
	edit, _ := e.db.FetchLog(ctx, "http://mini.test/edit.html")
	if d := edit[1].Difference; d <= 0 || d > 1 {
		t.Errorf("edit.html shingle difference %v, want in (0, 1]", d)
	}
	changes, err := e.db.Changes(ctx, seq0, 10)
	if err != nil {
		t.Fatal(err)
	}
	kinds := map[string]repo.ChangeKind{}
	for _, ch := range changes {
		kinds[ch.URL] = ch.Kind
	}
	if len(changes) != 2 || kinds["http://mini.test/edit.html"] != repo.ChangeUpsert || kinds["http://mini.test/gone.html"] != repo.ChangeDelete {
		t.Errorf("week 1 change feed = %+v, want an upsert of edit.html and a delete of gone.html", changes)
	}

	if err := rs.SetWeek(2); err != nil {
		t.Fatal(err)
	}
	if _, err := e.f.Plan(ctx); err != nil {
		t.Fatal(err)
	}
	seq1 := e.db.LastChangeSeq()
	e.crawl(t)
	back, err := e.db.Page("http://mini.test/gone.html")
	if err != nil {
		t.Fatal(err)
	}
	if back.State != repo.StateLive || back.LastOutcome != repo.OutcomeOK || !back.Indexable() {
		t.Errorf("gone.html back in week 2: outcome %s, state %s, indexable %v; want ok, live, true", back.LastOutcome, back.State, back.Indexable())
	}
	changes, err = e.db.Changes(ctx, seq1, 10)
	if err != nil {
		t.Fatal(err)
	}
	if len(changes) != 1 || changes[0].URL != "http://mini.test/gone.html" || changes[0].Kind != repo.ChangeUpsert {
		t.Errorf("week 2 change feed = %+v, want one upsert of gone.html", changes)
	}
}
