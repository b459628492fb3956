package watch

import (
	"errors"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/deltaq/deltaq/notify"
)

// TestFailedChecksAreKeptInTheHistory: checks of a page that answers 503,
// then is served as a PDF, are kept in its sentinel's history beside its
// changes, consecutive ones with the same error as one entry; a change or
// a successful check in between starts a new entry; failures are bounded
// apart from the changes and notify no one; a reopened engine reads them.
func TestFailedChecksAreKeptInTheHistory(t *testing.T) {
	db := openRepo(t)
	s := newSite(t)
	clk := newClock(t0)
	ob := notify.NewOutbox(db, notifyConfig())
	e := newEngine(t, db, ob, clk, Options{})
	u := s.set("/a", htmlPage(article))
	sn, err := e.Install(t.Context(), Spec{URL: u, Type: Any, Every: time.Hour, Notify: []notify.Target{{Kind: notify.Feed}}})
	if err != nil {
		t.Fatal(err)
	}
	p := NewUrgencyPlanner(nil)
	ro := RunOptions{Tick: time.Minute, Budget: 10}
	run := func(d time.Duration) {
		t.Helper()
		for end := clk.now().Add(d); clk.now().Before(end); clk.add(ro.Tick) {
			if err := e.runTick(t.Context(), p, ro); err != nil {
				t.Fatal(err)
			}
		}
	}
	failures := func() []Failure {
		t.Helper()
		fs, err := e.Failures(t.Context(), sn.ID)
		if err != nil {
			t.Fatal(err)
		}
		return fs
	}

	// Due at 1h; failing at 1h, 3h and 7h (back-off 2h, 4h).
	s.answer("/a", http.StatusServiceUnavailable)
	run(8 * time.Hour)
	fs := failures()
	if len(fs) != 1 || fs[0].Count != 3 || fs[0].Kind != FailStatus || !strings.Contains(fs[0].Error, "status 503") ||
		!fs[0].First.Equal(t0.Add(time.Hour)) || !fs[0].Last.Equal(t0.Add(7*time.Hour)) {
		t.Fatalf("after three 503s: %+v; want one entry of 3, status 503, from 1h to 7h", fs)
	}

	// A PDF is another failure: a second entry.
	s.answer("/a", 0)
	s.serveAs("/a", "application/pdf")
	clk.add(8 * time.Hour)
	if _, err := e.Check(t.Context(), u); err == nil {
		t.Fatal("check of a PDF succeeded")
	}
	if fs = failures(); len(fs) != 2 || fs[1].Kind != FailNotPage || fs[1].Count != 1 || !strings.Contains(fs[1].Error, `"application/pdf"`) {
		t.Fatalf("after a PDF: %+v; want a second entry, not_page", fs)
	}

	// Back and changed: one change; 503 again is a new entry, not the
	// first one's: the change came between.
	s.serveAs("/a", "")
	s.set("/a", htmlPage(repl("March 3", "April 10")(article)))
	clk.add(time.Hour)
	if res, err := e.Check(t.Context(), u); err != nil || res.Changed != 1 {
		t.Fatalf("check of the page back and changed = %+v, %v", res, err)
	}
	s.answer("/a", http.StatusServiceUnavailable)
	clk.add(time.Hour)
	e.Check(t.Context(), u)
	clk.add(time.Hour)
	e.Check(t.Context(), u)
	if fs = failures(); len(fs) != 3 || fs[2].Kind != FailStatus || fs[2].Count != 2 {
		t.Fatalf("after a change and two 503s: %+v; want a third entry of 2", fs)
	}
	// A check that finds the page unchanged ends the run too.
	s.answer("/a", 0)
	clk.add(time.Hour)
	if res, err := e.Check(t.Context(), u); err != nil || !res.Unchanged {
		t.Fatalf("check of the unchanged page = %+v, %v", res, err)
	}
	s.answer("/a", http.StatusServiceUnavailable)
	clk.add(time.Hour)
	e.Check(t.Context(), u)
	fs = failures()
	if len(fs) != 3 || fs[2].Count != 1 || fs[1].Kind != FailStatus || fs[1].Count != 2 {
		t.Fatalf("after a good check and a 503: %+v; want the oldest dropped (history_kept 3) and a new entry of 1", fs)
	}

	// Failures pushed out the oldest failure, never the change; and only
	// the change was notified.
	if h, err := e.History(t.Context(), sn.ID); err != nil || len(h) != 1 || !h[0].Fired {
		t.Errorf("History = %+v, %v; want the one change", h, err)
	}
	if es, err := ob.FeedEntries(t.Context(), "watch:"+sn.ID); err != nil || len(es) != 1 {
		t.Errorf("%d feed entries, %v; want 1, the change's", len(es), err)
	}
	e2, err := New(db, testConfig(), ob, Options{Fetcher: fetcher(4 << 20), Clock: clk.now})
	if err != nil {
		t.Fatal(err)
	}
	defer e2.Close()
	if again, err := e2.Failures(t.Context(), sn.ID); err != nil || len(again) != 3 || again[2] != fs[2] {
		t.Errorf("reopened: %+v, %v; want %+v", again, err, fs)
	}
	if err := e2.Remove(t.Context(), sn.ID); err != nil {
		t.Fatal(err)
	}
	if k := keysUnder(t, db, failurePrefix); len(k) != 0 {
		t.Errorf("after Remove, failure keys remain: %v", k)
	}
}

// TestCutTextIsKeptAsAFailure: a keywords sentinel whose page text grew
// past watch.extract.max_text_bytes keeps the cut in its history, one
// entry however the page's size changes; a whole-page sentinel on the
// same page, which reads it all, keeps none.
func TestCutTextIsKeptAsAFailure(t *testing.T) {
	db := openRepo(t)
	s := newSite(t)
	clk := newClock(t0)
	e := newEngine(t, db, nil, clk, Options{})
	u := s.set("/a", htmlPage(article))
	kw, err := e.Install(t.Context(), Spec{URL: u, Type: Keywords, Keywords: []string{"hall"}, Every: time.Hour})
	if err != nil {
		t.Fatal(err)
	}
	whole, err := e.Install(t.Context(), Spec{URL: u, Type: Any, Every: time.Hour})
	if err != nil {
		t.Fatal(err)
	}
	for i, n := range []int{200_000, 210_000} {
		s.set("/a", htmlPage("<div>"+words(n, "filler")+"</div>"))
		clk.add(time.Hour)
		if res, err := e.Check(t.Context(), u); err != nil || res.TextCut == nil {
			t.Fatalf("check %d = %+v, %v; want the text cut", i+1, res, err)
		}
	}
	fs, err := e.Failures(t.Context(), kw.ID)
	if err != nil || len(fs) != 1 || fs[0].Kind != FailTextCut || fs[0].Count != 2 || !strings.Contains(fs[0].Error, "watch.extract.max_text_bytes") {
		t.Errorf("keywords sentinel's failures = %+v, %v; want one text_cut entry of 2", fs, err)
	}
	if fs, err := e.Failures(t.Context(), whole.ID); err != nil || len(fs) != 0 {
		t.Errorf("whole-page sentinel's failures = %+v, %v; want none", fs, err)
	}
}

// A kept error is cut at maxFailureText bytes, between runes, whatever
// else the message holds.
func TestFailureTextIsCutBetweenRunes(t *testing.T) {
	for _, msg := range []string{
		strings.Repeat("a", maxFailureText-1) + "é" + strings.Repeat("b", 50),
		"\xff" + strings.Repeat("ü", maxFailureText),
		strings.Repeat("c", maxFailureText),
	} {
		got := failureText(errors.New(msg))
		body := strings.TrimSuffix(got, "…")
		if len(body) > maxFailureText || !strings.HasPrefix(msg, body) || len(body) < maxFailureText-3 || (got != body) != (len(msg) > maxFailureText) {
			t.Errorf("failureText of %d bytes = %d bytes %q…", len(msg), len(got), got[:min(20, len(got))])
		}
	}
}
