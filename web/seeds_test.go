package web

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/deltaq/deltaq/crawler"
	"github.com/deltaq/deltaq/internal/urlnorm"
)

// TestSeedsOnTheAdminListenerOnly hands seeds to a crawl: the admin
// listener passes them on and answers how many were new; an empty or
// oversized list, or a refused URL, is answered 400 naming urls; the
// public listener has no such route.
func TestSeedsOnTheAdminListenerOnly(t *testing.T) {
	var asked [][]string
	seed := func(_ context.Context, urls []string) (int, error) {
		asked = append(asked, urls)
		for _, u := range urls {
			if strings.HasPrefix(u, "ftp:") {
				return 0, &crawler.SeedError{URL: u, Err: urlnorm.ErrUnsupportedScheme}
			}
		}
		return len(urls) - 1, nil
	}
	cfg := testConfig
	cfg.Admin.Listen = "127.0.0.1:0"
	h, err := New(cfg, Deps{Search: &fakeSearch{}, Pages: memRepo(t), Seed: seed, Registry: prometheus.NewRegistry()})
	if err != nil {
		t.Fatal(err)
	}
	public, admin := httptest.NewServer(h), httptest.NewServer(h.Admin())
	defer public.Close()
	defer admin.Close()
	post := func(srv *httptest.Server, body string) (int, string) {
		t.Helper()
		res, err := srv.Client().Post(srv.URL+"/api/v1/seeds", "application/json", strings.NewReader(body))
		if err != nil {
			t.Fatal(err)
		}
		defer res.Body.Close()
		b, _ := io.ReadAll(res.Body)
		return res.StatusCode, string(b)
	}
	if code, b := post(admin, `{"urls": ["http://a.test/", "http://b.test/"]}`); code != http.StatusOK || !strings.Contains(b, `"given":2`) || !strings.Contains(b, `"new":1`) {
		t.Errorf("two seeds: %d %s, want 200, given 2, new 1", code, b)
	}
	tooMany := `{"urls": [` + strings.Repeat(`"http://a.test/",`, maxSeeds) + `"http://a.test/"]}`
	for body, want := range map[string]string{
		`{"urls": []}`: `"field":"urls","value":"0 URLs"`,
		`{}`:           `"field":"urls","value":"0 URLs"`,
		tooMany:        fmt.Sprintf(`"field":"urls","value":"%d URLs"`, maxSeeds+1),
		`{"urls": ["http://a.test/", "ftp://b.test/"]}`: `"field":"urls","value":"ftp://b.test/"`,
		`{"urls": "http://a.test/"}`:                    `"field":"urls"`,
	} {
		if code, b := post(admin, body); code != http.StatusBadRequest || !strings.Contains(b, want) {
			t.Errorf("POST %.60s: %d %s, want 400 with %s", body, code, b, want)
		}
	}
	if code, b := post(public, `{"urls": ["http://a.test/"]}`); code != http.StatusNotFound && code != http.StatusMethodNotAllowed {
		t.Errorf("seeds on the public listener: %d %s, want no such route", code, b)
	}
	if len(asked) != 2 {
		t.Errorf("the crawl was handed %d lists, want 2 (the good one and the one with an ftp URL)", len(asked))
	}
}
