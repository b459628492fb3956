package relation

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"testing"
)

func TestResolveOpenSearch(t *testing.T) {
	ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/bad.xml" {
			fmt.Fprint(w, "<html>not a description")
			return
		}
		fmt.Fprint(w, `<?xml version="1.0"?><OpenSearchDescription xmlns="http://a9.com/-/spec/opensearch/1.1/">
  <Url type="application/json" template="http://s.test/api?q={searchTerms}"/>
  <Url type="text/html" method="get" template="http://s.test/?q={searchTerms}&amp;page={startPage?}&amp;lang={language?}"/>
</OpenSearchDescription>`)
	}))
	defer ts.Close()
	got, err := ResolveOpenSearch(t.Context(), ts.Client(), ts.URL+"/d.xml", 1<<16)
	if err != nil || got != "http://s.test/?q={q}&page={page}" {
		t.Errorf("template %q, %v", got, err)
	}
	if _, err := ResolveOpenSearch(t.Context(), ts.Client(), ts.URL+"/bad.xml", 1<<16); err == nil {
		t.Error("a page that is no description gave no error")
	}
}
