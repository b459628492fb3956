package web

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/deltaq/deltaq/internal/clock"
	"github.com/deltaq/deltaq/relation"
	"github.com/deltaq/deltaq/repo"
)

var relationTestConfig = relation.Config{Budget: 5, Method: 1, MaxKeywords: 2, Pool: 10, Alpha: 0.1, RatePrior: 0.1, RatePriorWeight: 7,
	Unit: 24 * time.Hour, PageSize: 10, MaxResults: 10, Timeout: 5 * time.Second, MaxBytes: 1 << 20, APIMaxRows: 2}

// newRelationEnv keeps a relation of two products from a tiny shop whose
// widget price moves from 19.99 to 17.49 between two syncs.
func newRelationEnv(t *testing.T) (*httptest.Server, *relation.Store) {
	t.Helper()
	var price atomic.Value
	price.Store("19.99")
	shop := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html")
		switch r.URL.Path {
		case "/robots.txt":
			http.NotFound(w, r)
		case "/item/widget":
			fmt.Fprintf(w, `<h1>widget</h1><span class="price">%s</span>`, price.Load())
		case "/item/gadget":
			fmt.Fprint(w, `<h1>gadget</h1><span class="price">5.00</span>`)
		case "/item/broken":
			http.Error(w, "down", http.StatusInternalServerError)
		default:
			fmt.Fprint(w, `<p class="total" data-total="0"></p>`)
		}
	}))
	t.Cleanup(shop.Close)
	db, err := repo.Open(t.TempDir(), repo.Config{VersionsKept: 1, FetchLogKept: 2, StatsKept: 1, CacheBytes: 1 << 20}, repo.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	st := relation.NewStore(db)
	t0 := time.Date(2026, 3, 1, 0, 0, 0, 0, time.UTC)
	src := relation.Source{Search: shop.URL + "/search?q={q}&page={page}", Item: shop.URL + "/item/{id}", PageSize: 10, MaxResults: 10,
		Hit: "li", ID: "css:@data-id", Total: "css:.total@data-total", Fields: []string{"name=css:h1", "price=css:.price"}, Keywords: []string{"name"}}
	if err := st.Create(t.Context(), relation.Definition{Name: "shop", Source: src, Weight: "1", Dissimilarity: "abs:price", Created: t0}); err != nil {
		t.Fatal(err)
	}
	if _, err := st.Add(t.Context(), "shop", []string{"widget", "gadget"}, []float64{1, 1}); err != nil {
		t.Fatal(err)
	}
	cl, err := relation.NewClient(src, relationTestConfig.ClientOptions("test"))
	if err != nil {
		t.Fatal(err)
	}
	for i, p := range []string{"19.99", "17.49"} {
		price.Store(p)
		if _, err := relation.Sync(t.Context(), st, cl, "shop", t0.Add(time.Duration(i+1)*24*time.Hour), relationTestConfig.SyncOptions(false)); err != nil {
			t.Fatal(err)
		}
	}
	h, err := New(testConfig, Deps{Search: &fakeSearch{}, Pages: db, Relations: st, RelationConfig: relationTestConfig,
		Clock: clock.NewManual(t0.Add(10 * 24 * time.Hour))})
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(h)
	t.Cleanup(srv.Close)
	return srv, st
}

func TestRelationRowsAPIShowsFetchErrors(t *testing.T) {
	srv, st := newRelationEnv(t)
	if _, err := st.Add(t.Context(), "shop", []string{"broken"}, []float64{1}); err != nil {
		t.Fatal(err)
	}
	src, err := st.Definition("shop")
	if err != nil {
		t.Fatal(err)
	}
	cl, err := relation.NewClient(src.Source, relationTestConfig.ClientOptions("test"))
	if err != nil {
		t.Fatal(err)
	}
	at := time.Date(2026, 3, 4, 0, 0, 0, 0, time.UTC)
	if _, err := relation.Sync(t.Context(), st, cl, "shop", at, relationTestConfig.SyncOptions(false)); err != nil {
		t.Fatal(err)
	}
	code, body, _ := get(t, srv, "/api/v1/relations/shop/rows")
	if code != http.StatusOK {
		t.Fatalf("rows: %d %s", code, body)
	}
	var out struct {
		Rows []relationRowJSON `json:"rows"`
	}
	if err := json.Unmarshal([]byte(body), &out); err != nil {
		t.Fatal(err)
	}
	// api_max_rows is 2: the widget, stalest, and the record never read.
	if len(out.Rows) != 2 || out.Rows[0].ID != "widget" || out.Rows[1].ID != "broken" {
		t.Fatalf("rows %+v, want widget and broken", out.Rows)
	}
	for _, r := range out.Rows {
		failed := r.FetchError != "" || r.FetchErrorAt != nil
		if want := r.ID == "broken"; failed != want {
			t.Errorf("row %s: fetch error %q at %v, want one: %v", r.ID, r.FetchError, r.FetchErrorAt, want)
		}
		if r.ID == "broken" && (!strings.Contains(r.FetchError, "500") || !r.FetchErrorAt.Equal(at)) {
			t.Errorf("broken: fetch error %q at %v, want the 500 at %v", r.FetchError, r.FetchErrorAt, at)
		}
	}
}

func TestRelationChangesAPI(t *testing.T) {
	srv, _ := newRelationEnv(t)
	code, body, _ := get(t, srv, "/api/v1/relations/shop/changes?since=0")
	if code != http.StatusOK {
		t.Fatalf("changes: %d %s", code, body)
	}
	var out struct {
		Changes []relationChangeJSON `json:"changes"`
		Next    uint64               `json:"next_since"`
	}
	if err := json.Unmarshal([]byte(body), &out); err != nil {
		t.Fatal(err)
	}
	if len(out.Changes) != 1 || out.Changes[0].ID != "widget" || out.Changes[0].Fields[0].Text != "price 19.99 → 17.49" {
		t.Fatalf("changes %+v, want widget: price 19.99 → 17.49", out.Changes)
	}
	code, body, _ = get(t, srv, fmt.Sprintf("/api/v1/relations/shop/changes?since=%d", out.Next))
	if code != http.StatusOK || !strings.Contains(body, `"changes":[]`) {
		t.Errorf("changes since the last: %d %s, want none", code, body)
	}
}

func TestRelationListAPI(t *testing.T) {
	srv, _ := newRelationEnv(t)
	code, body, _ := get(t, srv, "/api/v1/relations")
	if code != http.StatusOK {
		t.Fatalf("list: %d %s", code, body)
	}
	var out struct {
		Relations []relationJSON `json:"relations"`
	}
	if err := json.Unmarshal([]byte(body), &out); err != nil {
		t.Fatal(err)
	}
	// Two syncs, a day apart from the relation's creation, found one change.
	lastSync := time.Date(2026, 3, 3, 0, 0, 0, 0, time.UTC)
	if len(out.Relations) != 1 {
		t.Fatalf("relations %+v, want shop alone", out.Relations)
	}
	if r := out.Relations[0]; r.Name != "shop" || !strings.HasSuffix(r.Search, "/search?q={q}&page={page}") || r.Records != 2 || r.Missing != 0 ||
		r.Changes != 1 || r.LastSync == nil || !r.LastSync.Equal(lastSync) {
		t.Errorf("shop %+v, want 2 records, 1 change, last synced %v", r, lastSync)
	}
}

func TestRelationRowsAPI(t *testing.T) {
	srv, _ := newRelationEnv(t)
	code, body, _ := get(t, srv, "/api/v1/relations/shop/rows")
	if code != http.StatusOK {
		t.Fatalf("rows: %d %s", code, body)
	}
	var out struct {
		Total int               `json:"total"`
		Rows  []relationRowJSON `json:"rows"`
	}
	if err := json.Unmarshal([]byte(body), &out); err != nil {
		t.Fatal(err)
	}
	if out.Total != 2 || len(out.Rows) != 2 || out.Rows[0].Staleness < out.Rows[1].Staleness {
		t.Fatalf("rows %+v: want both, stalest first", out.Rows)
	}
	for _, r := range out.Rows {
		if r.ID == "widget" && r.Fields["price"] != "17.49" {
			t.Errorf("widget's price %q, want 17.49", r.Fields["price"])
		}
	}
	_, body, _ = get(t, srv, fmt.Sprintf("/api/v1/relations/shop/rows?stale_gt=%g", out.Rows[0].Staleness))
	if !strings.Contains(body, `"rows":[]`) {
		t.Errorf("stale_gt above every row: %s", body)
	}
}

func TestRelationAPIErrors(t *testing.T) {
	srv, _ := newRelationEnv(t)
	for path, want := range map[string]string{
		"/api/v1/relations/nope/rows":                `"field":"name","value":"nope"`,
		"/api/v1/relations/shop/rows?limit=3":        `"field":"limit","value":"3","limit":"in [1, 2] (relation.api_max_rows)"`,
		"/api/v1/relations/shop/rows?stale_gt=x":     `"field":"stale_gt","value":"x","limit":"a finite number"`,
		"/api/v1/relations/shop/rows?stale_gt=Inf":   `"field":"stale_gt","value":"Inf","limit":"a finite number"`,
		"/api/v1/relations/shop/rows?stale_gt=1e400": `"field":"stale_gt","value":"1e400","limit":"a finite number"`,
		"/api/v1/relations/shop/changes?since=-1":    `"field":"since","value":"-1","limit":"a whole number from 0 to 18446744073709551615"`,
		// A seq past what a seq can be is refused for its size, not for
		// its sign.
		"/api/v1/relations/shop/changes?since=18446744073709551616": `"limit":"a whole number from 0 to 18446744073709551615","message":"since must be a whole number from 0 to 18446744073709551615 (a change's seq)"`,
		// Every parameter given twice is refused, as limit is.
		"/api/v1/relations/shop/rows?limit=1&limit=2":       `"field":"limit","value":"1, 2","limit":"once"`,
		"/api/v1/relations/shop/rows?stale_gt=1&stale_gt=x": `"field":"stale_gt","value":"1, x","limit":"once"`,
		"/api/v1/relations/shop/changes?since=1&since=x":    `"field":"since","value":"1, x","limit":"once"`,
	} {
		code, body, _ := get(t, srv, path)
		if code < 400 || !strings.Contains(body, want) {
			t.Errorf("GET %s: %d %s, want an error with %s", path, code, body, want)
		}
	}
}

func TestRelationRowsAPINeverReadRowHasEmptyFields(t *testing.T) {
	srv, st := newRelationEnv(t)
	if _, err := st.Add(t.Context(), "shop", []string{"gizmo"}, []float64{1}); err != nil {
		t.Fatal(err)
	}
	code, body, _ := get(t, srv, "/api/v1/relations/shop/rows?limit=2")
	if code != http.StatusOK || !strings.Contains(body, `{"id":"gizmo","fields":{}`) || strings.Contains(body, "null") {
		t.Errorf("rows with gizmo never read: %d %s, want its fields {}", code, body)
	}
}
