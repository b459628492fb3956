package synthweb_test

import (
	"net/http"
	"net/http/httptest"
	"net/url"
	"testing"
	"time"

	"github.com/deltaq/deltaq/eval/synthweb"
)

// FuzzSitePath serves arbitrary paths and queries on a site host: never a
// panic, only 200 or 404.
func FuzzSitePath(f *testing.F) {
	for _, s := range []string{"/", "/world/", "/world/?page=2", "/tag/value/", "/world/0-1-x.html",
		"/world/-1-0-a.html", "/world/99999999999999999999-0-a.html", "/private/../robots.txt", "/feed.xml?page=2", "//", "/tag//"} {
		f.Add(s, 30)
	}
	cfg := testConfig()
	w, err := synthweb.New(synthweb.Options{Config: cfg, Start: start, Now: func() time.Time { return start.Add(30 * time.Minute) }})
	if err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, target string, site int) {
		u, err := url.ParseRequestURI(target)
		if err != nil || u.Host != "" {
			return
		}
		req := httptest.NewRequest(http.MethodGet, "http://site0.synth.test/", nil)
		req.URL = u
		req.Host = "site" + string(rune('0'+(site%3+3)%3)) + ".synth.test"
		rec := httptest.NewRecorder()
		w.ServeHTTP(rec, req)
		if rec.Code != http.StatusOK && rec.Code != http.StatusNotFound {
			t.Errorf("%s%s: status %d", req.Host, target, rec.Code)
		}
	})
}
