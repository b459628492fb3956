package web

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/cockroachdb/pebble/v2/vfs"

	"github.com/deltaq/deltaq/ranking"
	"github.com/deltaq/deltaq/repo"
)

var testSecret = []byte("0123456789abcdef0123456789abcdef")

func newSigner(t testing.TB) *ranking.Signer {
	t.Helper()
	s, err := ranking.NewSigner(testSecret)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

var validClick = ranking.Click{Target: "https://a.test/page?x=1", Query: "go pebble", Rank: 3, User: "ABCDEFGHIJKLMNOPQRSTUVWXYZ"}

type recorded struct{ url, user string }

type clickLog struct{ clicks []recorded }

func (c *clickLog) RecordClick(_ context.Context, url, user string) (bool, error) {
	c.clicks = append(c.clicks, recorded{url, user})
	return true, nil
}

func TestRedirectHandler(t *testing.T) {
	s := newSigner(t)
	link := s.Link(validClick)
	serve := func(target string, cookie string) (*httptest.ResponseRecorder, *clickLog) {
		log := &clickLog{}
		req := httptest.NewRequest(http.MethodGet, target, nil)
		if cookie != "" {
			req.AddCookie(&http.Cookie{Name: UserCookie, Value: cookie})
		}
		rec := httptest.NewRecorder()
		NewRedirectHandler(s, log, nil).ServeHTTP(rec, req)
		return rec, log
	}
	t.Run("a valid link redirects and records the click", func(t *testing.T) {
		rec, log := serve(link, validClick.User)
		if rec.Code != http.StatusFound || rec.Header().Get("Location") != validClick.Target {
			t.Fatalf("got %d to %q", rec.Code, rec.Header().Get("Location"))
		}
		if len(log.clicks) != 1 || log.clicks[0] != (recorded{validClick.Target, validClick.User}) {
			t.Fatalf("recorded %+v", log.clicks)
		}
		if rec.Header().Get("Referrer-Policy") != "no-referrer" {
			t.Fatal("the query would leak to the target as Referer")
		}
	})
	t.Run("another user's link redirects without recording", func(t *testing.T) {
		rec, log := serve(link, "ZYXWVUTSRQPONMLKJIHGFEDCBA")
		if rec.Code != http.StatusFound || len(log.clicks) != 0 {
			t.Fatalf("got %d, recorded %+v", rec.Code, log.clicks)
		}
	})
	t.Run("a bad signature answers 400 with a JSON error", func(t *testing.T) {
		rec, log := serve(strings.Replace(link, "go+pebble", "go+bleve", 1), validClick.User)
		if rec.Code != http.StatusBadRequest || len(log.clicks) != 0 {
			t.Fatalf("got %d, recorded %+v", rec.Code, log.clicks)
		}
		var body errorBody
		if err := json.Unmarshal(rec.Body.Bytes(), &body); err != nil || body.Error.Code != CodeBadLink || !strings.Contains(body.Error.Message, "signature") {
			t.Fatalf("body %q (%v)", rec.Body.String(), err)
		}
		if ct := rec.Header().Get("Content-Type"); !strings.HasPrefix(ct, "application/json") {
			t.Fatalf("Content-Type %q", ct)
		}
	})
	t.Run("a malformed link names the parameter, its value and the limit", func(t *testing.T) {
		for target, want := range map[string]apiError{
			strings.Replace(link, "n=3", "n=0", 1):         {Field: "n", Value: "0", Limit: fmt.Sprintf("an integer in [1, %d]", ranking.MaxCandidates)},
			link + "&x=1":                                  {Field: "x", Limit: "not a parameter of a click link (u, q, n, id, s)"},
			link + "&n=4":                                  {Field: "n", Value: "3, 4", Limit: "given 2 times: once"},
			strings.Replace(link, "&s=", "&sig=", 1):       {Field: "sig", Limit: "not a parameter of a click link (u, q, n, id, s)"},
			"/r?u=ftp%3A%2F%2Fa.test%2F&q=x&n=1&id=ab&s=x": {Field: "u", Value: "ftp://a.test/", Limit: "an absolute http(s) URL"},
		} {
			rec, _ := serve(target, validClick.User)
			var body errorBody
			if err := json.Unmarshal(rec.Body.Bytes(), &body); err != nil || rec.Code != http.StatusBadRequest || body.Error.Code != CodeBadLink ||
				body.Error.Field != want.Field || body.Error.Value != want.Value || body.Error.Limit != want.Limit {
				t.Errorf("%s: %d %s, want field %q, value %q, limit %q", target, rec.Code, rec.Body.String(), want.Field, want.Value, want.Limit)
			}
		}
	})
}

func TestRedirectRecordsIntoTheStore(t *testing.T) {
	db, err := repo.Open("", repo.Config{VersionsKept: 2, FetchLogKept: 3, StatsKept: 2, CacheBytes: 8 << 20}, repo.Options{FS: vfs.NewMem()})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	store, err := ranking.NewStore(db, ranking.Config{
		Order: ranking.OrderBlend, BlendWeight: 0.5, Popularity: ranking.SourcePageRank,
		Promotion:         ranking.PromotionConfig{Rule: ranking.RuleSelective, K: 2, R: 0.1},
		MonitoredFraction: 1,
		PageRank:          ranking.PageRankConfig{Damping: 0.85, Tolerance: 1e-12, MaxIterations: 1000, Interval: time.Hour},
		Candidates:        1000,
	}, ranking.StoreOptions{})
	if err != nil {
		t.Fatal(err)
	}
	s := newSigner(t)
	srv := httptest.NewServer(NewRedirectHandler(s, store, nil))
	defer srv.Close()
	client := srv.Client()
	client.CheckRedirect = func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }
	req, err := http.NewRequestWithContext(t.Context(), http.MethodGet, srv.URL+s.Link(validClick), nil)
	if err != nil {
		t.Fatal(err)
	}
	req.AddCookie(&http.Cookie{Name: UserCookie, Value: validClick.User})
	resp, err := client.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusFound {
		t.Fatalf("status %d", resp.StatusCode)
	}
	st, err := store.Lookup(t.Context(), []string{validClick.Target})
	if err != nil {
		t.Fatal(err)
	}
	if st[0].Clicks != 1 || st[0].Aware != 1 {
		t.Fatalf("stats after the click: %+v", st[0])
	}
}

func TestUserIDCookie(t *testing.T) {
	rec := httptest.NewRecorder()
	id := UserID(rec, httptest.NewRequest(http.MethodGet, "/search", nil))
	cookies := rec.Result().Cookies()
	if len(cookies) != 1 {
		t.Fatalf("cookies set: %v", cookies)
	}
	c := cookies[0]
	if c.Name != UserCookie || c.Value != id || !c.HttpOnly || c.SameSite != http.SameSiteLaxMode || c.Path != "/" || c.MaxAge <= 0 {
		t.Fatalf("cookie %+v", c)
	}
	if !validUserID(id) {
		t.Fatalf("generated id %q is not well formed", id)
	}
	t.Run("an existing id is kept", func(t *testing.T) {
		req := httptest.NewRequest(http.MethodGet, "/search", nil)
		req.AddCookie(c)
		rec := httptest.NewRecorder()
		if got := UserID(rec, req); got != id || len(rec.Result().Cookies()) != 0 {
			t.Fatalf("got %q and %d new cookies", got, len(rec.Result().Cookies()))
		}
	})
	t.Run("a malformed id is replaced", func(t *testing.T) {
		req := httptest.NewRequest(http.MethodGet, "/search", nil)
		req.AddCookie(&http.Cookie{Name: UserCookie, Value: "../../etc"})
		if got := UserID(httptest.NewRecorder(), req); got == "../../etc" || !validUserID(got) {
			t.Fatalf("got %q", got)
		}
	})
}

// TestRedirectBoundsWhatItEchoes: a query string longer than any click
// link is refused naming its length and the limit, and a bad parameter's
// name or value is echoed as an excerpt, so a 60 KB query gets a short
// answer rather than itself twice over.
func TestRedirectBoundsWhatItEchoes(t *testing.T) {
	srv := httptest.NewServer(NewRedirectHandler(newSigner(t), &clickLog{}, nil))
	defer srv.Close()
	long := strings.Repeat("a", 20000)
	for _, tc := range []struct {
		name, query  string
		field, value string
		limit        string
	}{
		{"a query of 60,000 bytes", strings.Repeat("a", 60000), "query", "(60000 bytes)", fmt.Sprintf("at most %d bytes", ranking.MaxLinkQueryLen)},
		{"a parameter name of 20,000 bytes", long, "", "", "not a parameter of a click link (u, q, n, id, s)"},
		{"a rank of 20,000 bytes", "u=https%3A%2F%2Fa.test%2F&q=x&id=ab&s=x&n=" + long, "n", "", fmt.Sprintf("an integer in [1, %d]", ranking.MaxCandidates)},
	} {
		t.Run(tc.name, func(t *testing.T) {
			resp, err := srv.Client().Get(srv.URL + ranking.RedirectPath + "?" + tc.query)
			if err != nil {
				t.Fatal(err)
			}
			defer resp.Body.Close()
			raw, err := io.ReadAll(resp.Body)
			if err != nil {
				t.Fatal(err)
			}
			if len(raw) > 1024 {
				t.Fatalf("a body of %d bytes, want a short excerpt of what was given", len(raw))
			}
			var body errorBody
			if err := json.Unmarshal(raw, &body); err != nil || resp.StatusCode != http.StatusBadRequest || body.Error.Code != CodeBadLink || body.Error.Limit != tc.limit {
				t.Fatalf("%d %s, want 400 bad_link with limit %q", resp.StatusCode, raw, tc.limit)
			}
			if tc.field != "" && body.Error.Field != tc.field || tc.value != "" && body.Error.Value != tc.value {
				t.Fatalf("%s, want %s = %s", raw, tc.field, tc.value)
			}
		})
	}
}
