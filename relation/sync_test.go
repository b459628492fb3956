package relation

import (
	"errors"
	"fmt"
	"math"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/deltaq/deltaq/repo"
)

func openStore(t *testing.T, dir string) (*Store, *repo.DB) {
	t.Helper()
	db, err := repo.Open(dir, repo.Config{VersionsKept: 1, FetchLogKept: 2, StatsKept: 1, CacheBytes: 1 << 20}, repo.Options{})
	if err != nil {
		t.Fatal(err)
	}
	return NewStore(db), db
}

var t0 = time.Date(2026, 3, 1, 0, 0, 0, 0, time.UTC)

func syncOpts(budget int) SyncOptions {
	return SyncOptions{Budget: budget, Method: AllPages, MaxKeywords: 2, Pool: 20, Alpha: 0.5, RatePrior: 0.1, RatePriorWeight: 7, Unit: 24 * time.Hour}
}

// shopSync serves a shop, keeps its relation in a new repository, and
// returns the shop, the relation's store and a client of the shop.
func shopSync(t *testing.T, opts ClientOptions) (*shop, *Store, *Client) {
	t.Helper()
	s, ts, cl := newShopClient(t, opts)
	st, db, _ := shopRelation(t, ts.URL)
	t.Cleanup(func() { db.Close() })
	return s, st, cl
}

func shopRelation(t *testing.T, base string) (*Store, *repo.DB, string) {
	t.Helper()
	def := Definition{Name: "fruit", Source: shopSource(base), Weight: "column", Dissimilarity: "abs:price", Created: t0}
	return relationOf(t, def, "a1\t3\na2\t1\n# comment\np1\n")
}

// relationOf keeps def's relation, of the three records ids lists (as an
// ids file), in a new repository in its own directory.
func relationOf(t *testing.T, def Definition, ids string) (*Store, *repo.DB, string) {
	t.Helper()
	dir := t.TempDir()
	st, db := openStore(t, dir)
	if err := st.Create(t.Context(), def); err != nil {
		t.Fatal(err)
	}
	list, w, err := ParseIDs(ids, nil)
	if err != nil {
		t.Fatal(err)
	}
	if n, err := st.Add(t.Context(), def.Name, list, w); err != nil || n != 3 {
		t.Fatalf("add: %d, %v", n, err)
	}
	return st, db, dir
}

func TestSyncRecordsFieldChanges(t *testing.T) {
	s := newShop()
	ts := httptest.NewServer(s)
	defer ts.Close()
	st, db, _ := shopRelation(t, ts.URL)
	defer db.Close()
	cl, err := NewClient(shopSource(ts.URL), ClientOptions{MaxBytes: 1 << 20})
	if err != nil {
		t.Fatal(err)
	}
	// First sync: no record has fields yet, so nothing to search by; the
	// budget goes to ID fetches.
	rep, err := Sync(t.Context(), st, cl, "fruit", t0.Add(time.Hour), syncOpts(10))
	if err != nil {
		t.Fatal(err)
	}
	if rep.IDFetches != 3 || rep.Reached != 3 || rep.Changed != 0 {
		t.Fatalf("first sync: %d ID fetches, %d reached, %d changed; want 3, 3, 0", rep.IDFetches, rep.Reached, rep.Changed)
	}
	s.mu.Lock()
	s.items["a1"] = [2]string{"red apple", "1.40"}
	s.mu.Unlock()
	// Second sync: one query ("apple") reads a1 and a2 on one page.
	rep, err = Sync(t.Context(), st, cl, "fruit", t0.Add(48*time.Hour), syncOpts(2))
	if err != nil {
		t.Fatal(err)
	}
	if len(rep.Probes) == 0 || rep.Probes[0].Reached == 0 {
		t.Fatalf("second sync sent no useful probe: %+v", rep.Probes)
	}
	if rep.Changed != 1 {
		t.Errorf("%d records changed, want 1 (a1's price)", rep.Changed)
	}
	changes, err := st.Changes(t.Context(), "fruit", 0, 10)
	if err != nil {
		t.Fatal(err)
	}
	if len(changes) != 1 || changes[0].ID != "a1" || len(changes[0].Fields) != 1 || changes[0].Fields[0].String() != "price 1.50 → 1.40" {
		t.Fatalf("changes %+v, want a1: price 1.50 → 1.40", changes)
	}
	if later, _ := st.Changes(t.Context(), "fruit", changes[0].Seq, 10); len(later) != 0 {
		t.Errorf("changes since the last seq: %+v, want none", later)
	}
	rows, _ := st.Rows(t.Context(), "fruit")
	for _, r := range rows {
		if r.ID == "a1" && (r.Rate.Syncs != 1 || math.Abs(r.Rate.Updates-0.1) > 1e-9 || !r.Rate.Counted) {
			t.Errorf("a1's rate observation %+v: want one sync counting |Δprice| = 0.1", r.Rate)
		}
	}
}

// A field the search hits do not show (here the item page's heading) is
// not read as removed when a probe reaches the record: it keeps the value
// the item page gave, and no change is logged.
func TestSyncKeepsFieldsTheHitsDoNotShow(t *testing.T) {
	s := newShop()
	ts := httptest.NewServer(s)
	defer ts.Close()
	src := shopSource(ts.URL)
	src.Fields = append(src.Fields, "heading=css:h1")
	st, db, _ := relationOf(t, Definition{Name: "fruit", Source: src, Weight: "1", Dissimilarity: "changed", Created: t0}, "a1\na2\np1\n")
	defer db.Close()
	cl, err := NewClient(src, ClientOptions{MaxBytes: 1 << 20})
	if err != nil {
		t.Fatal(err)
	}
	if rep, err := Sync(t.Context(), st, cl, "fruit", t0.Add(time.Hour), syncOpts(10)); err != nil || rep.IDFetches != 3 {
		t.Fatalf("first sync: %+v, %v; want 3 ID fetches", rep, err)
	}
	rep, err := Sync(t.Context(), st, cl, "fruit", t0.Add(48*time.Hour), syncOpts(2))
	if err != nil {
		t.Fatal(err)
	}
	if len(rep.Probes) == 0 || rep.Probes[0].Reached == 0 {
		t.Fatalf("second sync reached nothing by search: %+v", rep.Probes)
	}
	if rep.Changed != 0 {
		t.Errorf("%d records changed, want 0: the shop changed nothing", rep.Changed)
	}
	if changes, _ := st.Changes(t.Context(), "fruit", 0, 10); len(changes) != 0 {
		t.Errorf("changes %+v, want none", changes)
	}
	rows, err := st.Rows(t.Context(), "fruit")
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range rows {
		if r.ID == "a1" && r.Fields["heading"] != "red apple" {
			t.Errorf("a1's fields after the probe: %v, want heading kept as red apple", r.Fields)
		}
	}
}

// A weight field the source fills with "NaN" or "Inf" is not a weight: it
// counts as 1, as a field that is not a number does, and neither the
// plan nor the staleness of the rows turns infinite or NaN.
func TestSyncWeightFieldNotFiniteIsNeutral(t *testing.T) {
	s := newShop()
	s.items["a1"] = [2]string{"red apple", "Inf"}
	s.items["a2"] = [2]string{"green apple", "NaN"}
	ts := httptest.NewServer(s)
	defer ts.Close()
	def := Definition{Name: "fruit", Source: shopSource(ts.URL), Weight: "field:price", Dissimilarity: "changed", Created: t0}
	st, db, _ := relationOf(t, def, "a1\na2\np1\n")
	defer db.Close()
	cl, err := NewClient(def.Source, ClientOptions{MaxBytes: 1 << 20})
	if err != nil {
		t.Fatal(err)
	}
	if rep, err := Sync(t.Context(), st, cl, "fruit", t0.Add(time.Hour), syncOpts(10)); err != nil || rep.IDFetches != 3 {
		t.Fatalf("first sync: %+v, %v; want 3 ID fetches", rep, err)
	}
	now := t0.Add(48 * time.Hour)
	dry := syncOpts(10)
	dry.DryRun = true
	rep, err := Sync(t.Context(), st, cl, "fruit", now, dry)
	if err != nil {
		t.Fatal(err)
	}
	for _, pr := range rep.Probes {
		if math.IsNaN(pr.A) || math.IsInf(pr.A, 0) {
			t.Errorf("probe %q: a_i = %g, want a finite cost", pr.Query(), pr.A)
		}
	}
	rows, err := st.Rows(t.Context(), "fruit")
	if err != nil {
		t.Fatal(err)
	}
	sorted, stale := Stalest(def, rows, now, dry)
	for i, r := range sorted {
		if math.IsNaN(stale[i]) || math.IsInf(stale[i], 0) {
			t.Errorf("%s (price %s): w·F̂ = %g, want it finite", r.ID, r.Fields["price"], stale[i])
		}
	}
}

// A numeric field that turns "NaN" or "Inf" is a change but counts no
// update under abs:: the sync stores it, and the rate stays finite.
func TestSyncNumericFieldNotFiniteCountsNoUpdates(t *testing.T) {
	s := newShop()
	ts := httptest.NewServer(s)
	defer ts.Close()
	st, db, _ := shopRelation(t, ts.URL) // dissimilarity abs:price
	defer db.Close()
	cl, err := NewClient(shopSource(ts.URL), ClientOptions{MaxBytes: 1 << 20})
	if err != nil {
		t.Fatal(err)
	}
	if rep, err := Sync(t.Context(), st, cl, "fruit", t0.Add(time.Hour), syncOpts(10)); err != nil || rep.IDFetches != 3 {
		t.Fatalf("first sync: %+v, %v; want 3 ID fetches", rep, err)
	}
	s.mu.Lock()
	s.items["a1"] = [2]string{"red apple", "NaN"}
	s.items["a2"] = [2]string{"green apple", "Inf"}
	s.mu.Unlock()
	rep, err := Sync(t.Context(), st, cl, "fruit", t0.Add(48*time.Hour), syncOpts(2))
	if err != nil {
		t.Fatalf("second sync: %v", err)
	}
	if rep.Changed != 2 {
		t.Errorf("%d records changed, want 2 (a1's and a2's price)", rep.Changed)
	}
	rows, err := st.Rows(t.Context(), "fruit")
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range rows {
		if r.ID == "p1" {
			continue
		}
		if r.Rate.Syncs != 1 || r.Rate.Updates != 0 {
			t.Errorf("%s (price %s): rate observation %+v, want one sync counting no update", r.ID, r.Fields["price"], r.Rate)
		}
	}
}

func TestSyncDryRunSendsNothing(t *testing.T) {
	s, st, cl := shopSync(t, ClientOptions{})
	if _, err := Sync(t.Context(), st, cl, "fruit", t0.Add(time.Hour), syncOpts(10)); err != nil {
		t.Fatal(err)
	}
	var hits int
	s.set("/", func(w http.ResponseWriter, r *http.Request) { hits++; http.NotFound(w, r) })
	rep, err := Sync(t.Context(), st, cl, "fruit", t0.Add(72*time.Hour), func() SyncOptions { o := syncOpts(5); o.DryRun = true; return o }())
	if err != nil {
		t.Fatal(err)
	}
	if hits != 0 || rep.Requests != 0 {
		t.Errorf("dry run sent %d requests", hits)
	}
	if len(rep.Probes) == 0 || rep.Interval <= 0 {
		t.Errorf("dry run plan: %d probes, I = %v; want probes and an interval", len(rep.Probes), rep.Interval)
	}
	for i := 1; i < len(rep.Probes); i++ {
		if rep.Probes[i].A < rep.Probes[i-1].A {
			t.Errorf("probes not in ascending a_i: %v then %v", rep.Probes[i-1].A, rep.Probes[i].A)
		}
	}
}

func TestSyncBadSourceLosesNothing(t *testing.T) {
	s := newShop()
	ts := httptest.NewServer(s)
	defer ts.Close()
	st, db, dir := shopRelation(t, ts.URL)
	cl, _ := NewClient(shopSource(ts.URL), ClientOptions{MaxBytes: 1 << 20, Retries: 1, Timeout: 200 * time.Millisecond})
	if _, err := Sync(t.Context(), st, cl, "fruit", t0.Add(time.Hour), syncOpts(10)); err != nil {
		t.Fatal(err)
	}
	before, _ := st.Rows(t.Context(), "fruit")
	for _, c := range []struct {
		name string
		h    http.HandlerFunc
		want error
	}{
		{"garbage", func(w http.ResponseWriter, _ *http.Request) {
			w.Header().Set("Content-Type", "text/html")
			w.Write([]byte(`<html>\x00\x01 not a result page <p class="total" data-total="1"></p><li class="hit">no id</li></html>`))
		}, ErrGarbage},
		{"429", func(w http.ResponseWriter, _ *http.Request) {
			w.Header().Set("Retry-After", "0")
			w.WriteHeader(http.StatusTooManyRequests)
		}, ErrThrottled},
		{"timeout", func(w http.ResponseWriter, r *http.Request) { <-r.Context().Done() }, nil},
	} {
		t.Run(c.name, func(t *testing.T) {
			s.set("/search", c.h)
			s.set("/item", c.h)
			_, err := Sync(t.Context(), st, cl, "fruit", t0.Add(72*time.Hour), syncOpts(10))
			if err == nil || (c.want != nil && !errors.Is(err, c.want)) || !strings.Contains(err.Error(), "relation: sync fruit") {
				t.Fatalf("error %v, want %v naming the relation", err, c.want)
			}
		})
	}
	if err := db.Close(); err != nil {
		t.Fatal(err)
	}
	st2, db2 := openStore(t, dir)
	defer db2.Close()
	after, err := st2.Rows(t.Context(), "fruit")
	if err != nil {
		t.Fatal(err)
	}
	if len(after) != len(before) {
		t.Fatalf("%d rows after the failed syncs, %d before", len(after), len(before))
	}
	for i := range before {
		if after[i].Version != before[i].Version || after[i].Fields["price"] != before[i].Fields["price"] {
			t.Errorf("row %s: %v became %v", before[i].ID, before[i].Fields, after[i].Fields)
		}
	}
}

func TestStoreRejectsBadInput(t *testing.T) {
	st, db := openStore(t, t.TempDir())
	defer db.Close()
	good := Definition{Name: "fruit", Source: shopSource("http://shop.test"), Weight: "1", Dissimilarity: "changed", Created: t0}
	for name, mut := range map[string]func(*Definition){
		"relation name \"Bad Name\"": func(d *Definition) { d.Name = "Bad Name" },
		"--weight \"field:nope\"":    func(d *Definition) { d.Weight = "field:nope" },
		"--dissimilarity \"abs:\"":   func(d *Definition) { d.Dissimilarity = "abs:" },
	} {
		d := good
		mut(&d)
		if err := st.Create(t.Context(), d); err == nil || !strings.Contains(err.Error(), name) {
			t.Errorf("error %v does not name %s", err, name)
		}
	}
	if err := st.Create(t.Context(), good); err != nil {
		t.Fatal(err)
	}
	if err := st.Create(t.Context(), good); !errors.Is(err, ErrExists) {
		t.Errorf("second create: %v, want ErrExists", err)
	}
	if _, err := st.Rows(t.Context(), "nope"); !errors.Is(err, ErrNoRelation) {
		t.Errorf("rows of a missing relation: %v", err)
	}
	for _, bad := range []string{"a\tx", "\t2", "a\t-1", strings.Repeat("x", 2000), "a\t" + strings.Repeat("9x", 1<<20), "a\x00b", "a\xffb", "a\u0085b"} {
		// The error names the line and repeats a bad weight only in part.
		if _, _, err := ParseIDs(bad, nil); err == nil || !strings.Contains(err.Error(), "line 1") || len(err.Error()) > 200 {
			t.Errorf("ParseIDs(%.20q): %.300v, want a short error naming line 1", bad, err)
		}
	}
}

// putRow stores a row as Add would have before it checked IDs.
func putRow(t *testing.T, db *repo.DB, name string, r Row) {
	t.Helper()
	b := db.NewBatch(t.Context())
	defer b.Close()
	if err := putJSON(b, rowKey(name, r.ID), r); err != nil {
		t.Fatal(err)
	}
	if err := b.Commit(); err != nil {
		t.Fatal(err)
	}
}

func rowByID(t *testing.T, st *Store, name, id string) Row {
	t.Helper()
	rows, err := st.Rows(t.Context(), name)
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range rows {
		if r.ID == id {
			return r
		}
	}
	t.Fatalf("no row %s", id)
	return Row{}
}

func TestSyncGoesOnPastAnUnfetchableRecord(t *testing.T) {
	for _, c := range []struct {
		name, id, want string
		h              http.HandlerFunc // nil: the ID makes no URL, nothing is sent
	}{
		{"an item page that answers 500", "bad", "status 500", func(w http.ResponseWriter, _ *http.Request) {
			w.WriteHeader(http.StatusInternalServerError)
		}},
		{"an item page that is not HTML", "bad", "Content-Type", func(w http.ResponseWriter, _ *http.Request) {
			w.Header().Set("Content-Type", "application/json")
			w.Write([]byte(`{"name":"bad"}`))
		}},
		{"an ID that makes no URL", "/%zz", "does not parse", nil},
	} {
		t.Run(c.name, func(t *testing.T) {
			s := newShop()
			ts := httptest.NewServer(s)
			defer ts.Close()
			st, db, _ := shopRelation(t, ts.URL)
			defer db.Close()
			if c.h != nil {
				s.set("/item/"+c.id, c.h)
			}
			// The heaviest record, fetched first.
			putRow(t, db, "fruit", Row{ID: c.id, Weight: 100})
			cl, _ := NewClient(shopSource(ts.URL), ClientOptions{MaxBytes: 1 << 20})
			rep, err := Sync(t.Context(), st, cl, "fruit", t0.Add(time.Hour), syncOpts(10))
			if err != nil {
				t.Fatalf("sync stopped at the record it cannot fetch: %v", err)
			}
			if rep.IDFetches != 3 || rep.Reached != 3 || rep.FailedFetches != 1 || len(rep.Failures) != 1 || rep.Failures[0].ID != c.id || !strings.Contains(rep.Failures[0].Err.Error(), c.want) {
				t.Fatalf("%d ID fetches, %d read, %d failed %v; want 3, 3 and 1 naming %s: %s", rep.IDFetches, rep.Reached, rep.FailedFetches, rep.Failures, c.id, c.want)
			}
			if r := rowByID(t, st, "fruit", c.id); !strings.Contains(r.FetchError, c.want) || !r.FetchErrorAt.Equal(t0.Add(time.Hour)) || r.Version != "" {
				t.Errorf("row %s after the failed fetch: %+v, want its error (%s) and when", c.id, r, c.want)
			}
		})
	}
}

// TestSyncFetchesFailedRecordsLast: a record whose last fetch failed is
// fetched after the others, and a read clears its error.
func TestSyncFetchesFailedRecordsLast(t *testing.T) {
	s := newShop()
	var mu sync.Mutex
	var items []string
	ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if strings.HasPrefix(r.URL.Path, "/item/") {
			mu.Lock()
			items = append(items, strings.TrimPrefix(r.URL.Path, "/item/"))
			mu.Unlock()
		}
		s.ServeHTTP(w, r)
	}))
	defer ts.Close()
	st, db, _ := shopRelation(t, ts.URL)
	defer db.Close()
	s.set("/item/bad", func(w http.ResponseWriter, _ *http.Request) { w.WriteHeader(http.StatusInternalServerError) })
	if _, err := st.Add(t.Context(), "fruit", []string{"bad"}, []float64{100}); err != nil {
		t.Fatal(err)
	}
	cl, _ := NewClient(shopSource(ts.URL), ClientOptions{MaxBytes: 1 << 20})
	// robots.txt, then the heaviest record, which fails, then a1.
	if rep, err := Sync(t.Context(), st, cl, "fruit", t0.Add(time.Hour), syncOpts(3)); err != nil || rep.FailedFetches != 1 || rep.IDFetches != 1 {
		t.Fatalf("first sync: %v, %+v; want bad failed and a1 read", err, rep)
	}
	mu.Lock()
	items = nil
	mu.Unlock()
	if _, err := Sync(t.Context(), st, cl, "fruit", t0.Add(2*time.Hour), syncOpts(20)); err != nil {
		t.Fatal(err)
	}
	mu.Lock()
	got := slices.Clone(items)
	mu.Unlock()
	if len(got) < 2 || got[len(got)-1] != "bad" || !slices.Contains(got, "p1") {
		t.Fatalf("second sync fetched %v by ID; want p1, never read, before bad, whose fetch failed", got)
	}
	s.set("/item/bad", func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "text/html")
		w.Write([]byte(`<html><h1>bad pear</h1><span id="price">0.10</span></html>`))
	})
	if _, err := Sync(t.Context(), st, cl, "fruit", t0.Add(3*time.Hour), syncOpts(20)); err != nil {
		t.Fatal(err)
	}
	if r := rowByID(t, st, "fruit", "bad"); r.FetchError != "" || !r.FetchErrorAt.IsZero() || r.Fields["name"] != "bad pear" {
		t.Errorf("row bad once the source answers: %+v, want it read and its error cleared", r)
	}
}

func TestSyncStopsWhenTheSourceLooksDown(t *testing.T) {
	s := newShop()
	ts := httptest.NewServer(s)
	defer ts.Close()
	st, db, _ := shopRelation(t, ts.URL)
	defer db.Close()
	if _, err := st.Add(t.Context(), "fruit", []string{"b1", "b2", "b3", "b4"}, []float64{1, 1, 1, 1}); err != nil {
		t.Fatal(err)
	}
	s.set("/item/", func(w http.ResponseWriter, _ *http.Request) { w.WriteHeader(http.StatusBadGateway) })
	cl, _ := NewClient(shopSource(ts.URL), ClientOptions{MaxBytes: 1 << 20})
	rep, err := Sync(t.Context(), st, cl, "fruit", t0.Add(time.Hour), syncOpts(50))
	if err == nil || !strings.Contains(err.Error(), "looks down") || !strings.Contains(err.Error(), "status 502") {
		t.Fatalf("error %v, want the sync stopped, the source looking down", err)
	}
	if rep.FailedFetches != maxConsecutiveFailures || rep.Requests != 1+maxConsecutiveFailures {
		t.Errorf("%d failed fetches in %d requests, want %d and robots.txt", rep.FailedFetches, rep.Requests, maxConsecutiveFailures)
	}
}

// Failures of single records (a PDF where an item page should be, a body
// over relation.max_bytes) do not stop a sync however many there are in a
// row: the source answered. Only outages count towards the stop rule.
func TestSyncStopsOnlyOnOutages(t *testing.T) {
	s := newShop()
	ts := httptest.NewServer(s)
	defer ts.Close()
	st, db, _ := shopRelation(t, ts.URL)
	defer db.Close()
	if _, err := st.Add(t.Context(), "fruit", []string{"b1", "b2", "b3", "b4"}, []float64{9, 9, 9, 9}); err != nil {
		t.Fatal(err)
	}
	s.set("/item/b1", func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "application/pdf")
		w.Write([]byte("%PDF-1.7"))
	})
	s.set("/item/b2", func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "application/pdf")
		w.Write([]byte("%PDF-1.7"))
	})
	big := func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "text/html")
		w.Write([]byte("<html>" + strings.Repeat("x", 5000) + "</html>"))
	}
	s.set("/item/b3", big)
	s.set("/item/b4", big)
	opts := Config{MaxBytes: 4096}.ClientOptions("deltaq")
	cl, err := NewClient(shopSource(ts.URL), opts)
	if err != nil {
		t.Fatal(err)
	}
	rep, err := Sync(t.Context(), st, cl, "fruit", t0.Add(time.Hour), syncOpts(50))
	if err != nil {
		t.Fatalf("sync stopped at records the source answered badly: %v", err)
	}
	if rep.FailedFetches != 4 || rep.IDFetches != 3 {
		t.Errorf("%d failed fetches, %d answered; want b1-b4 failed and a1, a2, p1 read", rep.FailedFetches, rep.IDFetches)
	}
	for _, f := range rep.Failures {
		if (f.ID == "b3" || f.ID == "b4") && !strings.Contains(f.Err.Error(), "body exceeds relation.max_bytes = 4096 bytes") {
			t.Errorf("%s: %v, want the limit named by its setting", f.ID, f.Err)
		}
	}
}

// A result page without the --total count is one probe's problem: the
// sync reads its hits, goes on with the other probes and the fetches by
// ID, and says which probe lacked its count.
func TestSyncGoesOnWithoutAReportedTotal(t *testing.T) {
	s := newShop()
	ts := httptest.NewServer(s)
	defer ts.Close()
	st, db, _ := shopRelation(t, ts.URL)
	defer db.Close()
	cl, _ := NewClient(shopSource(ts.URL), ClientOptions{MaxBytes: 1 << 20})
	// The first sync reads the records by ID: their keywords make the
	// probes of the next.
	if _, err := Sync(t.Context(), st, cl, "fruit", t0.Add(time.Hour), syncOpts(50)); err != nil {
		t.Fatal(err)
	}
	if _, err := st.Add(t.Context(), "fruit", []string{"zz"}, []float64{1}); err != nil {
		t.Fatal(err) // no search finds it: a fetch by ID must
	}
	s.set("/search", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html")
		fmt.Fprint(w, `<html><body><ol><li class="hit" data-id="a1"><b class="name">red apple</b> <i class="price">1.50</i></li></ol></body></html>`)
	})
	rep, err := Sync(t.Context(), st, cl, "fruit", t0.Add(72*time.Hour), syncOpts(50))
	if err != nil {
		t.Fatalf("a result page without its total stopped the sync: %v", err)
	}
	sent := 0
	for _, pr := range rep.Probes {
		if pr.Sent > 0 {
			sent++
			if pr.Reported != -1 || pr.NoTotal == nil || !strings.Contains(pr.NoTotal.Error(), "--total css:.total@data-total") {
				t.Errorf("probe %q: reported %d, NoTotal %v; want -1 and why", pr.Query(), pr.Reported, pr.NoTotal)
			}
		}
	}
	if sent == 0 || rep.NoTotal != sent {
		t.Errorf("%d probes sent, %d without a total reported; want every one sent", sent, rep.NoTotal)
	}
	if rep.IDFetches == 0 || rep.Missing != 1 {
		t.Errorf("%d fetches by ID, %d missing; want zz fetched by ID and found missing", rep.IDFetches, rep.Missing)
	}
}

func TestSyncIntervalPastTheLongestDuration(t *testing.T) {
	_, st, cl := shopSync(t, ClientOptions{})
	if _, err := Sync(t.Context(), st, cl, "fruit", t0.Add(time.Hour), syncOpts(10)); err != nil {
		t.Fatal(err)
	}
	// A staleness target so loose that I is far past 292 years.
	o := syncOpts(5)
	o.DryRun, o.Alpha = true, 1e12
	rep, err := Sync(t.Context(), st, cl, "fruit", t0.Add(72*time.Hour), o)
	if err != nil {
		t.Fatal(err)
	}
	if len(rep.Probes) < 2 {
		t.Fatalf("%d probes: the plan needs two for an interval", len(rep.Probes))
	}
	if rep.Interval != 0 || !strings.Contains(rep.IntervalNote, "exceeds the longest duration") {
		t.Errorf("I = %v, note %q; want none, and a note saying it exceeds a duration", rep.Interval, rep.IntervalNote)
	}
}
