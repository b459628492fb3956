package relation

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

// descriptionServer serves /d.xml with the Url elements given, and a page
// that is no description at /bad.xml.
func descriptionServer(t *testing.T, urls string) *httptest.Server {
	t.Helper()
	ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/bad.xml" {
			fmt.Fprint(w, "<html>not a description")
			return
		}
		fmt.Fprintf(w, `<?xml version="1.0"?><OpenSearchDescription xmlns="http://a9.com/-/spec/opensearch/1.1/">%s</OpenSearchDescription>`, urls)
	}))
	t.Cleanup(ts.Close)
	return ts
}

func TestResolveOpenSearch(t *testing.T) {
	for _, c := range []struct {
		name, urls, want string
	}{
		{"optional parameters after the terms are dropped",
			`<Url type="application/json" template="http://s.test/api?q={searchTerms}"/>
			 <Url type="text/html" method="get" template="http://s.test/?q={searchTerms}&amp;page={startPage?}&amp;lang={language?}"/>`,
			"http://s.test/?q={q}&page={page}"},
		{"a leading optional parameter keeps the query's ?",
			`<Url type="text/html" template="http://h/search?count={count?}&amp;q={searchTerms}"/>`,
			"http://h/search?q={q}"},
		{"only optional parameters besides the terms in the path",
			`<Url type="text/html" template="http://h/s/{searchTerms}/{startPage}?count={count?}"/>`,
			"http://h/s/{q}/{page}"},
		{"a media type with parameters is still text/html",
			`<Url type="text/html; charset=utf-8" template="http://h/?q={searchTerms}"/>`,
			"http://h/?q={q}"},
	} {
		t.Run(c.name, func(t *testing.T) {
			ts := descriptionServer(t, c.urls)
			got, err := ResolveOpenSearch(t.Context(), ts.Client(), ts.URL+"/d.xml", 1<<16)
			if err != nil || got != c.want {
				t.Errorf("template %q, %v; want %q", got, err, c.want)
			}
		})
	}
}

func TestResolveOpenSearchRefuses(t *testing.T) {
	for _, c := range []struct {
		name, urls, path, want string
	}{
		{"a required parameter the client cannot fill",
			`<Url type="text/html" template="http://h/?q={searchTerms}&amp;from={startIndex}"/>`, "/d.xml",
			"required parameter {startIndex}: a relation fills only {searchTerms} and {startPage}"},
		{"pages counted from 0",
			`<Url type="text/html" pageOffset="0" template="http://h/?q={searchTerms}&amp;p={startPage}"/>`, "/d.xml",
			"pageOffset 0"},
		{"no HTML template",
			`<Url type="application/rss+xml" template="http://h/rss?q={searchTerms}"/>`, "/d.xml",
			`no Url of type text/html with {searchTerms} (Url types: "application/rss+xml")`},
		{"a page that is no description", "", "/bad.xml", "not an OpenSearch description"},
	} {
		t.Run(c.name, func(t *testing.T) {
			ts := descriptionServer(t, c.urls)
			got, err := ResolveOpenSearch(t.Context(), ts.Client(), ts.URL+c.path, 1<<16)
			if err == nil || !strings.Contains(err.Error(), c.want) || strings.Contains(err.Error(), "result or item page") {
				t.Errorf("template %q, error %v; want an error saying %s", got, err, c.want)
			}
		})
	}
}
