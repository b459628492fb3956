package watch

import (
	"context"
	"errors"
	"fmt"
	"math"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/deltaq/deltaq/notify"
)

var t0 = time.Date(2023, 3, 6, 12, 0, 0, 0, time.UTC)

const article = `<nav><a href="/">Home</a> <a href="/news/">News</a></nav>
<main><h1>Plain language summit</h1>
<p id="when">The summit opens on March 3 at the main hall in Washington with a keynote on plain writing.</p>
<p>Registration is free for federal staff and contractors who work on public websites every day.</p>
<img src="/img/a.png"><a href="/register/">Register</a>
<table id="fees"><tr><th>Type</th><th>Fee</th></tr><tr><td>Staff</td><td>0</td></tr></table>
<ul id="talks"><li>Writing for the web</li><li>Forms that work</li></ul>
</main>`

func TestSentinelTypesDetectTheirChanges(t *testing.T) {
	cases := []struct {
		name      string
		spec      Spec
		change    func(string) string
		wantFired bool
		wantKind  string
		wantDiff  string // text found in the added runs, links or words
	}{
		{"any change sees a changed date", Spec{Type: Any}, repl("March 3", "April 10"), true, "update", "April 10"},
		{"any change sees markup-only changes", Spec{Type: Any}, repl("<h1>", `<h1 class="x">`), true, "update", ""},
		{"links sees a new link", Spec{Type: Links}, repl(`<a href="/register/">`, `<a href="/agenda/">Agenda</a><a href="/register/">`), true, "insert", "/agenda/"},
		{"links ignores text changes", Spec{Type: Links}, repl("March 3", "April 10"), false, "", ""},
		{"images sees a replaced image", Spec{Type: Images}, repl("/img/a.png", "/img/b.png"), true, "update", "/img/b.png"},
		{"words sees a new word", Spec{Type: Words}, repl("keynote", "keynote and workshops"), true, "insert", "workshops"},
		{"words ignores a repeated word", Spec{Type: Words}, repl("plain writing", "plain writing plain"), false, "", ""},
		{"keywords appear", Spec{Type: Keywords, Keywords: []string{"Virtual", "livestream"}}, repl("keynote", "keynote, virtual livestream"), true, "appeared", ""},
		{"keywords that stay absent do not fire", Spec{Type: Keywords, Keywords: []string{"virtual", "livestream"}}, repl("keynote", "virtual keynote"), false, "", ""},
		{"keywords disappear only when asked", Spec{Type: Keywords, Keywords: []string{"free"}, Direction: Appear}, repl("is free", "costs $20"), false, "", ""},
		{"regex sees its match change", Spec{Type: Regex, Regex: `opens on [A-Z][a-z]+ \d+`}, repl("March 3", "May 9"), true, "update", "May 9"},
		{"regex ignores changes elsewhere", Spec{Type: Regex, Regex: `opens on [A-Z][a-z]+ \d+`}, repl("Registration", "Sign-up"), false, "", ""},
		{"phrase by bounding box", Spec{Type: Phrase, Object: "opens on March 3 at the main hall"}, repl("March 3 at the main", "March 5 at the east"), true, "update", "5 east"},
		{"phrase ignores changes outside it", Spec{Type: Phrase, Object: "opens on March 3 at the main hall"}, repl("Registration", "Sign-up"), false, "", ""},
		{"phrase by selector", Spec{Type: Phrase, Selector: "#when"}, repl("keynote", "panel"), true, "update", "panel"},
		{"table by selector sees a new row", Spec{Type: Table, Selector: "#fees"}, repl("</table>", "<tr><td>Public</td><td>20</td></tr></table>"), true, "insert", "Public | 20"},
		{"table by identifying text", Spec{Type: Table, Object: "Fee"}, repl("<td>0</td>", "<td>5</td>"), true, "update", "5"},
		{"list sees a removed item", Spec{Type: List, Selector: "#talks"}, repl("<li>Forms that work</li>", ""), true, "delete", ""},
		{"list ignores the table", Spec{Type: List, Selector: "#talks"}, repl("<td>0</td>", "<td>5</td>"), false, "", ""},
		{"any change within a selector", Spec{Type: Any, Selector: "#talks"}, repl("Writing for", "Editing for"), true, "update", "Editing"},
		{"any change within a selector ignores the rest", Spec{Type: Any, Selector: "#talks"}, repl("March 3", "April 10"), false, "", ""},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			db := openRepo(t)
			s := newSite(t)
			clk := newClock(t0)
			e := newEngine(t, db, nil, clk, Options{})
			tc.spec.URL = s.set("/a", htmlPage(article))
			tc.spec.Every = time.Hour
			sn, err := e.Install(t.Context(), tc.spec)
			if err != nil {
				t.Fatal(err)
			}
			s.set("/a", htmlPage(tc.change(article)))
			clk.add(time.Hour)
			res, err := e.Check(t.Context(), tc.spec.URL)
			if err != nil {
				t.Fatal(err)
			}
			// A changed page reads the group, the kept copy and the tables.
			if res.BytesRead <= 0 || res.BytesRead != e.Stats().BytesRead {
				t.Errorf("check read %d bytes, the engine counted %d", res.BytesRead, e.Stats().BytesRead)
			}
			if got := res.Fired == 1; got != tc.wantFired {
				t.Fatalf("fired = %v, want %v (result %+v)", got, tc.wantFired, res)
			}
			h, err := e.History(t.Context(), sn.ID)
			if err != nil {
				t.Fatal(err)
			}
			if !tc.wantFired {
				for _, c := range h {
					if c.Fired {
						t.Errorf("history holds a fired change: %+v", c)
					}
				}
				return
			}
			if len(h) != 1 || h[0].Kind != tc.wantKind {
				t.Fatalf("history = %+v, want one change of kind %q", h, tc.wantKind)
			}
			if tc.wantDiff != "" {
				d := h[0].Diff
				all := strings.Join(append(append(d.Added(), d.Links.Added...), d.Removed()...), " ")
				if !strings.Contains(all, tc.wantDiff) {
					t.Errorf("diff %q lacks %q", all, tc.wantDiff)
				}
			}
		})
	}
}

func repl(old, new string) func(string) string {
	return func(s string) string {
		if !strings.Contains(s, old) {
			panic("test page lacks " + old)
		}
		return strings.Replace(s, old, new, 1)
	}
}

func TestInstallRejectsBadSpecs(t *testing.T) {
	db := openRepo(t)
	s := newSite(t)
	e := newEngine(t, db, nil, newClock(t0), Options{})
	u := s.set("/a", htmlPage(article))
	cases := []struct {
		spec         Spec
		field, value string // the *FieldError's; no field: another error
		want         string
	}{
		{Spec{URL: "ftp://x/", Type: Any, Every: time.Hour}, "url", "ftp://x/", "must be an absolute http(s) URL"},
		{Spec{URL: u, Type: "colour", Every: time.Hour}, "type", "colour", "must be one of any, links"},
		{Spec{URL: u, Type: Regex, Regex: "(", Every: time.Hour}, "regex", "(", "missing closing )"},
		{Spec{URL: u, Type: Regex, Regex: strings.Repeat("a", 257), Every: time.Hour}, "regex", "257 bytes", "must be 1 to 256 bytes"},
		{Spec{URL: u, Type: Phrase, Object: "too short", Every: time.Hour}, "object", "2 words", "at least 5 words"},
		{Spec{URL: u, Type: Keywords, Every: time.Hour}, "keywords", "0 keywords", "must be 1 to 8 keywords"},
		{Spec{URL: u, Type: Keywords, Keywords: []string{"fees", " "}, Every: time.Hour}, "keywords", " ", "none of them empty"},
		{Spec{URL: u, Type: Any, Selector: "p[", Every: time.Hour}, "select", "p[", "unclosed"},
		{Spec{URL: u, Type: Any, Regex: "x", Every: time.Hour}, "regex", "x", "left out for type any: only type regex reads it"},
		{Spec{URL: u, Type: Phrase, Object: "the summit opens on March 3", Direction: Appear, Every: time.Hour}, "direction", "appear", "only type keywords reads it"},
		{Spec{URL: u, Type: Links, Object: "Register", Every: time.Hour}, "object", "Register", "only type phrase, table, list reads it"},
		{Spec{URL: u, Type: Regex, Regex: "x", Keywords: []string{"fees"}, Every: time.Hour}, "keywords", "fees", "only type keywords reads it"},
		{Spec{URL: u, Type: Any, Every: -time.Hour}, "every", "-1h0m0s", "must be > 0"},
		{Spec{URL: u, Type: Any, Every: time.Hour, Mode: Digest}, "period", "0s", "with mode digest"},
		{Spec{URL: u, Type: Any, Every: time.Hour, Period: -time.Second}, "period", "-1s", "left out for mode eager: only mode digest reads it"},
		{Spec{URL: u, Type: Any, Every: time.Hour, Mode: Eager, Period: time.Hour}, "period", "1h0m0s", "left out for mode eager"},
		{Spec{URL: u, Type: Any, Every: time.Hour, Mode: "lazy"}, "mode", "lazy", "eager or digest"},
		{Spec{URL: u, Type: Any, Every: time.Hour, EveryN: -1}, "every_n", "-1", "≥ 0"},
		{Spec{URL: u, Type: Any, Every: time.Hour, EveryN: MaxEveryN + 1}, "every_n", "1000001", "≤ 1000000"},
		{Spec{User: "ada\x00", URL: u, Type: Any, Every: time.Hour}, "user", `"ada\x00"`, "must be 1 to 64 bytes of ASCII letters"},
		{Spec{URL: u, Type: Any, Every: time.Hour, MinChange: 2}, "min_change", "2", "in [0, 1]"},
		{Spec{URL: u, Type: Any, Every: time.Hour, MinChange: math.NaN()}, "min_change", "NaN", "in [0, 1]"},
		{Spec{URL: u, Type: Any, Every: time.Hour, Start: t0, Stop: t0.Add(-time.Hour)}, "until", t0.Add(-time.Hour).Format(time.RFC3339), "must be after the start"},
		{Spec{URL: "http://x.test/" + strings.Repeat("a", 2035), Type: Any, Every: time.Hour}, "url", "2049 bytes", "must be at most 2048 bytes"},
		{Spec{URL: s.url + "/missing", Type: Any, Every: time.Hour}, "url", s.url + "/missing", "must be a page that answers 200 with HTML or text within watch.fetch_timeout (10s): watch: fetch " + s.url + "/missing: status 404"},
	}
	for _, tc := range cases {
		_, err := e.Install(t.Context(), tc.spec)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("Install(%+v) = %v, want an error containing %q", tc.spec, err, tc.want)
			continue
		}
		var fe *FieldError
		if got := errors.As(err, &fe); got != (tc.field != "") || got && (fe.Field != tc.field || fe.Value != tc.value) {
			t.Errorf("Install(%+v) = %#v, want a FieldError on %q = %s", tc.spec, err, tc.field, tc.value)
		}
	}
	_, err := e.Install(t.Context(), Spec{URL: u, Type: Phrase, Object: "words that are not on the page", Every: time.Hour})
	if !errors.Is(err, ErrObjectNotFound) {
		t.Errorf("phrase not on the page: err = %v, want ErrObjectNotFound", err)
	}
	if ss, _ := e.List(t.Context(), ""); len(ss) != 0 {
		t.Errorf("%d sentinels stored after only bad installs", len(ss))
	}
}

// TestInstallFillsDefaults: a spec that names only its page watches the
// whole page for any change, wishing for a check a day, as `deltaq watch
// add` does without flags; under a key, the key's shortest interval if
// longer.
func TestInstallFillsDefaults(t *testing.T) {
	db := openRepo(t)
	s := newSite(t)
	e := newEngine(t, db, nil, newClock(t0), Options{})
	u := s.set("/a", htmlPage(article))
	// A key's default is its shortest interval where that is longer.
	for _, minEvery := range []time.Duration{time.Hour, 2 * DefaultEvery} {
		key := Key{User: "ada", MaxWatches: 1, MinEvery: minEvery, MaxRegexBytes: 10}
		want := max(DefaultEvery, minEvery)
		if got := key.Every(Spec{URL: u}); got != want {
			t.Errorf("key with min_every %v: Every(no every) = %v, want %v", minEvery, got, want)
		}
		if got := key.Every(Spec{URL: u, Every: 3 * time.Hour}); got != 3*time.Hour {
			t.Errorf("key with min_every %v: Every(3h) = %v, want the spec's own", minEvery, got)
		}
		if err := key.Admit(&Spec{URL: u}, 0); err != nil {
			t.Errorf("key with min_every %v: Admit(no every) = %v, want nil", minEvery, err)
		}
	}
	sn, err := e.Install(t.Context(), Spec{URL: u})
	if err != nil {
		t.Fatal(err)
	}
	if sn.Type != Any || sn.Every != DefaultEvery || sn.Mode != Eager || !sn.Stop.After(sn.Start) {
		t.Errorf("installed %+v, want type any, every %v, mode eager and a stop after the start", sn.Spec, DefaultEvery)
	}
}

func TestTriggersAndNotificationConditions(t *testing.T) {
	db := openRepo(t)
	s := newSite(t)
	clk := newClock(t0)
	ob := notify.NewOutbox(db, notifyConfig())
	e := newEngine(t, db, ob, clk, Options{})
	u := s.set("/a", htmlPage(`<p id="x">`+words(20, "a")+`</p>`))
	feed := []notify.Target{{Kind: notify.Feed}}
	half, _ := e.Install(t.Context(), Spec{URL: u, Type: Any, Selector: "#x", MinChange: 0.5, Every: time.Hour, Notify: feed})
	second, _ := e.Install(t.Context(), Spec{URL: u, Type: Any, Selector: "#x", EveryN: 2, Every: time.Hour, Notify: feed})
	digest, _ := e.Install(t.Context(), Spec{URL: u, Type: Any, Selector: "#x", Mode: Digest, Period: 3 * time.Hour, Every: time.Hour, Notify: feed})
	late, _ := e.Install(t.Context(), Spec{URL: u, Type: Any, Selector: "#x", Start: t0.Add(2 * time.Hour), Every: time.Hour, Notify: feed})
	if half == nil || second == nil || digest == nil || late == nil {
		t.Fatal("install failed")
	}
	step := func(text string) {
		t.Helper()
		clk.add(time.Hour)
		s.set("/a", htmlPage(`<p id="x">`+text+`</p>`))
		if _, err := e.Check(t.Context(), u); err != nil {
			t.Fatal(err)
		}
	}
	step(words(19, "a") + " b")                // 1h: a small change (1 of 20 words)
	step(words(5, "a") + " " + words(15, "c")) // 2h: most words change
	step(words(20, "d"))                       // 3h
	feedLen := func(id string) int {
		es, err := ob.FeedEntries(t.Context(), "watch:"+id)
		if err != nil {
			t.Fatal(err)
		}
		return len(es)
	}
	if got := feedLen(half.ID); got != 2 {
		t.Errorf("min_change 0.5: %d notifications, want 2 (the small change is below it)", got)
	}
	if got := feedLen(second.ID); got != 1 {
		t.Errorf("every_n 2: %d notifications, want 1 (the 2nd of 3 changes)", got)
	}
	if got := feedLen(late.ID); got != 2 {
		t.Errorf("start at 2h: %d notifications, want 2 (the changes at 2h and 3h)", got)
	}
	if got := feedLen(digest.ID); got != 0 {
		t.Errorf("digest before its period: %d notifications, want 0", got)
	}
	clk.add(time.Hour) // 4h: the digest period (from the 1h change) has passed
	if n, err := e.FlushDigests(t.Context()); err != nil || n != 1 {
		t.Fatalf("FlushDigests = %d, %v", n, err)
	}
	es, _ := ob.FeedEntries(t.Context(), "watch:"+digest.ID)
	if len(es) != 1 || strings.Count(es[0].Summary, "\n") != 2 {
		t.Fatalf("digest entries = %+v, want one summing 3 changes", es)
	}
	got, _ := e.Get(t.Context(), digest.ID)
	if got.Changes != 3 || got.Notifications != 1 || len(got.Pending) != 0 {
		t.Errorf("digest sentinel record = %+v", got)
	}
	h, _ := e.History(t.Context(), half.ID)
	if len(h) != 3 {
		t.Errorf("history kept %d, want watch.history_kept = 3", len(h))
	}
}

func TestGroupingSharesFetchCopyAndTables(t *testing.T) {
	for _, ungrouped := range []bool{false, true} {
		db := openRepo(t)
		s := newSite(t)
		clk := newClock(t0)
		e := newEngine(t, db, nil, clk, Options{Ungrouped: ungrouped})
		u := s.set("/a", htmlPage(article))
		for range 10 {
			if _, err := e.Install(t.Context(), Spec{URL: u, Type: Words, Every: time.Hour}); err != nil {
				t.Fatal(err)
			}
		}
		gs, err := e.Groups(t.Context())
		if err != nil {
			t.Fatal(err)
		}
		wantGroups := 1
		if ungrouped {
			wantGroups = 10
		}
		if len(gs) != wantGroups {
			t.Fatalf("ungrouped %v: %d groups, want %d", ungrouped, len(gs), wantGroups)
		}
		s.fetches.Store(0)
		unchanged := e.Stats()
		for _, g := range gs {
			if _, err := e.Check(t.Context(), g.Key); err != nil {
				t.Fatal(err)
			}
		}
		st := e.Stats()
		if got := s.fetches.Load(); got != int64(wantGroups) {
			t.Errorf("ungrouped %v: %d fetches for an unchanged page, want %d", ungrouped, got, wantGroups)
		}
		if st.Unchanged-unchanged.Unchanged != int64(wantGroups) {
			t.Errorf("ungrouped %v: MD5 stopped %d checks, want all %d", ungrouped, st.Unchanged, wantGroups)
		}
		s.set("/a", htmlPage(repl("keynote", "keynote and workshops")(article)))
		var fired int
		for _, g := range gs {
			res, err := e.Check(t.Context(), g.Key)
			if err != nil {
				t.Fatal(err)
			}
			fired += res.Fired
		}
		if fired != 10 {
			t.Errorf("ungrouped %v: %d sentinels fired, want 10", ungrouped, fired)
		}
	}
}

// TestKeptCopyReadOnlyForThePageDiff checks that a changed page's kept
// copy is read only when a table compares whole pages: with the copy gone
// from the repository, a keywords group still checks (and records the new
// copy), while a group with an unscoped any-change sentinel fails naming
// the copy.
func TestKeptCopyReadOnlyForThePageDiff(t *testing.T) {
	for _, typ := range []Type{Keywords, Any} {
		db := openRepo(t)
		s := newSite(t)
		e := newEngine(t, db, nil, newClock(t0), Options{})
		u := s.set("/a", htmlPage(article))
		spec := Spec{URL: u, Type: typ, Every: time.Hour}
		if typ == Keywords {
			spec.Keywords = []string{"workshops"}
		}
		if _, err := e.Install(t.Context(), spec); err != nil {
			t.Fatal(err)
		}
		b := db.NewBatch(t.Context())
		for _, k := range []string{copyPrefix, textPrefix} { // the copy and the text kept beside it
			if err := b.DeleteBucket(bucket, k+u); err != nil {
				t.Fatal(err)
			}
		}
		if err := b.Commit(); err != nil {
			t.Fatal(err)
		}
		s.set("/a", htmlPage(repl("keynote", "keynote and workshops")(article)))
		res, err := e.Check(t.Context(), u)
		if typ == Any {
			if err == nil || !strings.Contains(err.Error(), "copy of "+u) {
				t.Fatalf("any: check without a kept copy: %v, want an error naming the copy of %s", err, u)
			}
			continue
		}
		if err != nil {
			t.Fatalf("keywords: check without a kept copy: %v", err)
		}
		if res.Fired != 1 {
			t.Errorf("keywords: %d fired, want 1 (the keyword appeared)", res.Fired)
		}
		if _, err := db.Bucket(bucket, copyPrefix+u); err != nil {
			t.Errorf("keywords: the check did not keep the new copy: %v", err)
		}
	}
}

// TestPageDiffReadsTheKeptText checks that the page diff of a group with
// an unscoped any-change table reads the text kept beside the copy (x/)
// from the install on, not the copy, and that text left from an earlier
// copy is not used.
func TestPageDiffReadsTheKeptText(t *testing.T) {
	db := openRepo(t)
	s := newSite(t)
	e := newEngine(t, db, nil, newClock(t0), Options{})
	u := s.set("/a", htmlPage(article))
	install := func(spec Spec) *Sentinel {
		t.Helper()
		sn, err := e.Install(t.Context(), spec)
		if err != nil {
			t.Fatal(err)
		}
		return sn
	}
	install(Spec{URL: u, Type: Keywords, Keywords: []string{"workshops"}, Every: time.Hour}) // keeps the group
	anyChange := install(Spec{URL: u, Type: Any, Every: time.Hour})
	page := article
	change := func(old, new string) {
		t.Helper()
		page = repl(old, new)(page)
		s.set("/a", htmlPage(page))
		if _, err := e.Check(t.Context(), u); err != nil {
			t.Fatalf("check after %q → %q: %v", old, new, err)
		}
	}
	added := func(sn *Sentinel) string {
		t.Helper()
		h, err := e.History(t.Context(), sn.ID)
		if err != nil || len(h) == 0 {
			t.Fatalf("history of %s: %v, %d changes", sn.ID, err, len(h))
		}
		return strings.Join(h[len(h)-1].Diff.Added(), " ")
	}
	// Without the copy, the page diff runs on the text the install kept,
	// and then on the text each check keeps.
	b := db.NewBatch(t.Context())
	if err := b.DeleteBucket(bucket, copyPrefix+u); err != nil {
		t.Fatal(err)
	}
	if err := b.Commit(); err != nil {
		t.Fatal(err)
	}
	change("keynote", "keynote and workshops")
	if got := added(anyChange); !strings.Contains(got, "workshops") {
		t.Fatalf("diff after the copy was deleted adds %q, want workshops", got)
	}
	change("keynote", "keynote plenary")
	if got := added(anyChange); !strings.Contains(got, "plenary") || strings.Contains(got, "workshops") {
		t.Fatalf("second diff adds %q, want plenary alone", got)
	}

	// Text kept from another copy than the one under c/ (as a check
	// with no any-change table leaves it, or a repository restored from
	// pieces) must not be diffed against: the copy is parsed instead.
	b = db.NewBatch(t.Context())
	if err := put(b, textPrefix+u, &keptText{Sum: md5Hex([]byte("another copy")), Text: "stale words"}); err != nil {
		t.Fatal(err)
	}
	if err := b.Commit(); err != nil {
		t.Fatal(err)
	}
	change("plenary", "plenary demos")
	if got := added(anyChange); !strings.Contains(got, "demos") || strings.Contains(got, "plenary") {
		t.Errorf("diff after stale kept text adds %q, want demos alone (diffed against the copy)", got)
	}
	if h, _ := e.History(t.Context(), anyChange.ID); len(h) > 0 && strings.Contains(strings.Join(h[len(h)-1].Diff.Removed(), " "), "stale") {
		t.Errorf("diff removes the stale text's words: %v", h[len(h)-1].Diff.Removed())
	}
}

func TestRemoveEmptiesTablesAndGroups(t *testing.T) {
	db := openRepo(t)
	s := newSite(t)
	e := newEngine(t, db, nil, newClock(t0), Options{})
	u := s.set("/a", htmlPage(article))
	a, _ := e.Install(t.Context(), Spec{URL: u, Type: Links, Every: time.Hour, User: "ada"})
	b, _ := e.Install(t.Context(), Spec{URL: u, Type: Links, Every: time.Hour, User: "bob"})
	if ss, _ := e.List(t.Context(), "ada"); len(ss) != 1 || ss[0].ID != a.ID {
		t.Fatalf("List(ada) = %+v", ss)
	}
	for _, id := range []string{a.ID, b.ID} {
		if err := e.Remove(t.Context(), id); err != nil {
			t.Fatal(err)
		}
	}
	if gs, _ := e.Groups(t.Context()); len(gs) != 0 {
		t.Errorf("groups after removing every sentinel: %+v", gs)
	}
	if _, err := e.Get(t.Context(), a.ID); err == nil {
		t.Error("removed sentinel still readable")
	}
}

func TestPlannerWeighsWishesNotTimers(t *testing.T) {
	p := NewUrgencyPlanner([]Group{
		{Key: "hourly", LastCheck: t0, Every: []time.Duration{time.Hour}},
		{Key: "daily-x3", LastCheck: t0, Every: []time.Duration{24 * time.Hour, 24 * time.Hour, 24 * time.Hour}},
		{Key: "weekly", LastCheck: t0, Every: []time.Duration{7 * 24 * time.Hour}},
	})
	// At 12 h only the hourly page is due: a wish is the earliest check.
	if got := strings.Join(p.Next(t0.Add(12*time.Hour), 3), ","); got != "hourly" {
		t.Errorf("Next at 12h = %s, want hourly alone", got)
	}
	now := t0.Add(25 * time.Hour)
	// hourly: 1; three daily sentinels: 3 × 1 = 3; weekly (25/168) not due.
	if got := strings.Join(p.Next(now, 2), ","); got != "daily-x3,hourly" {
		t.Errorf("Next = %s, want the three due daily sentinels first", got)
	}
	p.Checked("daily-x3", now)
	if got := strings.Join(p.Next(now, 2), ","); got != "hourly" {
		t.Errorf("after checking daily-x3: Next = %s", got)
	}
}

// TestServeChecksAtTheWishedIntervalAndBacksOff runs the stand-alone
// loop's ticks on a simulated clock, as `deltaq serve` with watch.tick
// 2s would: a page wished for every hour is fetched once an hour, not
// once a tick, and a page answering 503 is tried less and less often.
func TestServeChecksAtTheWishedIntervalAndBacksOff(t *testing.T) {
	db := openRepo(t)
	s := newSite(t)
	clk := newClock(t0)
	e := newEngine(t, db, nil, clk, Options{})
	u := s.set("/a", htmlPage(article))
	if _, err := e.Install(t.Context(), Spec{URL: u, Type: Any, Every: time.Hour}); err != nil {
		t.Fatal(err)
	}
	p := NewUrgencyPlanner(nil)
	ro := RunOptions{Tick: 2 * time.Second, Budget: 10}
	run := func(d time.Duration) int64 {
		t.Helper()
		before := s.fetches.Load()
		for end := clk.now().Add(d); clk.now().Before(end); clk.add(ro.Tick) {
			if err := e.runTick(t.Context(), p, ro); err != nil {
				t.Fatal(err)
			}
		}
		return s.fetches.Load() - before
	}
	if n := run(8 * time.Minute); n != 0 {
		t.Errorf("%d fetches in the 8 minutes after the install, want 0 (every 1h)", n)
	}
	if n := run(3 * time.Hour); n != 3 {
		t.Errorf("%d fetches in the next 3 hours, want 3 (every 1h)", n)
	}
	// Checked at 3h; the page fails at 4h, then after waits of 2h and
	// 4h, at 6h and 10h; the next try is 8h later, at 18h.
	s.answer("/a", http.StatusServiceUnavailable)
	if n := run(14 * time.Hour); n != 3 {
		t.Errorf("%d fetches of a page answering 503 in 14 hours, want 3 (back-off 2h, 4h)", n)
	}
	if f := p.Failures(u); f != 3 {
		t.Errorf("Failures = %d, want 3", f)
	}
	s.answer("/a", 0)
	if n := run(time.Hour); n != 1 {
		t.Errorf("%d fetches in the hour after the page came back, want 1 (at 18h)", n)
	}
	if f := p.Failures(u); f != 0 {
		t.Errorf("Failures after a good check = %d, want 0", f)
	}
}

func TestRunChecksWhatThePlannerPicks(t *testing.T) {
	db := openRepo(t)
	s := newSite(t)
	clk := newClock(t0)
	ob := notify.NewOutbox(db, notifyConfig())
	e := newEngine(t, db, ob, clk, Options{})
	u := s.set("/a", htmlPage(article))
	if _, err := e.Install(t.Context(), Spec{URL: u, Type: Any, Every: time.Hour, Notify: []notify.Target{{Kind: notify.Feed}}}); err != nil {
		t.Fatal(err)
	}
	s.set("/a", htmlPage(repl("March 3", "April 10")(article)))
	clk.add(time.Hour)
	ctx, cancel := context.WithCancel(t.Context())
	fired := make(chan struct{}, 1)
	done := make(chan error, 1)
	go func() {
		done <- e.Run(ctx, NewUrgencyPlanner(nil), RunOptions{Tick: time.Hour, Budget: 10, Fired: func() { fired <- struct{}{} }})
	}()
	<-fired // the first pass checks the due page and queues its notification
	cancel()
	if err := <-done; err != context.Canceled {
		t.Fatalf("Run = %v", err)
	}
	if es, _ := ob.FeedEntries(t.Context(), "watch:w1"); len(es) != 1 {
		t.Errorf("%d feed entries, want 1", len(es))
	}
}

// TestGroupedChecksDetectAsUngrouped runs one sentinel of every type on a
// page, grouped (one page parse, one split of its words, one read of its
// members for every table) and each alone, through a run of edits: both
// must record the same changes.
func TestGroupedChecksDetectAsUngrouped(t *testing.T) {
	specs := []Spec{
		{Type: Any}, {Type: Links}, {Type: Images}, {Type: Words},
		{Type: Keywords, Keywords: []string{"virtual", "livestream"}},
		{Type: Keywords, Keywords: []string{"Free"}},
		{Type: Regex, Regex: `opens on [A-Z][a-z]+ \d+`},
		{Type: Phrase, Object: "opens on March 3 at the main hall"},
		{Type: Phrase, Selector: "#when"},
		{Type: Table, Object: "Fee"}, {Type: List, Selector: "#talks"},
	}
	edits := []func(string) string{
		repl("keynote", "keynote, virtual livestream"),
		repl("Plain language summit", "Plain writing summit"), // the phrase's box moves, the phrase does not
		repl("March 3 at the main", "March 5 at the east"),
		repl("Registration is free", "Registration costs $20"),
		repl("</table>", "<tr><td>Public</td><td>20</td></tr></table>"),
		repl("<li>Forms that work</li>", ""),
		repl(`<img src="/img/a.png">`, `<img src="/img/b.png"><a href="/agenda/">Agenda</a>`),
	}
	histories := map[bool][][]Change{}
	for _, ungrouped := range []bool{false, true} {
		db := openRepo(t)
		s := newSite(t)
		clk := newClock(t0)
		e := newEngine(t, db, nil, clk, Options{Ungrouped: ungrouped})
		page := article
		u := s.set("/a", htmlPage(page))
		var ids []string
		for _, spec := range specs {
			spec.URL, spec.Every = u, time.Hour
			sn, err := e.Install(t.Context(), spec)
			if err != nil {
				t.Fatalf("install %s: %v", spec.Type, err)
			}
			ids = append(ids, sn.ID)
		}
		for _, edit := range edits {
			page = edit(page)
			s.set("/a", htmlPage(page))
			clk.add(time.Hour)
			gs, err := e.Groups(t.Context())
			if err != nil {
				t.Fatal(err)
			}
			for _, g := range gs {
				if _, err := e.Check(t.Context(), g.Key); err != nil {
					t.Fatal(err)
				}
			}
		}
		for _, id := range ids {
			h, err := e.History(t.Context(), id)
			if err != nil {
				t.Fatal(err)
			}
			histories[ungrouped] = append(histories[ungrouped], h)
		}
	}
	for i, spec := range specs {
		g, u := histories[false][i], histories[true][i]
		if len(g) == 0 {
			t.Errorf("%s %q %v: no change recorded", spec.Type, spec.Object, spec.Keywords)
		}
		if len(g) != len(u) {
			t.Errorf("%s %q: grouped recorded %d changes, ungrouped %d", spec.Type, spec.Object, len(g), len(u))
			continue
		}
		for j := range g {
			gs, us := g[j].Kind+" "+g[j].summary(), u[j].Kind+" "+u[j].summary()
			if gs != us || g[j].Fired != u[j].Fired {
				t.Errorf("%s %q change %d: grouped %q (fired %v), ungrouped %q (fired %v)", spec.Type, spec.Object, j, gs, g[j].Fired, us, u[j].Fired)
			}
		}
	}
}

// TestPhraseBoxFollowsAnUnchangedPhrase: a check that finds the phrase
// unchanged still stores its moved box, so a later edit next to the old
// surroundings does not lose it.
func TestPhraseBoxFollowsAnUnchangedPhrase(t *testing.T) {
	db := openRepo(t)
	s := newSite(t)
	clk := newClock(t0)
	e := newEngine(t, db, nil, clk, Options{})
	spec := Spec{Type: Phrase, Object: "opens on March 3 at the main hall", Every: time.Hour}
	spec.URL = s.set("/a", htmlPage(article))
	if _, err := e.Install(t.Context(), spec); err != nil {
		t.Fatal(err)
	}
	boxBefore := func() []string {
		t.Helper()
		tb, _, found, err := (&reader{db: db}).loadTable(spec.URL, &spec)
		if err != nil || !found {
			t.Fatalf("table: found %v, %v", found, err)
		}
		return tb.Object.Box.Before
	}
	if got := strings.Join(boxBefore(), " "); got != "Plain language summit The summit" {
		t.Fatalf("installed box %q, want Plain language summit The summit", got)
	}
	// One word of five changes next to the box's far end (WebCQ Fig. 5
	// cases 5–7): the phrase is found, and its box moves.
	s.set("/a", htmlPage(repl("Plain language summit", "Plain writing summit")(article)))
	clk.add(time.Hour)
	res, err := e.Check(t.Context(), spec.URL)
	if err != nil {
		t.Fatal(err)
	}
	if res.Changed != 0 {
		t.Fatalf("the phrase did not change, but %d objects did", res.Changed)
	}
	if got := strings.Join(boxBefore(), " "); got != "Plain writing summit The summit" {
		t.Errorf("box after the check %q, want Plain writing summit The summit", got)
	}
}

// trimPunct skips TrimFunc for words that start and end in an ASCII
// letter or digit; on every kind of word it must trim as TrimFunc does.
func TestTrimPunctAsTrimFunc(t *testing.T) {
	words := []string{"", "a", "Z9", "word", "(word)", "word.", "«mot»", "“quoted”", "it's", "'tis", "e.g.", "...", "x,", ",x", "été", "naïve", "ß", "a’", "’a", "9)", "(9", "a-b", "-", "—dash—", "\u00e9t\u00e9."}
	for _, w := range words {
		if got, want := trimPunct(w), strings.TrimFunc(w, isPunct); got != want {
			t.Errorf("trimPunct(%q) = %q, want %q", w, got, want)
		}
	}
}

// TestLastCheckedCountsChecksThatFindNothing: a check that finds the page
// unchanged writes nothing, yet the watch says it was checked then; one
// that finds a change stores its time, which an engine opened afresh on
// the same repository reports, and Close stores the unchanged one's.
func TestLastCheckedCountsChecksThatFindNothing(t *testing.T) {
	db := openRepo(t)
	s := newSite(t)
	clk := newClock(t0)
	e := newEngine(t, db, nil, clk, Options{})
	u := s.set("/a", htmlPage("<p>"+words(10, "a")+"</p>"))
	sn, err := e.Install(t.Context(), Spec{URL: u, Type: Any, Every: time.Hour})
	if err != nil {
		t.Fatal(err)
	}
	checked := func(e *Engine, want time.Time, when string) {
		t.Helper()
		if got, err := e.LastChecked(sn); err != nil || !got[sn.ID].Equal(want) {
			t.Errorf("%s: LastChecked = %v, %v; want %v", when, got, err, want)
		}
	}
	checked(e, t0, "installed")
	clk.add(time.Hour)
	if res, err := e.Check(t.Context(), u); err != nil || !res.Unchanged {
		t.Fatalf("check of the unchanged page: %+v, %v", res, err)
	}
	checked(e, t0.Add(time.Hour), "checked, unchanged")
	clk.add(time.Hour)
	s.set("/a", htmlPage("<p>"+words(10, "b")+"</p>"))
	if res, err := e.Check(t.Context(), u); err != nil || res.Unchanged {
		t.Fatalf("check of the changed page: %+v, %v", res, err)
	}
	clk.add(time.Hour)
	if _, err := e.Check(t.Context(), u); err != nil {
		t.Fatal(err)
	}
	checked(e, t0.Add(3*time.Hour), "changed, then checked unchanged")
	checked(newEngine(t, db, nil, clk, Options{}), t0.Add(2*time.Hour), "a new engine beside it, as after a crash (the unchanged check is forgotten)")
	if err := e.Close(); err != nil {
		t.Fatal(err)
	}
	checked(newEngine(t, db, nil, clk, Options{}), t0.Add(3*time.Hour), "a new engine after Close (the unchanged check is stored)")
}

// TestInstallDoesNotHoldTheEngineWhileAPageAnswers: while one install
// waits for a slow site, another install (which takes the engine's
// lock) goes through; the slow one then completes. The engine used to
// fetch under its lock, so one slow site held every install, check and
// listing.
func TestInstallDoesNotHoldTheEngineWhileAPageAnswers(t *testing.T) {
	db := openRepo(t)
	fast := newSite(t)
	arrived, release := make(chan struct{}), make(chan struct{})
	var once sync.Once
	slow := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		once.Do(func() { close(arrived) })
		<-release
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		w.Write([]byte(htmlPage(article)))
	}))
	defer slow.Close()
	e := newEngine(t, db, nil, newClock(t0), Options{})
	done := make(chan error, 1)
	go func() {
		_, err := e.Install(t.Context(), Spec{URL: slow.URL + "/slow", Type: Any, Every: time.Hour})
		done <- err
	}()
	<-arrived
	other := make(chan error, 1)
	go func() {
		_, err := e.Install(t.Context(), Spec{URL: fast.set("/a", htmlPage(article)), Type: Any, Every: time.Hour})
		other <- err
	}()
	select {
	case err := <-other:
		if err != nil {
			t.Fatal(err)
		}
	case <-time.After(30 * time.Second):
		close(release)
		t.Fatal("an install waited 30 s for another one's slow page")
	}
	close(release)
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	if all, err := e.List(t.Context(), ""); err != nil || len(all) != 2 {
		t.Fatalf("%d sentinels (%v), want 2", len(all), err)
	}
}

// TestNonHTMLPageIsRefusedNotDiffed: a page served as a PDF is refused at
// test and install, naming its Content-Type, and a watched page that
// turns into one makes a failed check, not a change of its bytes; so
// does a PDF sent as text/html, by its bytes.
func TestNonHTMLPageIsRefusedNotDiffed(t *testing.T) {
	db := openRepo(t)
	s := newSite(t)
	clk := newClock(t0)
	e := newEngine(t, db, nil, clk, Options{})
	pdf := "%PDF-1.7\n1 0 obj << /Type /Catalog >> endobj\nstream\nx\x9c\x03\x00 endstream\n%%EOF"
	d := s.set("/doc.pdf", pdf)
	s.serveAs("/doc.pdf", "application/pdf")
	for name, try := range map[string]func() error{
		"test":    func() error { _, err := e.Test(t.Context(), Spec{URL: d, Type: Words}); return err },
		"install": func() error { _, err := e.Install(t.Context(), Spec{URL: d, Type: Words}); return err },
	} {
		err := try()
		if !errors.Is(err, ErrNotPage) || !strings.Contains(fmt.Sprint(err), `"application/pdf"`) {
			t.Errorf("%s on a PDF: %v; want ErrNotPage naming application/pdf", name, err)
		}
		if name == "install" && !errors.Is(err, ErrInvalid) {
			t.Errorf("install on a PDF: %v; want it refused as invalid input (ErrInvalid)", err)
		}
	}
	u := s.set("/a", htmlPage(article))
	sn, err := e.Install(t.Context(), Spec{URL: u, Type: Words, Every: time.Hour})
	if err != nil {
		t.Fatal(err)
	}
	s.set("/a", pdf)
	s.serveAs("/a", "application/pdf")
	clk.add(time.Hour)
	p := NewUrgencyPlanner(nil)
	if err := e.runTick(t.Context(), p, RunOptions{Tick: time.Minute, Budget: 10}); err != nil {
		t.Fatal(err)
	}
	if f := p.Failures(u); f != 1 {
		t.Errorf("Failures = %d, want the PDF's check counted as failed", f)
	}
	if res, err := e.Check(t.Context(), u); !errors.Is(err, ErrNotPage) || errors.Is(err, ErrInvalid) || res.Changed != 0 {
		t.Errorf("Check = %+v, %v; want ErrNotPage, not ErrInvalid, and no change", res, err)
	}
	// The failed check blames the page's answer, not the sentinel.
	if fs, err := e.Failures(t.Context(), sn.ID); err != nil || len(fs) != 1 || fs[0].Kind != FailNotPage ||
		!strings.HasPrefix(fs[0].Error, "watch: not an HTML or text page: "+u) || strings.Contains(fs[0].Error, "invalid") {
		t.Errorf("Failures = %+v, %v; want one not_page failure naming the page's Content-Type, not an invalid sentinel", fs, err)
	}
	if h, err := e.History(t.Context(), sn.ID); err != nil || len(h) != 0 {
		t.Errorf("History = %+v, %v; want no change from the PDF's bytes", h, err)
	}
	s.serveAs("/a", "text/html")
	if res, err := e.Check(t.Context(), u); !errors.Is(err, ErrNotPage) || !strings.Contains(fmt.Sprint(err), `the body is application/pdf, not the "text/html" it was sent as`) || res.Changed != 0 {
		t.Errorf("Check of a PDF sent as text/html = %+v, %v; want ErrNotPage naming what the body is, and no change", res, err)
	}
	if h, err := e.History(t.Context(), sn.ID); err != nil || len(h) != 0 {
		t.Errorf("History = %+v, %v; want no change from the PDF's bytes sent as text/html", h, err)
	}
}

// TestCutTextIsReported: on a page under watch.max_body_bytes whose text
// is over watch.extract.max_text_bytes, a sentinel reading the page's
// words is refused, naming the limit, rather than "object not found" or
// keywords that never fire; one installed before the page grew reports
// the cut in its check's result, and no change (its keyword, past the cut,
// did not disappear). A selector, or the MD5, reads all.
func TestCutTextIsReported(t *testing.T) {
	db := openRepo(t)
	s := newSite(t)
	clk := newClock(t0)
	e := newEngine(t, db, nil, clk, Options{})
	phrase := "opens on March 3 at the main hall"
	big := htmlPage("<div>" + words(200_000, "filler") + `</div><p id="end">` + phrase + "</p>")
	b := s.set("/big", big)
	for name, try := range map[string]func() error{
		"test phrase": func() error { _, err := e.Test(t.Context(), Spec{URL: b, Type: Phrase, Object: phrase}); return err },
		"install keywords": func() error {
			_, err := e.Install(t.Context(), Spec{URL: b, Type: Keywords, Keywords: []string{"hall"}})
			return err
		},
	} {
		err := try()
		var cut *TextCutError
		if !errors.As(err, &cut) || !errors.Is(err, ErrInvalid) || cut.Limit != 1<<20 || cut.BodyBytes != len(big) ||
			!strings.Contains(err.Error(), "watch.extract.max_text_bytes = 1048576") {
			t.Errorf("%s on a page of %d bytes: %v; want a TextCutError naming the limit", name, len(big), err)
		}
	}
	if obj, err := e.Test(t.Context(), Spec{URL: b, Type: Phrase, Selector: "#end"}); err != nil || obj.Text != phrase {
		t.Errorf("test with a selector = %q, %v; want the phrase", obj.Text, err)
	}
	u := s.set("/a", htmlPage(article))
	if _, err := e.Install(t.Context(), Spec{URL: u, Type: Keywords, Keywords: []string{"hall"}, Every: time.Hour}); err != nil {
		t.Fatal(err)
	}
	s.set("/a", big)
	clk.add(time.Hour)
	res, err := e.Check(t.Context(), u)
	if err != nil || res.TextCut == nil || res.TextCut.Limit != 1<<20 || res.TextCut.BodyBytes != len(big) || res.Changed != 0 {
		t.Errorf("Check of the grown page = %+v, %v; want TextCut naming the limit and the page's size, and no change", res, err)
	}
}

// A feed, an XML or JSON document and any text are pages to watch; a PDF,
// an image or an archive are not.
func TestPageTypeTakesTextXMLAndJSON(t *testing.T) {
	for ct, ok := range map[string]bool{
		"text/html; charset=utf-8": true, "application/xhtml+xml": true, "text/plain": true, "text/csv": true,
		"application/atom+xml": true, "application/rss+xml": true, "application/xml": true,
		"application/json": true, "application/ld+json": true, "": true,
		"application/pdf": false, "image/png": false, "application/zip": false, "application/octet-stream": false, "text/html; =": false,
	} {
		if err := pageType("http://a.test/", ct); (err == nil) != ok {
			t.Errorf("Content-Type %q: %v, want accepted %v", ct, err, ok)
		}
	}
}
