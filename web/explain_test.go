package web

import (
	"bytes"
	"context"
	"encoding/json"
	"html"
	"math"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/deltaq/deltaq/frontier"
	"github.com/deltaq/deltaq/repo"
)

const explained = "http://a.test/p"

// explainedRepo holds one page fetched three times (at t0, t0+2h, t0+3h)
// with ΔQ_A measured on the two re-downloads, and a frontier that ran
// under the deltaq policy.
func explainedRepo(t *testing.T) (*repo.DB, ExplainFunc) {
	t.Helper()
	db := memRepo(t)
	t0 := time.Date(2026, 1, 5, 0, 0, 0, 0, time.UTC)
	b := db.NewBatch(t.Context())
	last := t0.Add(3 * time.Hour)
	b.PutPage(&repo.Page{URL: explained, State: repo.StateLive, LastOutcome: repo.OutcomeOK, HTTPStatus: 200, Fetches: 3, Changes: 2,
		FirstSeen: t0, LastFetch: last, LastChange: last, Version: last, Title: "Pebble notes", Signature: []byte{1, 2, 3, 4, 5, 6, 7, 8}})
	b.AddVersion(explained, &repo.Version{FetchedAt: last, Title: "Pebble notes", Text: "text"})
	for i, h := range []int{0, 2, 3} {
		at := t0.Add(time.Duration(h) * time.Hour)
		b.LogFetch(explained, &repo.FetchRecord{At: at, Took: 12500 * time.Microsecond, Reason: []repo.Reason{repo.ReasonSeed, repo.ReasonRecrawl, repo.ReasonRecrawl}[i],
			Outcome: repo.OutcomeOK, HTTPStatus: 200, Bytes: 2048, Changed: i > 0, Difference: []float64{-1, 0.5, 0.25}[i]})
		if i > 0 {
			b.PutDeltaQ(explained, &repo.DeltaQ{At: at, LastFetch: t0, Value: []float64{0, 0.4, 0.3}[i], Terms: 2})
		}
	}
	if err := b.Commit(); err != nil {
		t.Fatal(err)
	}
	fcfg := frontier.Config{Policy: "deltaq", Budget: frontier.BudgetConfig{Fetches: 10, Period: time.Hour}, HostBuffer: 4, Window: 8, Exploration: "thompson", Changes: "accumulate"}
	if _, err := frontier.New(t.Context(), db, fcfg, nil, &frontier.DeltaQ{Exploration: "thompson", Window: 8}, frontier.Options{}); err != nil {
		t.Fatal(err)
	}
	// A later command configured with the default policy.
	fcfg.Policy = "uniform"
	return db, func(ctx context.Context, u string) (frontier.Explanation, error) {
		return frontier.ExplainPage(ctx, db, fcfg, u, t0.Add(5*time.Hour), nil)
	}
}

func TestExplainReportIsReadableAsTextJSONAndHTML(t *testing.T) {
	db, explain := explainedRepo(t)
	rep, err := BuildPageReport(t.Context(), db, explain, explained)
	if err != nil {
		t.Fatal(err)
	}

	t.Run("text names enums, formats times and durations, and the crawl's policy", func(t *testing.T) {
		var b bytes.Buffer
		if err := rep.WriteText(&b); err != nil {
			t.Fatal(err)
		}
		text := b.String()
		flat := strings.Join(strings.Fields(text), " ")
		for _, want := range []string{
			"state         live (last fetch: ok, HTTP 200)",
			"first seen    2026-01-05 00:00:00 UTC",
			"recrawl       (policy deltaq, recorded by the last crawl)",
			"δQ_A          0.25 per period of 1h0m0s, the mean over 2 re-downloads (window 8)",
			"priority      0.5 = δQ_A·(t − LR), LR = 2026-01-05 03:00:00 UTC",
			"2026-01-05 02:00:00 UTC  recrawl  ok 200  2048 B  12.5 ms  changed (shingle difference 0.500)",
			"ΔQ_A measurements  (2)",
			"stake 1)", // no index: every page's stake counts 1
		} {
			if !strings.Contains(flat, strings.Join(strings.Fields(want), " ")) {
				t.Errorf("text lacks %q:\n%s", want, text)
			}
		}
		for _, raw := range []string{"uniform", "12500000", "AQIDBAUGBwg=", "\"State\""} {
			if strings.Contains(text, raw) {
				t.Errorf("text carries %q:\n%s", raw, text)
			}
		}
	})

	t.Run("JSON carries a typed recrawl section", func(t *testing.T) {
		b, err := json.Marshal(rep)
		if err != nil {
			t.Fatal(err)
		}
		var got struct {
			Recrawl struct {
				Policy, PolicySource, Period string
				Priority                     float64
				Posterior                    *struct {
					Changes, Impact, Stake, Priority float64
					Gain                             float64 `json:"expected_delta_q"`
					Open                             float64 `json:"open_periods"`
				}
			} `json:"recrawl"`
		}
		got.Recrawl.PolicySource = "?"
		if err := json.Unmarshal(bytes.ReplaceAll(b, []byte(`"policy_source"`), []byte(`"PolicySource"`)), &got); err != nil {
			t.Fatal(err)
		}
		if r := got.Recrawl; r.Policy != "deltaq" || r.PolicySource != "repository" || r.Period != "1h0m0s" || r.Priority != 0.5 {
			t.Fatalf("recrawl = %+v", r)
		}
		if p := got.Recrawl.Posterior; p == nil || p.Stake != 1 || p.Gain <= 0 || math.Abs(p.Gain-p.Changes*p.Impact) > 1e-12 ||
			p.Open <= 0 || math.Abs(p.Priority-p.Gain*p.Open) > 1e-12 {
			t.Fatalf("posterior = %+v, want stake 1, expected ΔQ_A = changes × impact > 0 and priority = that × open periods", p)
		}
	})

	t.Run("the HTML view shows the same report and results link to it", func(t *testing.T) {
		s, err := New(testConfig, Deps{Search: &fakeSearch{total: 1}, Pages: db, Explain: explain})
		if err != nil {
			t.Fatal(err)
		}
		srv := httptest.NewServer(s)
		t.Cleanup(srv.Close)
		code, page, _ := get(t, srv, "/explain?url="+url.QueryEscape(explained))
		if code != 200 {
			t.Fatalf("status %d", code)
		}
		for _, want := range []string{"Pebble notes", "deltaq (recorded by the last crawl)", "0.25 per period of 1h0m0s", "12.5 ms", "shingle difference 0.500", `id="posterior"`, "periods open = "} {
			if !strings.Contains(page, want) {
				t.Errorf("explain view lacks %q", want)
			}
		}
		if code, _, _ := get(t, srv, "/explain?url="+url.QueryEscape("http://a.test/unknown")); code != 404 {
			t.Errorf("unknown page: %d, want 404", code)
		}
		if code, _, _ := get(t, srv, "/explain?url=ftp%3A%2F%2Fa.test%2F"); code != 400 {
			t.Errorf("bad url: %d, want 400", code)
		}
		// A bad escape, or the page given twice, is named, not taken for
		// no page or for the first one, as the JSON report does too.
		for query, want := range map[string]string{
			"url=%ZZ": "query string",
			"url=http%3A%2F%2Fa.test%2F0&url=http%3A%2F%2Fa.test%2F1": "given 2 times",
		} {
			for _, path := range []string{"/explain?", "/api/v1/page?"} {
				if code, page, _ := get(t, srv, path+query); code != 400 || !strings.Contains(html.UnescapeString(page), want) {
					t.Errorf("%s%s: %d, want 400 saying %q\n%s", path, query, code, want, page)
				}
			}
		}
		_, results, _ := get(t, srv, "/?q=tar")
		if !strings.Contains(results, `href="/explain?url=http%3a%2f%2fa.test%2f0"`) {
			t.Errorf("results do not link to their explain view")
		}
	})
}

// TestAPageNeverFetchedHasNoLastOutcome: a queued page's outcome is the
// zero value, OutcomeOK; the report used to say "last fetch: ok" of a page
// with no fetch, in the text, the HTML view and /api/v1/page.
func TestAPageNeverFetchedHasNoLastOutcome(t *testing.T) {
	db := memRepo(t)
	const queued, refused = "http://a.test/queued", "http://a.test/private"
	at := time.Date(2026, 1, 5, 0, 0, 0, 0, time.UTC)
	b := db.NewBatch(t.Context())
	b.PutPage(&repo.Page{URL: queued, State: repo.StateQueued, FirstSeen: at})
	// robots.txt refused it: an attempt without a fetch, whose outcome counts.
	b.PutPage(&repo.Page{URL: refused, State: repo.StateFailed, LastOutcome: repo.OutcomeDisallowed, FirstSeen: at})
	if err := b.Commit(); err != nil {
		t.Fatal(err)
	}
	srv := newTestServer(t, &fakeSearch{}, db)
	for _, c := range []struct{ url, text, outcome string }{
		{queued, "queued (never fetched)", ""},
		{refused, "failed (last fetch: disallowed)", "disallowed"},
	} {
		rep, err := BuildPageReport(t.Context(), db, nil, c.url)
		if err != nil {
			t.Fatal(err)
		}
		var text bytes.Buffer
		if err := rep.WriteText(&text); err != nil {
			t.Fatal(err)
		}
		if flat := strings.Join(strings.Fields(text.String()), " "); !strings.Contains(flat, "state "+c.text) {
			t.Errorf("%s: text lacks %q:\n%s", c.url, c.text, text.String())
		}
		code, body, _ := get(t, srv, "/api/v1/page?url="+url.QueryEscape(c.url))
		var got map[string]any
		if err := json.Unmarshal([]byte(body), &got); code != 200 || err != nil {
			t.Fatalf("%s: /api/v1/page %d %v: %s", c.url, code, err, body)
		}
		if o, ok := got["last_outcome"]; c.outcome == "" && ok || c.outcome != "" && o != c.outcome {
			t.Errorf("%s: /api/v1/page last_outcome = %v (present %v), want %q", c.url, o, ok, c.outcome)
		}
	}
	s, err := New(testConfig, Deps{Search: &fakeSearch{}, Pages: db})
	if err != nil {
		t.Fatal(err)
	}
	html := httptest.NewServer(s)
	t.Cleanup(html.Close)
	if code, page, _ := get(t, html, "/explain?url="+url.QueryEscape(queued)); code != 200 || !strings.Contains(page, "queued (never fetched)") || strings.Contains(page, "last fetch: ok") {
		t.Errorf("explain view of a queued page (%d) does not say it was never fetched:\n%s", code, page)
	}
}

func TestAdminListenerTakesTheOperatorRoutes(t *testing.T) {
	db, explain := explainedRepo(t)
	cfg := testConfig
	cfg.Admin.Listen = "127.0.0.1:9090"
	s, err := New(cfg, Deps{Search: &fakeSearch{total: 1}, Pages: db, Explain: explain})
	if err != nil {
		t.Fatal(err)
	}
	public := httptest.NewServer(s)
	t.Cleanup(public.Close)
	admin := httptest.NewServer(s.Admin())
	t.Cleanup(admin.Close)
	operator := []string{"/metrics", "/explain?url=" + url.QueryEscape(explained), "/api/v1/page?url=" + url.QueryEscape(explained)}
	for _, path := range operator {
		if code, _, _ := get(t, public, path); code != 404 {
			t.Errorf("public %s: %d, want 404", path, code)
		}
		if code, _, _ := get(t, admin, path); code != 200 {
			t.Errorf("admin %s: %d, want 200", path, code)
		}
	}
	for _, path := range []string{"/?q=tar", "/api/v1/search?q=tar", "/healthz"} {
		if code, _, _ := get(t, public, path); code != 200 {
			t.Errorf("public %s: %d, want 200", path, code)
		}
	}
	if _, page, _ := get(t, public, "/?q=tar"); strings.Contains(page, "/explain?") {
		t.Error("the public page links to explain views it does not serve")
	}
	if _, page, _ := get(t, admin, "/?q=tar"); !strings.Contains(page, "/explain?") {
		t.Error("the admin page does not link results to their explain views")
	}

	t.Run("without an admin listener the public one serves everything", func(t *testing.T) {
		s, err := New(testConfig, Deps{Search: &fakeSearch{total: 1}, Pages: db, Explain: explain})
		if err != nil || s.Admin() != nil {
			t.Fatalf("New = %v; Admin() = %v, want nil", err, s.Admin())
		}
		srv := httptest.NewServer(s)
		t.Cleanup(srv.Close)
		for _, path := range operator {
			if code, _, _ := get(t, srv, path); code != 200 {
				t.Errorf("%s: %d, want 200", path, code)
			}
		}
	})

	t.Run("a bad admin address names the key", func(t *testing.T) {
		for _, addr := range []string{"nocolon", "127.0.0.1:8080"} {
			cfg := testConfig
			cfg.Listen, cfg.Admin.Listen = "127.0.0.1:8080", addr
			if _, err := New(cfg, Deps{Search: &fakeSearch{}, Pages: db}); err == nil || !strings.Contains(err.Error(), "server.admin.listen") {
				t.Errorf("admin.listen %q: %v", addr, err)
			}
		}
		// Port 0 twice is two free ports.
		cfg := testConfig
		cfg.Listen, cfg.Admin.Listen = "127.0.0.1:0", "127.0.0.1:0"
		if _, err := New(cfg, Deps{Search: &fakeSearch{}, Pages: db}); err != nil {
			t.Errorf("listen and admin.listen both 127.0.0.1:0: %v", err)
		}
	})
}
