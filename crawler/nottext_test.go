package crawler_test

import (
	"maps"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"testing"

	"github.com/deltaq/deltaq/repo"
)

// TestABodyThatIsNoTextIsNotIndexed: a PDF, an image or bytes no text has,
// sent as text/html by a misconfigured server, fail the page as not_text,
// with nothing stored or handed to the index; a page of HTML is stored,
// and a gzipped sitemap sent as application/xml is still read.
func TestABodyThatIsNoTextIsNotIndexed(t *testing.T) {
	sitemap := `<?xml version="1.0"?><urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9"><url><loc>/listed</loc></url></urlset>`
	bodies := map[string]string{
		"/page":           "<html><head><title>page</title></head><body><p>words of the page</p></body></html>",
		"/doc":            "%PDF-1.7\n1 0 obj << /Type /Catalog >> endobj\nstream\nx\x9c\x03\x00 endstream\n%%EOF",
		"/image":          "\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR\x00\x00\x00\x10",
		"/exe":            "MZ\x90\x00\x03\x00\x00\x00\x04\x00 an executable",
		"/sitemap.xml.gz": string(encoded(t, []byte(sitemap), "gzip")),
	}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, ok := bodies[r.URL.Path]
		if !ok {
			http.NotFound(w, r)
			return
		}
		ct := "text/html"
		if strings.HasSuffix(r.URL.Path, ".xml.gz") {
			ct = "application/xml"
		}
		w.Header().Set("Content-Type", ct)
		w.Write([]byte(b))
	}))
	defer srv.Close()
	bodies["/sitemap.xml.gz"] = string(encoded(t, []byte(strings.ReplaceAll(sitemap, "/listed", srv.URL+"/listed")), "gzip"))

	want := map[string]repo.Outcome{
		"/page": repo.OutcomeOK, "/sitemap.xml.gz": repo.OutcomeOK,
		"/doc": repo.OutcomeNotText, "/image": repo.OutcomeNotText, "/exe": repo.OutcomeNotText,
	}
	cfg := defaults(t)
	cfg.Crawler.AllowPrivate = true
	cfg.Crawler.Sitemaps = false
	cfg.Crawler.Politeness.MinDelay = 0
	e := newEnv(t, cfg, t.TempDir(), nil)
	sum, indexed := e.crawlOnly(t, srv.URL, slices.Collect(maps.Keys(want)))
	for path, outcome := range want {
		u := srv.URL + path
		p, err := e.db.Page(u)
		if err != nil {
			t.Fatalf("%s: %v", path, err)
		}
		if p.LastOutcome != outcome {
			t.Errorf("%s: outcome %s, want %s", path, p.LastOutcome, outcome)
			continue
		}
		if outcome == repo.OutcomeNotText && (!p.Version.IsZero() || indexed[u] || p.State != repo.StateFailed) {
			t.Errorf("%s: state %s, version %v, handed to the index %v; want failed, nothing stored or indexed", path, p.State, p.Version, indexed[u])
		}
	}
	if !indexed[srv.URL+"/page"] {
		t.Error("the HTML page was not handed to the index")
	}
	if _, err := e.db.Page(srv.URL + "/listed"); err != nil {
		t.Errorf("the URL the gzipped sitemap lists: %v; want it queued", err)
	}
	if got := sum.Errors()[repo.OutcomeNotText.String()]; got != 3 {
		t.Errorf("summary counts %d not_text, want 3:\n%s", got, sum)
	}
}
