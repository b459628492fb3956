package watch

import (
	"errors"
	"fmt"
	"html"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"
	"unicode"

	"github.com/deltaq/deltaq/alert"
	"github.com/deltaq/deltaq/crawler/extract"
	"github.com/deltaq/deltaq/diff"
	"github.com/deltaq/deltaq/eval/archive"
	"github.com/deltaq/deltaq/eval/replay"
	"github.com/deltaq/deltaq/eval/replay/replaytest"
	"github.com/deltaq/deltaq/index"
	"github.com/deltaq/deltaq/index/indextest"
	"github.com/deltaq/deltaq/internal/datasets"
	"github.com/deltaq/deltaq/internal/killtest"
	"github.com/deltaq/deltaq/notify"
	"github.com/deltaq/deltaq/notify/notifytest"
	"github.com/deltaq/deltaq/repo"
)

const e2eEnv = "DELTAQ_WATCH_E2E_CHILD"

// world is everything one process of the end-to-end test opens.
type world struct {
	db    *repo.DB
	ix    *index.Index
	alert *alert.Matcher
	watch *Engine
	ob    *notify.Outbox
	svc   *notify.Service
	fetch HTTPFetcher
}

func openWorld(t *testing.T, dir, addr, smtpAddr string, now time.Time) *world {
	t.Helper()
	w := &world{db: diskRepo(t, filepath.Join(dir, "db")), fetch: replayFetcher(addr)}
	ncfg := notifyConfig()
	ncfg.SMTP.Addr = smtpAddr
	w.ob = notify.NewOutbox(w.db, ncfg)
	w.svc = notify.NewService(w.ob, notify.Options{})
	m, err := index.NewMapping(index.ScoringBM25)
	if err != nil {
		t.Fatal(err)
	}
	if w.alert, err = alert.New(t.Context(), w.db, alert.Config{MaxAlerts: 100, SnippetBytes: 160}, m.AnalyzerNamed(index.AnalyzerName), indextest.Config().Limits(), w.ob, alert.Options{Clock: func() time.Time { return now }}); err != nil {
		t.Fatal(err)
	}
	if w.ix, err = index.Open(filepath.Join(dir, "ix"), indextest.Config(), w.db, index.Options{Observer: w.alert}); err != nil {
		t.Fatal(err)
	}
	if w.watch, err = New(w.db, testConfig(), w.ob, Options{Fetcher: w.fetch, Clock: func() time.Time { return now }}); err != nil {
		t.Fatal(err)
	}
	return w
}

// close closes what openWorld opened, index first (it writes the repository).
func (w *world) close(t *testing.T) {
	w.watch.Close()
	if err := errors.Join(w.ix.Close(), w.db.Close()); err != nil {
		t.Error(err)
	}
}

// ingest fetches pages over loopback and stores those whose title or text
// changed as the crawler does (page, version, change-feed entry), then
// brings the index up to date: the alerts are matched in its batches.
func (w *world) ingest(t *testing.T, urls []string, at time.Time) {
	t.Helper()
	ctx := t.Context()
	b := w.db.NewBatch(ctx)
	defer b.Close()
	for _, u := range urls {
		f, err := w.fetch.Fetch(ctx, u)
		if err != nil {
			t.Fatal(err)
		}
		base, _ := url.Parse(u)
		d, err := extract.HTML(f.Body, f.ContentType, base, testConfig().Extract)
		if err != nil {
			t.Fatal(err)
		}
		if v, err := w.db.LatestVersion(ctx, u); err == nil && v.Title == d.Title && v.Text == d.Text {
			continue
		} else if err != nil && !errors.Is(err, repo.ErrNotFound) {
			t.Fatal(err)
		}
		err = errors.Join(
			b.PutPage(&repo.Page{URL: u, State: repo.StateLive, LastOutcome: repo.OutcomeOK, HTTPStatus: 200, FirstSeen: at, LastFetch: at, Version: at, Title: d.Title, ContentType: f.ContentType}),
			b.AddVersion(u, &repo.Version{FetchedAt: at, ContentType: f.ContentType, Title: d.Title, Text: d.Text, Body: f.Body}))
		if err != nil {
			t.Fatal(err)
		}
		b.AppendChange(u, repo.ChangeUpsert, at)
	}
	if err := b.Commit(); err != nil {
		t.Fatal(err)
	}
	if _, err := w.ix.CatchUp(ctx); err != nil {
		t.Fatal(err)
	}
}

// advance is one week's work after the archive moved: crawl, index (and
// match alerts), check the watches, deliver; progress counts the steps.
func (w *world) advance(t *testing.T, urls []string, at time.Time, progress func(int)) {
	t.Helper()
	w.ingest(t, urls, at)
	progress(1)
	gs, err := w.watch.Groups(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	for _, g := range gs {
		if _, err := w.watch.Check(t.Context(), g.Key); err != nil {
			t.Fatal(err)
		}
	}
	progress(2)
	for step := 3; ; step++ {
		st, err := w.svc.Once(t.Context())
		if err != nil {
			t.Fatal(err)
		}
		if st.Delivered+st.Failed == 0 {
			return
		}
		progress(step)
	}
}

// e2ePages picks a digitalgov page whose text changes from week wk to
// wk+1 (with words added) and a few that do not change.
func e2ePages(t *testing.T, a *archive.Archive, wk int, host string) (changed string, same []string, want diff.Result) {
	lim := testConfig().Extract
	text := func(p string, w int) (string, string) {
		pg, ok := a.Lookup(p, w)
		if !ok {
			t.Fatalf("%s not in week %d", p, w)
		}
		u, _ := url.Parse(host + p)
		d, err := extract.HTML(pg.Body, "text/html; charset=utf-8", u, lim)
		if err != nil {
			t.Fatal(err)
		}
		return d.Title, d.Text
	}
	for _, p := range a.Changed(wk + 1) {
		title, before := text(p, wk)
		_, after := text(p, wk+1)
		d := diff.Text(before, after, testConfig().Diff)
		if len(d.Added()) > 0 && len(strings.Fields(titleQuery(title))) == 2 && !strings.Contains(p, "page") {
			changed, want = host+p, d
			break
		}
	}
	for _, pg := range a.Week(wk) {
		if len(same) < 5 && !slices.Contains(a.Changed(wk+1), pg.URL) && !slices.Contains(a.Deleted(wk+1), pg.URL) {
			same = append(same, host+pg.URL)
		}
	}
	if changed == "" {
		t.Fatalf("no page of week %d changes with added words", wk+1)
	}
	return changed, same, want
}

// titleQuery is the page title's first two words made only of letters.
func titleQuery(title string) string {
	var ws []string
	for _, w := range strings.Fields(title) {
		if strings.IndexFunc(w, func(r rune) bool { return !unicode.IsLetter(r) }) < 0 && len(ws) < 2 {
			ws = append(ws, w)
		}
	}
	return strings.Join(ws, " ")
}

// TestEndToEndWeekAdvanceWithKill: a replayed archive advances one week;
// a watch and an alert fire; a webhook receiver, the watch's Atom feed and
// a real SMTP server receive the notifications with the right diff; the
// process doing the week's work is killed with SIGKILL, and after the
// restart nothing is lost or doubled.
func TestEndToEndWeekAdvanceWithKill(t *testing.T) {
	const wk = 9
	at := func(w int) time.Time { return killInstall.Add(time.Duration(w) * 7 * 24 * time.Hour) }
	if v := os.Getenv(e2eEnv); v != "" {
		var dir, addr, smtpAddr string
		if _, err := fmt.Sscanf(v, "%s %s %s", &dir, &addr, &smtpAddr); err != nil {
			t.Fatal(err)
		}
		w := openWorld(t, dir, addr, smtpAddr, at(wk+1))
		var urls []string
		for u := range strings.SplitSeq(os.Getenv(e2eEnv+"_URLS"), " ") {
			urls = append(urls, u)
		}
		w.advance(t, urls, at(wk+1), func(n int) { fmt.Println("step", n) })
		fmt.Println("step", 1<<20)
		select {}
	}
	a, rs := replaytest.Open(t, datasets.Path(t, "archives", "digitalgov-2023"), replay.Options{})
	srv := httptest.NewServer(rs)
	t.Cleanup(srv.Close)
	addr := srv.Listener.Addr().String()
	host := "http://" + a.Name() + ".test"
	changed, same, wantDiff := e2ePages(t, a, wk, host)
	urls := append([]string{changed}, same...)
	hook := notifytest.Webhooks(t)
	mail := notifytest.SMTP(t)
	dir := t.TempDir()

	// Week wk: crawl, index, install the watch and the alert.
	if err := rs.SetWeek(wk); err != nil {
		t.Fatal(err)
	}
	var watchID, alertID, alertQuery string
	func() {
		w := openWorld(t, dir, addr, mail.Addr, at(wk))
		w.ingest(t, urls, at(wk))
		targets := []notify.Target{{Kind: notify.Webhook, Addr: hook.URL}, {Kind: notify.Email, Addr: "ada@example.org"}, {Kind: notify.Feed}}
		s, err := w.watch.Install(t.Context(), Spec{User: "ada", URL: changed, Type: Any, Every: 24 * time.Hour, Notify: targets})
		if err != nil {
			t.Fatal(err)
		}
		v, err := w.db.LatestVersion(t.Context(), changed)
		if err != nil {
			t.Fatal(err)
		}
		al, err := w.alert.Add(t.Context(), alert.Alert{User: "ada", Query: titleQuery(v.Title), Notify: targets})
		if err != nil {
			t.Fatal(err)
		}
		watchID, alertID, alertQuery = s.ID, al.ID, al.Query
		if st, err := w.svc.Drain(t.Context()); err != nil || st.Delivered != 0 {
			t.Fatalf("deliveries before the week advanced: %+v, %v", st, err)
		}
		w.close(t)
	}()

	// Week wk+1, in a child killed while the receiver holds its answer to
	// the first webhook: delivered, but the child never learns it.
	if err := rs.SetWeek(wk + 1); err != nil {
		t.Fatal(err)
	}
	child := killtest.Child("TestEndToEndWeekAdvanceWithKill", e2eEnv, fmt.Sprintf("%s %s %s", dir, addr, mail.Addr))
	child.Env = append(child.Env, e2eEnv+"_URLS="+strings.Join(urls, " "))
	killWhileHeld(t, child, hook.HoldAt(1))
	before := len(hook.Hooks())
	w := openWorld(t, dir, addr, mail.Addr, at(wk+1))
	defer w.close(t)
	w.advance(t, urls, at(wk+1), func(int) {})

	hooks := hook.Hooks()
	t.Logf("the child delivered %d webhooks before the kill; %d after the restart", before, len(hooks)-before)
	if before != 1 || len(hooks) != 3 {
		t.Errorf("%d webhooks before the kill and %d in all; want 1, then the held one again and the other", before, len(hooks))
	}
	bySource := map[string][]notifytest.Hook{}
	for _, h := range hooks {
		bySource[h.Notification.Source] = append(bySource[h.Notification.Source], h)
	}
	if len(bySource) != 2 || len(keys(hooks)) != 2 {
		var got []string
		for _, h := range hooks {
			got = append(got, h.Notification.Source+" "+h.Key)
		}
		t.Fatalf("webhooks %q: want the watch and the alert, each under one key", got)
	}
	wh := bySource["watch:"+watchID]
	if len(wh) == 0 || wh[0].Notification.Diff == nil {
		t.Fatalf("%d watch notifications, none with a diff", len(wh))
	}
	wantAdded := wantDiff.ChangesOnly().Added()
	if got := wh[0].Notification.Diff.Added(); !slices.Equal(got, wantAdded) {
		t.Errorf("watch diff adds %q, want %q", got, wantAdded)
	}
	ah := bySource["alert:"+alertID]
	// The snippet, in plain text, holds the query's words.
	snippet := func(n notify.Notification) bool {
		return strings.Contains(strings.ToLower(n.Summary), strings.ToLower(strings.Fields(alertQuery)[0])) && !strings.Contains(n.Summary, "<mark>")
	}
	if len(ah) == 0 || ah[0].Notification.URL != changed || ah[0].Notification.Change != "changed page" || !snippet(ah[0].Notification) {
		t.Errorf("%d alert notifications, the first for %v; want the changed page %s with a plain snippet", len(ah), func() any {
			if len(ah) == 0 {
				return nil
			}
			return ah[0].Notification.URL + " " + ah[0].Notification.Change
		}(), changed)
	}
	for _, hs := range bySource {
		for _, h := range hs[1:] {
			if string(h.Body) != string(hs[0].Body) {
				t.Errorf("the repeat of %s differs", h.Key)
			}
		}
	}

	// The watch's Atom feed.
	raw, _, err := w.ob.Feed(t.Context(), "watch:"+watchID, "http://localhost/feeds/watch/"+watchID, time.Time{})
	if err != nil {
		t.Fatal(err)
	}
	entries := notifytest.Entries(t, raw)
	if len(entries) != 1 || entries[0].Link.Href != changed || !strings.Contains(entries[0].Content, "<ins>"+html.EscapeString(wantAdded[0])+"</ins>") {
		t.Errorf("watch feed = %+v, want one entry for %s inserting %q", entries, changed, wantAdded[0])
	}

	// E-mail: each notification once, up to repeats with the same key.
	mailKeys := map[string]string{}
	for _, m := range mail.Messages() {
		k := m.Header.Get(notify.HeaderIdempotency)
		if prev, ok := mailKeys[k]; ok && prev != m.Body {
			t.Errorf("the repeated e-mail %s differs", k)
		}
		mailKeys[k] = m.Body
	}
	if len(mailKeys) != 2 {
		t.Errorf("e-mails with %d keys, want 2", len(mailKeys))
	}
	if body := mailKeys[wh[0].Key]; !strings.Contains(body, "+ "+wantAdded[0]) {
		t.Errorf("the watch e-mail lacks %q:\n%s", "+ "+wantAdded[0], body)
	}
	if p, _ := w.ob.Pending(t.Context()); p != 0 {
		t.Errorf("%d deliveries pending", p)
	}
}
