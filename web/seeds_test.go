package web

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

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
	public, admin := withAdmin(t, Deps{Seed: seed})
	post := func(srv *httptest.Server, body string) (int, string) {
		t.Helper()
		return send(t, srv, http.MethodPost, "/api/v1/seeds", body)
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
