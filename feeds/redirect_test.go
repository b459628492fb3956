package feeds

import (
	"fmt"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/cockroachdb/pebble/v2/vfs"

	"github.com/deltaq/deltaq/internal/killtest"
	"github.com/deltaq/deltaq/repo"
)

// fetchedAs stores what the crawler would after fetching u at at: a 200
// storing body as a new copy, or, with a redirect status, the redirect
// to target it recorded and queued.
func fetchedAs(t *testing.T, db *repo.DB, u string, at time.Time, status int, target string, body []byte) {
	t.Helper()
	b := db.NewBatch(t.Context())
	defer b.Close()
	p := &repo.Page{URL: u, State: repo.StateLive, LastFetch: at, LastOutcome: repo.OutcomeOK, HTTPStatus: status}
	if target != "" {
		p.State, p.LastOutcome, p.RedirectTo = repo.StateRedirect, repo.OutcomeRedirect, target
	} else {
		p.Version = at
		if err := b.AddVersion(u, &repo.Version{FetchedAt: at, ContentType: "application/atom+xml", Body: body}); err != nil {
			t.Fatal(err)
		}
	}
	if err := b.PutPage(p); err != nil {
		t.Fatal(err)
	}
	if err := b.Commit(); err != nil {
		t.Fatal(err)
	}
}

// A permanent redirect moves the subscription: the feed keeps its id,
// settings, history and items, its URL becomes the target, the URL it
// had is kept, and the target's fetch is read at once; the feed is found
// by either URL, and subscribing to the target again is the same feed.
func TestAPermanentRedirectMovesTheFeed(t *testing.T) {
	for _, status := range []int{301, 308} {
		s, db := openStore(t, vfs.NewMem(), "")
		const a, b = "http://old.test/feed", "http://new.test/feed.atom"
		w := 3.5
		f, _, err := s.Add(t.Context(), a, AddOptions{Weight: &w}, t0.Add(-time.Hour))
		if err != nil {
			t.Fatal(err)
		}
		posted := []time.Time{t0.Add(-3 * time.Hour), t0.Add(-2 * time.Hour)}
		fetchedAs(t, db, a, t0, 200, "", atom(posted...))
		if up, _, err := s.Absorb(t.Context(), f.ID); err != nil || len(up.New) != 2 {
			t.Fatalf("HTTP %d: first poll: %d new, %v", status, len(up.New), err)
		}
		fetchedAs(t, db, a, t0.Add(time.Hour), status, b, nil)
		fetchedAs(t, db, b, t0.Add(time.Hour+time.Minute), 200, "", atom(append(posted, t0.Add(30*time.Minute))...))
		up, absorbed, err := s.Absorb(t.Context(), f.ID)
		if err != nil || !absorbed || len(up.Moves) != 1 || up.Moves[0].From != a || up.Moves[0].To != b || len(up.New) != 1 || up.Failed != "" {
			t.Fatalf("HTTP %d to the new URL: moves %v, %d new, failed %q, %v; want moved %s → %s and its 1 new item", status, up.Moves, len(up.New), up.Failed, err, a, b)
		}
		got, err := s.Get(f.ID)
		if err != nil || got.URL != b || got.MovedFrom != a || got.Weight != w || got.Postings != 3 || got.LastError != "" {
			t.Fatalf("HTTP %d: the moved feed: %+v, %v; want at %s, moved from %s, weight %g, 3 postings", status, got, err, b, a, w)
		}
		if items, err := s.Items(t.Context(), f.ID, time.Time{}); err != nil || len(items) != 3 {
			t.Errorf("HTTP %d: items after the move: %d, %v; want the 3", status, len(items), err)
		}
		for _, u := range []string{a, b} {
			if id, err := s.Lookup(u); err != nil || id != f.ID {
				t.Errorf("HTTP %d: Lookup(%s) = %q, %v; want the feed %s", status, u, id, err, f.ID)
			}
		}
		if again, isNew, err := s.Add(t.Context(), b, AddOptions{}, t0.Add(2*time.Hour)); err != nil || isNew || again.ID != f.ID || again.Weight != w {
			t.Errorf("HTTP %d: subscribing to the new URL: id %s, new %v, weight %g, %v; want the moved feed", status, again.ID, isNew, again.Weight, err)
		}
		// The next poll reads the new URL.
		fetchedAs(t, db, b, t0.Add(3*time.Hour), 200, "", atom(append(posted, t0.Add(30*time.Minute), t0.Add(150*time.Minute))...))
		if up, _, err := s.Absorb(t.Context(), f.ID); err != nil || len(up.New) != 1 || len(up.Moves) != 0 {
			t.Errorf("HTTP %d: the poll after the move: %d new, moves %v, %v; want 1 new from %s", status, len(up.New), up.Moves, err, b)
		}
		if list, err := s.Subscriptions(t.Context()); err != nil || len(list) != 1 {
			t.Errorf("HTTP %d: %d subscriptions, %v; want the one", status, len(list), err)
		}
		if _, _, err := s.Remove(t.Context(), f.ID); err != nil {
			t.Fatal(err)
		}
		if n := countKeys(t, db, movedPrefix); n != 0 {
			t.Errorf("HTTP %d: %d URL index keys after Remove, want none", status, n)
		}
		db.Close()
	}
}

// A redirect loop (A → B → A) moves the feed once, to B, and no further:
// every poll after it says it is a loop, naming the URLs, and the feed
// stays at B.
func TestARedirectLoopDoesNotMoveForever(t *testing.T) {
	s, db := openStore(t, vfs.NewMem(), "")
	defer db.Close()
	const a, b = "http://x.test/a", "http://x.test/b"
	f, _, err := s.Add(t.Context(), a, AddOptions{}, t0)
	if err != nil {
		t.Fatal(err)
	}
	for i := range 4 {
		at := t0.Add(time.Duration(i+1) * time.Hour)
		fetchedAs(t, db, a, at, 301, b, nil)
		fetchedAs(t, db, b, at.Add(time.Minute), 301, a, nil)
		up, _, err := s.Absorb(t.Context(), f.ID)
		if err != nil {
			t.Fatal(err)
		}
		want := "redirect loop (" + a + " → " + b + " → " + a + ")"
		if !strings.Contains(up.Failed, want) {
			t.Errorf("poll %d: failed %q, want %q", i, up.Failed, want)
		}
		if got, _ := s.Get(f.ID); got.URL != b || !strings.Contains(got.LastError, want) {
			t.Errorf("poll %d: feed at %s, last error %q; want it at %s, saying %q", i, got.URL, got.LastError, b, want)
		}
	}
	// A chain longer than the limit stops where it is.
	s.LimitRedirects(1)
	const c, d = "http://x.test/c", "http://x.test/d"
	g, _, err := s.Add(t.Context(), c, AddOptions{}, t0)
	if err != nil {
		t.Fatal(err)
	}
	fetchedAs(t, db, c, t0.Add(time.Hour), 308, d, nil)
	fetchedAs(t, db, d, t0.Add(time.Hour+time.Minute), 301, "http://x.test/e", nil)
	up, _, err := s.Absorb(t.Context(), g.ID)
	if want := "more than crawler.limits.max_redirects = 1 redirects in a row ("; err != nil || len(up.Moves) != 1 || !strings.Contains(up.Failed, want) {
		t.Errorf("a chain over the limit: moves %v, failed %q, %v; want one move, then %q", up.Moves, up.Failed, err, want)
	}
}

// A redirect to another subscription's URL is not followed: the error
// names that feed, and both stay as they were.
func TestARedirectToAnotherSubscriptionIsRefused(t *testing.T) {
	s, db := openStore(t, vfs.NewMem(), "")
	defer db.Close()
	const a, b = "http://x.test/a", "http://y.test/b"
	ids := subscribe(t, s, a, b)
	fetchedAs(t, db, a, t0.Add(time.Hour), 301, b, nil)
	up, _, err := s.Absorb(t.Context(), ids[0])
	if want := b + " is the URL of feed " + ids[1] + " already"; err != nil || len(up.Moves) != 0 || !strings.Contains(up.Failed, want) {
		t.Fatalf("a redirect to %s: moves %v, failed %q, %v; want %q", b, up.Moves, up.Failed, err, want)
	}
	for i, u := range []string{a, b} {
		if got, err := s.Get(ids[i]); err != nil || got.URL != u || got.MovedFrom != "" {
			t.Errorf("feed %s: at %s, moved from %q, %v; want it at %s, never moved", ids[i], got.URL, got.MovedFrom, err, u)
		}
	}
	if n := countKeys(t, db, movedPrefix); n != 0 {
		t.Errorf("%d URL index keys after a refused move, want none", n)
	}
}

// A temporary redirect keeps the URL: the target's copy is read if the
// crawler fetched it since the feed's last poll, else the poll says so
// and awaits the target, which is read once fetched.
func TestATemporaryRedirectReadsTheTargetAndStays(t *testing.T) {
	s, db := openStore(t, vfs.NewMem(), "")
	defer db.Close()
	const a, b = "http://x.test/a", "http://x.test/elsewhere"
	f, _, err := s.Add(t.Context(), a, AddOptions{}, t0)
	if err != nil {
		t.Fatal(err)
	}
	fetchedAs(t, db, a, t0.Add(time.Hour), 302, b, nil)
	fetchedAs(t, db, b, t0.Add(time.Hour+time.Minute), 200, "", atom(t0.Add(-time.Hour), t0.Add(-time.Minute)))
	up, _, err := s.Absorb(t.Context(), f.ID)
	if err != nil || len(up.New) != 2 || len(up.Moves) != 0 || up.Failed != "" {
		t.Fatalf("a 302 to a target fetched since: %d new, moves %v, failed %q, %v; want its 2 items, no move", len(up.New), up.Moves, up.Failed, err)
	}
	fetchedAs(t, db, a, t0.Add(2*time.Hour), 307, b, nil)
	up, _, err = s.Absorb(t.Context(), f.ID)
	if want := "a temporary redirect, and the crawler has not fetched the target"; err != nil || !strings.Contains(up.Failed, want) || up.Awaits != b {
		t.Errorf("a 307 to a target not fetched since: failed %q, awaits %q, %v; want %q, awaiting %s", up.Failed, up.Awaits, err, want, b)
	}
	// The target fetched since is read, though the URL was not fetched again.
	fetchedAs(t, db, b, t0.Add(2*time.Hour+time.Minute), 200, "", atom(t0.Add(-time.Hour), t0.Add(-time.Minute), t0.Add(time.Hour)))
	up, absorbed, err := s.Absorb(t.Context(), f.ID)
	if err != nil || !absorbed || len(up.New) != 1 || up.Failed != "" {
		t.Errorf("the awaited target fetched: absorbed %v, %d new, failed %q, %v; want its 1 new item", absorbed, len(up.New), up.Failed, err)
	}
	if up, absorbed, err := s.Absorb(t.Context(), f.ID); err != nil || absorbed || up.Awaits != "" {
		t.Errorf("again with no fetch since: absorbed %v, awaits %q, %v; want nothing new, nothing awaited", absorbed, up.Awaits, err)
	}
	if got, _ := s.Get(f.ID); got.URL != a || got.MovedFrom != "" {
		t.Errorf("after temporary redirects: at %s, moved from %q; want it at %s", got.URL, got.MovedFrom, a)
	}
}

// failedAs stores what the crawler would after a fetch of u at at that
// brought no copy: outcome and status (robots.txt's refusal records no
// fetch time, so at is zero for it).
func failedAs(t *testing.T, db *repo.DB, u string, at time.Time, outcome repo.Outcome, status int) {
	t.Helper()
	b := db.NewBatch(t.Context())
	defer b.Close()
	if err := b.PutPage(&repo.Page{URL: u, State: repo.StateLive, LastFetch: at, LastOutcome: outcome, HTTPStatus: status}); err != nil {
		t.Fatal(err)
	}
	if err := b.Commit(); err != nil {
		t.Fatal(err)
	}
}

// A feed waiting for the target of a temporary redirect still waits after
// the store is reopened, so that a restarted poller asks for the target
// again; the wait ends when the target's fetch answers, read or failed,
// and a target robots.txt keeps the crawler from fails the poll.
func TestTheTargetAwaitedSurvivesAReopenAndEnds(t *testing.T) {
	fs := vfs.NewMem()
	s, db := openStore(t, fs, "")
	const a, b = "http://x.test/a", "http://x.test/elsewhere"
	f, _, err := s.Add(t.Context(), a, AddOptions{}, t0)
	if err != nil {
		t.Fatal(err)
	}
	fetchedAs(t, db, a, t0.Add(time.Hour), 302, b, nil)
	if up, _, err := s.Absorb(t.Context(), f.ID); err != nil || up.Awaits != b {
		t.Fatalf("a 302 to a target never fetched: awaits %q, %v; want %s", up.Awaits, err, b)
	}
	if err := db.Close(); err != nil {
		t.Fatal(err)
	}
	s, db = openStore(t, fs, "")
	defer db.Close()
	up, absorbed, err := s.Absorb(t.Context(), f.ID)
	if err != nil || absorbed || up.Awaits != b {
		t.Errorf("after a reopen, nothing fetched: absorbed %v, awaits %q, %v; want still awaiting %s", absorbed, up.Awaits, err, b)
	}
	failedAs(t, db, b, t0.Add(2*time.Hour), repo.OutcomeHTTPError, 404)
	up, absorbed, err = s.Absorb(t.Context(), f.ID)
	if want := "to " + b + ", whose fetch brought no copy (outcome http_error: HTTP 404)"; err != nil || !absorbed || !strings.Contains(up.Failed, want) || up.Awaits != "" {
		t.Errorf("the awaited target answered 404: absorbed %v, failed %q, awaits %q, %v; want a failed poll saying %q, no longer awaiting", absorbed, up.Failed, up.Awaits, err, want)
	}
	if up, absorbed, err := s.Absorb(t.Context(), f.ID); err != nil || absorbed || up.Awaits != "" {
		t.Errorf("again with no fetch since: absorbed %v, awaits %q, %v; want nothing", absorbed, up.Awaits, err)
	}
	// The URL redirects again; robots.txt now keeps the crawler from the
	// target: the poll fails at once instead of waiting for a fetch that
	// will not come.
	fetchedAs(t, db, a, t0.Add(3*time.Hour), 307, b, nil)
	failedAs(t, db, b, time.Time{}, repo.OutcomeDisallowed, 0)
	up, absorbed, err = s.Absorb(t.Context(), f.ID)
	if want := "robots.txt keeps the crawler from"; err != nil || !absorbed || !strings.Contains(up.Failed, want) || up.Awaits != "" {
		t.Errorf("a 307 to a disallowed target: absorbed %v, failed %q, awaits %q, %v; want a failed poll saying %q, not awaiting", absorbed, up.Failed, up.Awaits, err, want)
	}
	// A wait the target turns disallowed during ends in the same failure.
	fetchedAs(t, db, b, t0.Add(3*time.Hour-time.Minute), 200, "", atom(t0))
	fetchedAs(t, db, a, t0.Add(4*time.Hour), 307, b, nil)
	if up, _, err := s.Absorb(t.Context(), f.ID); err != nil || up.Awaits != b {
		t.Fatalf("a 307 to a target last fetched before the feed's last poll: awaits %q, %v; want %s", up.Awaits, err, b)
	}
	failedAs(t, db, b, time.Time{}, repo.OutcomeDisallowed, 0)
	up, absorbed, err = s.Absorb(t.Context(), f.ID)
	if want := "robots.txt keeps the crawler from"; err != nil || !absorbed || !strings.Contains(up.Failed, want) || up.Awaits != "" {
		t.Errorf("the awaited target disallowed: absorbed %v, failed %q, awaits %q, %v; want a failed poll saying %q, not awaiting", absorbed, up.Failed, up.Awaits, err, want)
	}
	if got, _ := s.Get(f.ID); got.URL != a || got.Awaits != "" {
		t.Errorf("after the waits: at %s, awaits %q; want at %s, awaiting nothing", got.URL, got.Awaits, a)
	}
}

// TestMovesSurviveKill9 moves a feed by a permanent redirect again and
// again in a child process, kills it with SIGKILL mid-stream, and checks
// that every move the child reported is there after reopening, and that
// the URL index agrees with the feed: a move is one batch.
func TestMovesSurviveKill9(t *testing.T) {
	if dir := os.Getenv("FEEDS_MOVE_KILL_CHILD"); dir != "" {
		moveChild(t, dir)
		return
	}
	dir := t.TempDir()
	cmd := killtest.Child("TestMovesSurviveKill9", "FEEDS_MOVE_KILL_CHILD", dir)
	acked := killtest.KillAfter(t, cmd, false, killtest.Prefixed("moved "), 40)
	if acked < 40 {
		t.Fatalf("child moved the feed only %d times before exiting", acked)
	}
	s, db := openStore(t, nil, dir)
	defer db.Close()
	id := IDOf(movingURL(0))
	f, err := s.Get(id)
	if err != nil {
		t.Fatalf("reopen after kill -9: %v", err)
	}
	var at int
	if _, err := fmt.Sscanf(f.URL, movingURL(-1)+"%d", &at); err != nil || at < acked {
		t.Fatalf("after %d moves acknowledged the feed is at %s, want at least %s", acked, f.URL, movingURL(acked))
	}
	if f.MovedFrom != movingURL(at-1) {
		t.Errorf("the feed at %s moved from %s, want %s", f.URL, f.MovedFrom, movingURL(at-1))
	}
	if n := countKeys(t, db, movedPrefix); n != 1 {
		t.Errorf("%d URL index keys, want the one of %s", n, f.URL)
	}
	if got, err := s.Lookup(f.URL); err != nil || got != id {
		t.Errorf("Lookup(%s) = %q, %v; want %s", f.URL, got, err, id)
	}
	if items, err := s.Items(t.Context(), id, time.Time{}); err != nil || len(items) != min(f.Postings, testConfig().SeenKept) {
		t.Errorf("%d items, %v; want one a move read, %d", len(items), err, f.Postings)
	}
}

// movingURL is the feed's URL after n moves; movingURL(-1) its prefix.
func movingURL(n int) string {
	if n < 0 {
		return "http://x.test/feed"
	}
	return fmt.Sprintf("http://x.test/feed%d", n)
}

func moveChild(t *testing.T, dir string) {
	s, db := openStore(t, nil, dir)
	defer db.Close()
	f, _, err := s.Add(t.Context(), movingURL(0), AddOptions{}, t0)
	if err != nil {
		t.Fatal(err)
	}
	var published []time.Time
	for i := 0; ; i++ {
		at := t0.Add(time.Duration(i) * time.Hour)
		published = append(published, at.Add(-time.Minute))
		fetchedAs(t, db, movingURL(i), at, 301, movingURL(i+1), nil)
		fetchedAs(t, db, movingURL(i+1), at.Add(time.Minute), 200, "", atomFrom(max(0, len(published)-20), published[max(0, len(published)-20):]))
		up, _, err := s.Absorb(t.Context(), f.ID)
		if err != nil || len(up.Moves) != 1 || up.Failed != "" {
			t.Fatalf("move %d: moves %v, failed %q, %v", i, up.Moves, up.Failed, err)
		}
		fmt.Printf("moved %d\n", i+1)
	}
}

// The URL a feed moved from is not offered by Discover: pages still
// advertise it, but it is the same feed.
func TestDiscoverDoesNotOfferTheURLAFeedMovedFrom(t *testing.T) {
	s, db := openStore(t, vfs.NewMem(), "")
	defer db.Close()
	const a, b = "http://x.test/old.xml", "http://x.test/new.xml"
	batch := db.NewBatch(t.Context())
	if err := batch.PutPage(&repo.Page{URL: "http://x.test/"}); err != nil {
		t.Fatal(err)
	}
	if err := batch.SetOutLinks("http://x.test/", []repo.Link{{URL: a, Kind: repo.LinkFeed}}); err != nil {
		t.Fatal(err)
	}
	if err := batch.Commit(); err != nil {
		t.Fatal(err)
	}
	batch.Close()
	f, _, err := s.Add(t.Context(), a, AddOptions{}, t0)
	if err != nil {
		t.Fatal(err)
	}
	fetchedAs(t, db, a, t0.Add(time.Hour), 301, b, nil)
	if up, _, err := s.Absorb(t.Context(), f.ID); err != nil || len(up.Moves) != 1 {
		t.Fatalf("the move: %v, %v", up.Moves, err)
	}
	if offers, err := s.Discover(t.Context(), 10); err != nil || len(offers) != 0 {
		t.Errorf("Discover after the move: %+v, %v; want no offer of %s", offers, err, a)
	}
}

// A redirect recorded with a target that is not an http or https URL, or
// with credentials, is not followed, and the error says which.
func TestARedirectToAURLAFeedCannotHaveIsRefused(t *testing.T) {
	for _, c := range []struct{ target, want string }{
		{"ftp://x.test/feed", "not an absolute http or https URL"},
		{"http://user:pass@x.test/feed", "it has credentials (user:pass@)"},
	} {
		s, db := openStore(t, vfs.NewMem(), "")
		const a = "http://x.test/a"
		f, _, err := s.Add(t.Context(), a, AddOptions{}, t0)
		if err != nil {
			t.Fatal(err)
		}
		fetchedAs(t, db, a, t0.Add(time.Hour), 301, c.target, nil)
		up, _, err := s.Absorb(t.Context(), f.ID)
		if err != nil || len(up.Moves) != 0 || !strings.Contains(up.Failed, "HTTP 301 to "+c.target+", not followed: "+c.want) {
			t.Errorf("a redirect to %s: moves %v, failed %q, %v; want %q", c.target, up.Moves, up.Failed, err, c.want)
		}
		if got, _ := s.Get(f.ID); got.URL != a {
			t.Errorf("a redirect to %s: the feed is at %s, want %s", c.target, got.URL, a)
		}
		db.Close()
	}
}
