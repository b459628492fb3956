package web_test

import (
	"encoding/json"
	"net/http"
	"net/url"
	"strings"
	"testing"
)

// TestStopWordQueriesAnswer200WithResults runs the whole search path (real
// repository, index, ranking and HTTP handler, default configuration) on
// three pages: a query of stop words only finds the pages whose titles
// hold them, as JSON and as HTML, with status 200; its excluded stop
// words are excluded from titles, so "the -the" finds nothing.
func TestStopWordQueriesAnswer200WithResults(t *testing.T) {
	srv := serveDefaultStack(t, map[string][2]string{
		"http://a.test/who":  {"The Who", "A rock band from London."},
		"http://a.test/you":  {"What you should know", "Facts about federal forms."},
		"http://a.test/form": {"Forms", "Every federal form in one place."},
	})

	for q, want := range map[string]string{"the": "http://a.test/who", "you should": "http://a.test/you", "the who": "http://a.test/who",
		"the -the": "", "you -the": "http://a.test/you"} {
		res, err := http.Get(srv.URL + "/api/v1/search?q=" + url.QueryEscape(q))
		if err != nil {
			t.Fatal(err)
		}
		var body struct {
			Total   int `json:"total"`
			Results []struct {
				URL string `json:"url"`
			} `json:"results"`
		}
		err = json.NewDecoder(res.Body).Decode(&body)
		res.Body.Close()
		var got []string
		for _, r := range body.Results {
			got = append(got, r.URL)
		}
		if err != nil || res.StatusCode != http.StatusOK || body.Total != len(got) || strings.Join(got, " ") != want {
			t.Errorf("%q: status %d, %+v, %v; want 200 and %q", q, res.StatusCode, body, err, want)
		}
		page, err := http.Get(srv.URL + "/?q=" + url.QueryEscape(q))
		if err != nil {
			t.Fatal(err)
		}
		page.Body.Close()
		if page.StatusCode != http.StatusOK {
			t.Errorf("%q: the HTML page answered %d", q, page.StatusCode)
		}
	}
}

// TestBadQueriesNameTheirValueAndLimit runs refused queries through the
// whole search path: each 400 names q, the query as asked and what a query
// must be, whichever layer (parser, analysis) refused it.
func TestBadQueriesNameTheirValueAndLimit(t *testing.T) {
	srv := serveDefaultStack(t, map[string][2]string{
		"http://a.test/form": {"Forms", "Every federal form in one place."},
	})
	for q, limit := range map[string]string{
		`forms "unclosed`: `quotes in pairs, each "phrase" closed`,
		"-forms":          `at least one word or "phrase"`,
		"forms site:":     "site:HOST, a host name such as site:example.org",
		"?! …":            "at least one word other than punctuation", // stop words alone are searched
	} {
		res, err := http.Get(srv.URL + "/api/v1/search?q=" + url.QueryEscape(q))
		if err != nil {
			t.Fatal(err)
		}
		var body struct {
			Error struct{ Code, Field, Value, Limit, Message string }
		}
		err = json.NewDecoder(res.Body).Decode(&body)
		res.Body.Close()
		e := body.Error
		if err != nil || res.StatusCode != http.StatusBadRequest || e.Code != "bad_query" || e.Field != "q" || e.Value != q || e.Limit != limit || e.Message == "" {
			t.Errorf("%q: status %d, %+v, %v; want 400 bad_query on q = %q, limit %q", q, res.StatusCode, e, err, q, limit)
		}
		// HEAD runs no search but answers as GET does.
		if res, err = http.Head(srv.URL + "/api/v1/search?q=" + url.QueryEscape(q)); err != nil {
			t.Fatal(err)
		}
		res.Body.Close()
		if res.StatusCode != http.StatusBadRequest {
			t.Errorf("HEAD %q: status %d, want 400 as GET", q, res.StatusCode)
		}
	}
}
