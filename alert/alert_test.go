package alert

import (
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/deltaq/deltaq/index"
	"github.com/deltaq/deltaq/index/indextest"
	"github.com/deltaq/deltaq/notify"
	"github.com/deltaq/deltaq/notify/notifytest"
	"github.com/deltaq/deltaq/repo"
)

var t0 = time.Date(2023, 3, 6, 12, 0, 0, 0, time.UTC)

// matching is a matcher over a real repository and outbox, observing the
// batches of a real index.
type matching struct {
	m     *Matcher
	db    *repo.DB
	ob    *notify.Outbox
	ix    *index.Index
	ixDir string
	now   time.Time // the matcher's clock: alerts added now are created at now
}

func newMatching(t *testing.T) *matching {
	dir := t.TempDir()
	mt := &matching{ixDir: filepath.Join(dir, "ix"), now: t0}
	mt.db = openRepo(t, filepath.Join(dir, "db"))
	mt.ob = notify.NewOutbox(mt.db, notifyConfig())
	var err error
	mt.m, err = New(t.Context(), mt.db, testConfig(), analyzer(t), indextest.Config().Limits(), mt.ob, Options{Clock: func() time.Time { return mt.now }})
	if err != nil {
		t.Fatal(err)
	}
	mt.openIndex(t)
	return mt
}

// openIndex opens the index in ixDir with the matcher as its observer.
func (mt *matching) openIndex(t *testing.T) {
	t.Helper()
	ix, err := index.Open(mt.ixDir, indextest.Config(), mt.db, index.Options{Observer: mt.m})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ix.Close() })
	mt.ix = ix
}

// index commits pages at at and brings the index up to date.
func (mt *matching) index(t *testing.T, at time.Time, pages ...page) {
	t.Helper()
	putPages(t, mt.db, at, pages...)
	if _, err := mt.ix.CatchUp(t.Context()); err != nil {
		t.Fatal(err)
	}
}

// fired lists "URL change" of alert id's feed entries, sorted.
func (mt *matching) fired(t *testing.T, id string) []string {
	t.Helper()
	es, err := mt.ob.FeedEntries(t.Context(), "alert:"+id)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, e := range es {
		out = append(out, e.URL+" "+e.Change)
	}
	slices.Sort(out)
	return out
}

func TestAlertsMatchNewAndChangedPagesAsSearchWould(t *testing.T) {
	mt := newMatching(t)
	m, db, ob, ix := mt.m, mt.db, mt.ob, mt.ix
	feed := []notify.Target{{Kind: notify.Feed}}
	add := func(q string) string {
		a, err := m.Add(t.Context(), Alert{User: "ada", Query: q, Notify: feed})
		if err != nil {
			t.Fatal(err)
		}
		return a.ID
	}
	plain := add(`"plain language" guidelines`)
	phraseOrder := add(`"language plain"`)
	noDraft := add(`accessibility -draft`)
	onSite := add(`accessibility site:b.example`)
	onParent := add(`accessibility site:EXAMPLE.`)
	offSite := add(`accessibility -site:A.example`)
	stemmed := add(`websites`)

	mt.index(t, t0,
		page{"https://a.example/pl", "Plain language", "Federal plain language guidelines help writers of <websites> & apps."},
		page{"https://a.example/acc", "Accessibility", "An accessibility draft for review."},
		page{"https://b.example/acc", "Accessibility", "Accessibility for every website."},
	)
	// A week later: one page changes, one is new.
	mt.index(t, t0.Add(7*24*time.Hour),
		page{"https://a.example/acc", "Accessibility", "Accessibility, final version."},
		page{"https://c.example/new", "New", "Plain language guidelines, new page."},
	)
	fired := func(id string) []string { return mt.fired(t, id) }
	cases := []struct {
		id, name string
		want     []string
	}{
		{plain, "a phrase and a term", []string{"https://a.example/pl new page", "https://c.example/new new page"}},
		{phraseOrder, "a phrase in the wrong order", nil},
		{noDraft, "an exclusion", []string{"https://a.example/acc changed page", "https://b.example/acc new page"}},
		{onSite, "a site filter", []string{"https://b.example/acc new page"}},
		{onParent, "a site filter keeps subdomains", []string{"https://a.example/acc new page", "https://b.example/acc new page"}},
		{offSite, "a site exclusion", []string{"https://b.example/acc new page"}},
		{stemmed, "the index's stemming", []string{"https://a.example/pl new page", "https://b.example/acc new page"}},
	}
	for _, tc := range cases {
		if got := fired(tc.id); !slices.Equal(got, tc.want) {
			t.Errorf("%s (%s): fired on %q, want %q", tc.name, tc.id, got, tc.want)
		}
	}
	// The summary is the snippet in plain text: an e-mail's text, a
	// webhook's JSON and an Atom entry each escape it their own way.
	es, _ := ob.FeedEntries(t.Context(), "alert:"+plain)
	if len(es) == 0 || !strings.Contains(es[0].Summary, "plain language guidelines help writers of <websites> & apps.") || strings.Contains(es[0].Summary, "mark>") {
		t.Errorf("the notification's summary is not the plain snippet: %+v", es)
	}
	// Each cross-check: a search for the alert's query finds the pages it fired on.
	q, _ := index.ParseQuery(`"plain language" guidelines`, indextest.Config().Limits())
	hits, _, err := ix.Retrieve(t.Context(), q, 10)
	if err != nil {
		t.Fatal(err)
	}
	var urls []string
	for _, h := range hits {
		urls = append(urls, h.URL+" new page")
	}
	slices.Sort(urls)
	if want := fired(plain); !slices.Equal(urls, want) {
		t.Errorf("search finds %q, the alert fired on %q", urls, want)
	}

	// Reopened, the matcher has its alerts and a removed one is gone.
	if err := m.Remove(t.Context(), onSite); err != nil {
		t.Fatal(err)
	}
	m2, err := New(t.Context(), db, testConfig(), analyzer(t), indextest.Config().Limits(), ob, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if got := len(m2.List("ada")); got != 6 {
		t.Errorf("reloaded %d alerts, want 6", got)
	}
}

func TestAddRejectsBadQueries(t *testing.T) {
	db := openRepo(t, t.TempDir())
	cfg := testConfig()
	cfg.MaxAlerts = 1
	m, err := New(t.Context(), db, cfg, analyzer(t), indextest.Config().Limits(), nil, Options{})
	if err != nil {
		t.Fatal(err)
	}
	for q, want := range map[string]string{
		"":                        "empty query",
		`"unclosed`:               "q:",
		"the of and":              "no searchable words",
		strings.Repeat("x", 1001): "longer than the 1,000-byte limit",
	} {
		if _, err := m.Add(t.Context(), Alert{Query: q}); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("Add(%.20q) = %v, want an error containing %q", q, err, want)
		}
	}
	// The API shows a QueryError's Msg under the field "query": the
	// message names the query, not the search parameter q.
	var qe *index.QueryError
	if _, err := m.Add(t.Context(), Alert{Query: "the of and"}); !errors.As(err, &qe) || strings.HasPrefix(qe.Msg, "q:") {
		t.Errorf("a stop-word query: %v, want a QueryError whose message does not start with q:", err)
	}
	// An alert sent nowhere could never be read: its matches are kept
	// only as its notifications.
	var te *notify.TargetError
	if _, err := m.Add(t.Context(), Alert{Query: "ok"}); !errors.As(err, &te) || !strings.Contains(err.Error(), "notify: (0 targets): at least 1") {
		t.Errorf("an alert without a target: %v, want a TargetError naming notify and its 0 targets", err)
	}
	feed := []notify.Target{{Kind: notify.Feed}}
	if _, err := m.Add(t.Context(), Alert{Query: "ok", Notify: feed}); err != nil {
		t.Fatal(err)
	}
	if _, err := m.Add(t.Context(), Alert{Query: "two", Notify: feed}); err == nil || !strings.Contains(err.Error(), "over alert.max_alerts = 1") {
		t.Errorf("past the limit: %v", err)
	}
}

// TestAlertNotifiesAPageOnceUnlessEveryChange indexes a page that keeps
// changing: an alert notifies it the first time it matches, one with
// EveryChange at each matching change. A removed alert's number leaves
// the page's stored set when the set is next written, and a damaged set
// is started over without stopping the index.
func TestAlertNotifiesAPageOnceUnlessEveryChange(t *testing.T) {
	mt := newMatching(t)
	feed := []notify.Target{{Kind: notify.Feed}}
	once, err := mt.m.Add(t.Context(), Alert{Query: "harbor", Notify: feed})
	if err != nil {
		t.Fatal(err)
	}
	every, err := mt.m.Add(t.Context(), Alert{Query: "harbor", Notify: feed, EveryChange: true})
	if err != nil {
		t.Fatal(err)
	}
	const home, news = "https://a.example/", "https://a.example/news"
	day := 24 * time.Hour
	mt.index(t, t0, page{home, "Home", "Harbor news, day one."})
	mt.index(t, t0.Add(day), page{home, "Home", "Harbor news, day two."}, page{news, "News", "The harbor reopens."})
	mt.index(t, t0.Add(2*day), page{home, "Home", "Nothing about the sea today."})
	mt.index(t, t0.Add(3*day), page{home, "Home", "Harbor news again."})
	for _, c := range []struct {
		a    *Alert
		want []string
	}{
		{once, []string{home + " new page", news + " new page"}},
		{every, []string{home + " changed page", home + " changed page", home + " new page", news + " new page"}},
	} {
		if got := mt.fired(t, c.a.ID); !slices.Equal(got, c.want) {
			t.Errorf("alert %s (every change %t) fired on %q, want %q", c.a.ID, c.a.EveryChange, got, c.want)
		}
	}
	// A removed alert's number leaves the page's set when it is written
	// again: here for a new alert's first match.
	if err := mt.m.Remove(t.Context(), once.ID); err != nil {
		t.Fatal(err)
	}
	again, err := mt.m.Add(t.Context(), Alert{Query: "harbor", Notify: feed})
	if err != nil {
		t.Fatal(err)
	}
	mt.index(t, t0.Add(4*day), page{home, "Home", "Harbor news, day five."})
	if got := mt.fired(t, again.ID); !slices.Equal(got, []string{home + " changed page"}) {
		t.Errorf("a new alert fired on %q, want the changed home page", got)
	}
	v, err := mt.db.Bucket(bucket, notifiedPrefix+urlHash(home))
	if err != nil {
		t.Fatal(err)
	}
	if seqs, err := decodeSeqs(v); err != nil || len(seqs) != 1 || "a"+strconv.FormatUint(seqs[0], 10) != again.ID {
		t.Errorf("alerts that notified %s: %v, %v; want %s alone", home, seqs, err, again.ID)
	}
	// A damaged set does not stop indexing: the page is sent again and
	// the set written anew.
	b := mt.db.NewBatch(t.Context())
	if err := b.PutBucket(bucket, notifiedPrefix+urlHash(home), []byte{seqsV1, 0x80}); err != nil {
		t.Fatal(err)
	}
	if err := b.Commit(); err != nil {
		t.Fatal(err)
	}
	b.Close()
	mt.index(t, t0.Add(5*day), page{home, "Home", "Harbor news, day six."})
	if got := mt.fired(t, again.ID); len(got) != 2 {
		t.Errorf("after a damaged set, %s fired on %q, want the home page again", again.ID, got)
	}
	seq, _ := alertSeq(again.ID)
	if v, err := mt.db.Bucket(bucket, notifiedPrefix+urlHash(home)); err != nil || !slices.Equal(v, encodeSeqs([]uint64{seq})) {
		t.Errorf("the set after the damage: %v, %v", v, err)
	}
}

// TestRemovedAlertsLeaveTheOthersMatching removes most alerts, so that the
// packed store compacts, and checks that the rest still match, list and
// fire with their own queries, and that a removed one no longer does.
func TestRemovedAlertsLeaveTheOthersMatching(t *testing.T) {
	mt := newMatching(t)
	m := mt.m
	words := []string{"harbor", "lantern", "meadow", "orchard", "quarry", "ribbon", "saddle", "timber"}
	var ids []string
	for i, w := range words {
		a, err := m.Add(t.Context(), Alert{User: []string{"ada", "bob"}[i%2], Query: `"` + w + ` report" -draft`, Notify: []notify.Target{{Kind: notify.Feed}}})
		if err != nil {
			t.Fatal(err)
		}
		ids = append(ids, a.ID)
	}
	for _, i := range []int{0, 1, 2, 3, 5, 6} {
		if err := m.Remove(t.Context(), ids[i]); err != nil {
			t.Fatal(err)
		}
	}
	if err := m.Remove(t.Context(), ids[0]); err == nil {
		t.Error("removing a removed alert succeeded")
	}
	// A new alert takes a freed slot.
	again, err := m.Add(t.Context(), Alert{User: "ada", Query: "harbor report", Notify: []notify.Target{{Kind: notify.Feed}}})
	if err != nil {
		t.Fatal(err)
	}
	if l, c := m.List("ada"), m.Count("ada"); len(l) != 2 || c != 2 || l[0].Query != `"quarry report" -draft` || l[1].ID != again.ID {
		t.Errorf("ada's alerts after removals: %d counted, %+v", c, l)
	}
	if l := m.List("bob"); len(l) != 1 || l[0].Query != `"timber report" -draft` {
		t.Errorf("bob's alerts after removals: %+v", l)
	}
	mt.index(t, t0,
		page{"https://a.example/1", "One", "The harbor report and the quarry report."},
		page{"https://a.example/2", "Two", "A draft of the timber report, and the lantern report."},
	)
	for id, want := range map[string][]string{
		ids[4]: {"https://a.example/1 new page"}, ids[7]: nil, ids[0]: nil, ids[1]: nil, again.ID: {"https://a.example/1 new page"},
	} {
		if got := mt.fired(t, id); !slices.Equal(got, want) {
			t.Errorf("alert %s fired on %q, want %q", id, got, want)
		}
	}
}

// TestNotifiedSetsRoundTripAndRefuseDamage checks the codec of a page's
// notified set: a round trip, and errors for a wrong format byte, a cut
// uvarint and numbers not ascending.
func TestNotifiedSetsRoundTripAndRefuseDamage(t *testing.T) {
	seqs := []uint64{1, 127, 128, 300000}
	got, err := decodeSeqs(encodeSeqs(seqs))
	if err != nil || !slices.Equal(got, seqs) {
		t.Errorf("round trip of %v: %v, %v", seqs, got, err)
	}
	for _, bad := range [][]byte{{2, 1}, {seqsV1, 0x80}, {seqsV1, 5, 5}, {seqsV1, 9, 3}} {
		if got, err := decodeSeqs(bad); err == nil {
			t.Errorf("decodeSeqs(%v) = %v, want an error", bad, got)
		}
	}
}

// TestReplayedChangeFeedNotifiesNothingAgain delivers an alert's matches
// to a webhook, then drops the index and applies the change feed from the
// start, as `deltaq serve` does over a data directory whose index/ is
// gone: every page is indexed again, and nothing is sent again. A copy
// fetched before an alert was made is not sent either, for an alert that
// notifies every change and for one that notifies a page once.
func TestReplayedChangeFeedNotifiesNothingAgain(t *testing.T) {
	mt := newMatching(t)
	hooks := notifytest.Webhooks(t)
	deliver := notify.NewService(mt.ob, notify.Options{})
	// sent delivers what is due and returns "alert URL change" of each
	// webhook that arrived since the last call, sorted.
	var seen int
	sent := func() []string {
		t.Helper()
		if _, err := deliver.Drain(t.Context()); err != nil {
			t.Fatal(err)
		}
		hs := hooks.Hooks()
		var out []string
		for _, h := range hs[seen:] {
			out = append(out, h.Notification.Source+" "+h.Notification.URL+" "+h.Notification.Change)
		}
		seen = len(hs)
		slices.Sort(out)
		return out
	}
	const a, b, c, d = "https://a.example/", "https://b.example/", "https://c.example/", "https://d.example/"
	hour, day := time.Hour, 24*time.Hour

	// Before the alerts: a is indexed, c is fetched but not yet indexed.
	mt.index(t, t0, page{a, "A", "Harbor news."})
	putPages(t, mt.db, t0.Add(hour), page{c, "C", "Harbor fetched before the alerts."})
	mt.now = t0.Add(2 * hour)
	target := []notify.Target{{Kind: notify.Webhook, Addr: hooks.URL}}
	every, err := mt.m.Add(t.Context(), Alert{Query: "harbor", Notify: target, EveryChange: true})
	if err != nil {
		t.Fatal(err)
	}
	once, err := mt.m.Add(t.Context(), Alert{Query: "harbor", Notify: target})
	if err != nil {
		t.Fatal(err)
	}
	src := func(al *Alert) string { return "alert:" + al.ID }
	mt.index(t, t0.Add(day), page{a, "A", "Harbor news, day two."}, page{b, "B", "The harbor reopens."})
	want := []string{src(every) + " " + a + " changed page", src(every) + " " + b + " new page",
		src(once) + " " + a + " changed page", src(once) + " " + b + " new page"}
	slices.Sort(want)
	if got := sent(); !slices.Equal(got, want) {
		t.Fatalf("before the replay, sent %q, want %q", got, want)
	}

	// The index is lost and rebuilt from the change feed.
	if err := mt.ix.Close(); err != nil {
		t.Fatal(err)
	}
	if err := os.RemoveAll(mt.ixDir); err != nil {
		t.Fatal(err)
	}
	mt.openIndex(t)
	st, err := mt.ix.CatchUp(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	if st.Indexed < 3 {
		t.Fatalf("the replay indexed %d pages, want a, b and c again", st.Indexed)
	}
	if got := sent(); len(got) != 0 {
		t.Errorf("the replay sent %q, want nothing", got)
	}

	// The rebuilt index notifies the next change as before.
	mt.index(t, t0.Add(2*day), page{a, "A", "Harbor news, day three."})
	if got, want := sent(), []string{src(every) + " " + a + " changed page"}; !slices.Equal(got, want) {
		t.Errorf("after the replay, a change sent %q, want %q", got, want)
	}

	// A rebuild sends the copy the feed had not brought to the index
	// yet, once, and nothing else.
	putPages(t, mt.db, t0.Add(3*day), page{d, "D", "Harbor, a new page."})
	if _, err := mt.ix.Rebuild(t.Context()); err != nil {
		t.Fatal(err)
	}
	if _, err := mt.ix.CatchUp(t.Context()); err != nil {
		t.Fatal(err)
	}
	want = []string{src(every) + " " + d + " new page", src(once) + " " + d + " new page"}
	if got := sent(); !slices.Equal(got, want) {
		t.Errorf("a rebuild sent %q, want %q", got, want)
	}
}

// TestPackedRefusesAlertsPastItsOffsets: the packed arrays are reached
// through uint32 offsets; alerts that would take one past its limit are
// refused, counting what is held, rather than wrapping the offsets.
func TestPackedRefusesAlertsPastItsOffsets(t *testing.T) {
	mt := newMatching(t)
	m := mt.m
	if _, err := m.Add(t.Context(), Alert{Query: `"harbor report" -draft`, Notify: []notify.Target{{Kind: notify.Feed}}}); err != nil {
		t.Fatal(err)
	}
	a := Alert{ID: "a2", Query: "lantern meadow orchard", Notify: []notify.Target{{Kind: notify.Feed}}}
	c, err := compile(&a, m.analyzer, m.limits)
	if err != nil {
		t.Fatal(err)
	}
	record := []byte(`{"id":"a2"}`)
	p := m.mu.alerts
	held := max(len(p.meta), len(p.words), len(p.clauses))
	need := max(len(p.meta)+len(record), len(p.words)+3, len(p.clauses)+3)
	if err := p.fits([]*compiled{c}, [][]byte{record}, need); err != nil {
		t.Errorf("an alert that just fits (held %d, limit %d): %v", held, need, err)
	}
	if err := p.fits([]*compiled{c}, [][]byte{record}, need-1); !errors.Is(err, errPackedFull) {
		t.Errorf("an alert one past the limit: %v, want errPackedFull", err)
	}
}
