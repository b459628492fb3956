package web_test

import (
	"net/http"
	"net/http/httptest"
	"net/url"
	"testing"
)

// FuzzSearchNeverFails sends any query, on its second page, to the search
// API and to the result page of the whole engine over digitalgov-2023 week
// 0: a query is answered or refused as bad input (4xx), never with a
// server error or a panic. The seeds are trec-mq queries and the syntax's
// corners (empty phrases, bare site: and exclusions, stop words alone).
//
//	go test ./web -run '^$' -fuzz FuzzSearchNeverFails -fuzztime 5m
func FuzzSearchNeverFails(f *testing.F) {
	s := newStack(f)
	for _, q := range s.queries[:20] {
		f.Add(q)
	}
	for _, q := range []string{`"the who"`, `site:`, `-`, `"a b" -c site:x.test`, `""`, `"`, `site:digitalgov-2023.test -the`, `a -a`, `"" -"" site:""`} {
		f.Add(q)
	}
	h := s.srv.Config.Handler
	f.Fuzz(func(t *testing.T, q string) {
		for _, path := range []string{apiPath, "/?q="} {
			rec := httptest.NewRecorder()
			h.ServeHTTP(rec, httptest.NewRequest(http.MethodGet, path+url.QueryEscape(q)+"&page=2", nil))
			if rec.Code >= 500 {
				t.Fatalf("%s%q: status %d: %s", path, q, rec.Code, rec.Body.String())
			}
		}
	})
}
