package crawler_test

import (
	"bytes"
	"compress/flate"
	"compress/gzip"
	"compress/zlib"
	"context"
	"maps"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"testing"

	"github.com/deltaq/deltaq/repo"
)

// encoded compresses body with each coding in turn, as a server applies a
// Content-Encoding list.
func encoded(t testing.TB, body []byte, codings ...string) []byte {
	t.Helper()
	for _, c := range codings {
		var buf bytes.Buffer
		var w interface {
			Write([]byte) (int, error)
			Close() error
		}
		switch c {
		case "gzip":
			w = gzip.NewWriter(&buf)
		case "zlib":
			w = zlib.NewWriter(&buf)
		case "raw":
			w, _ = flate.NewWriter(&buf, flate.BestCompression)
		default:
			t.Fatalf("no coding %q", c)
		}
		if _, err := w.Write(body); err != nil {
			t.Fatal(err)
		}
		if err := w.Close(); err != nil {
			t.Fatal(err)
		}
		body = buf.Bytes()
	}
	return body
}

// TestContentEncodingIsUndone serves pages with Content-Encodings the
// transport leaves alone (it asks for gzip and undoes only that): deflate,
// zlib-wrapped and raw, x-gzip, and stacked lists are undone within
// crawler.limits.max_body_bytes, and the page is stored and indexed as
// text. Codings the crawler cannot undo fail the page, as bad_encoding,
// with nothing stored or handed to the index; a decompression bomb is
// too_large.
func TestContentEncodingIsUndone(t *testing.T) {
	const maxBody = 64 << 10
	page := func(title string) []byte {
		return []byte("<html><head><title>" + title + "</title></head><body><p>" + title + " text of the page</p></body></html>")
	}
	bomb := bytes.Repeat([]byte(" "), 64*maxBody)
	type served struct {
		encoding string
		body     []byte
	}
	pages := map[string]served{
		"/zlib":       {"deflate", encoded(t, page("zlibbed"), "zlib")},
		"/raw":        {"deflate", encoded(t, page("rawdeflate"), "raw")},
		"/xgzip":      {"x-gzip", encoded(t, page("xgzipped"), "gzip")},
		"/stacked":    {"gzip, deflate", encoded(t, page("stacked"), "gzip", "zlib")},
		"/lines":      {"", encoded(t, page("twolines"), "raw", "gzip")}, // two header lines
		"/identity":   {"Identity", page("identical")},
		"/br":         {"br", []byte("\x1b\x2c\x00\xf8\xa5\x40\xc2\x6c\x20")},
		"/unknown":    {"snappy", page("unknown")},
		"/stacked-br": {"gzip, br", encoded(t, page("stackedbr"), "gzip")},
		"/corrupt":    {"deflate", []byte("<html><title>corrupt</title>not deflate at all</html>")},
		"/cut":        {"deflate", encoded(t, page("cutshort"), "zlib")[:20]},
		"/deep":       {"gzip, gzip, gzip, gzip, gzip", encoded(t, page("deep"), "gzip", "gzip", "gzip", "gzip", "gzip")},
		"/bomb":       {"deflate", encoded(t, bomb, "raw")},
	}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		p, ok := pages[r.URL.Path]
		if !ok {
			http.NotFound(w, r)
			return
		}
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		if r.URL.Path == "/lines" {
			w.Header().Add("Content-Encoding", "deflate")
			w.Header().Add("Content-Encoding", "x-gzip")
		} else {
			w.Header().Set("Content-Encoding", p.encoding)
		}
		w.Write(p.body)
	}))
	defer srv.Close()

	want := map[string]struct {
		outcome repo.Outcome
		title   string // of the stored copy, and so of the index's document
	}{
		"/zlib":       {repo.OutcomeOK, "zlibbed"},
		"/raw":        {repo.OutcomeOK, "rawdeflate"},
		"/xgzip":      {repo.OutcomeOK, "xgzipped"},
		"/stacked":    {repo.OutcomeOK, "stacked"},
		"/lines":      {repo.OutcomeOK, "twolines"},
		"/identity":   {repo.OutcomeOK, "identical"},
		"/br":         {repo.OutcomeBadEncoding, ""},
		"/unknown":    {repo.OutcomeBadEncoding, ""},
		"/stacked-br": {repo.OutcomeBadEncoding, ""},
		"/corrupt":    {repo.OutcomeBadEncoding, ""},
		"/cut":        {repo.OutcomeBadEncoding, ""},
		"/deep":       {repo.OutcomeBadEncoding, ""},
		"/bomb":       {repo.OutcomeTooLarge, ""},
	}
	cfg := defaults(t)
	cfg.Crawler.AllowPrivate = true
	cfg.Crawler.Sitemaps = false
	cfg.Crawler.Politeness.MinDelay = 0
	cfg.Crawler.Limits.MaxBodyBytes = maxBody
	e := newEnv(t, cfg, t.TempDir(), nil)
	sum, indexed := e.crawlOnly(t, srv.URL, slices.Collect(maps.Keys(want)))
	t.Logf("%s", sum)

	ctx := context.Background()
	for path, w := range want {
		u := srv.URL + path
		p, err := e.db.Page(u)
		if err != nil {
			t.Fatalf("%s: %v", path, err)
		}
		if p.LastOutcome != w.outcome {
			t.Errorf("%s (Content-Encoding %q): outcome %s, want %s", path, pages[path].encoding, p.LastOutcome, w.outcome)
			continue
		}
		if w.outcome != repo.OutcomeOK {
			if !p.Version.IsZero() || indexed[u] || p.State != repo.StateFailed {
				t.Errorf("%s: state %s, version %v, handed to the index %v; want failed, nothing stored or indexed", path, p.State, p.Version, indexed[u])
			}
			continue
		}
		v, err := e.db.LatestVersion(ctx, u)
		if err != nil {
			t.Fatalf("%s: %v", path, err)
		}
		if string(v.Body) != string(page(w.title)) || v.Title != w.title || !strings.Contains(v.Text, w.title+" text of the page") || !indexed[u] {
			t.Errorf("%s: stored body %q, title %q, text %q, handed to the index %v; want the decoded page", path, v.Body, v.Title, v.Text, indexed[u])
		}
	}
}
