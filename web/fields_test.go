package web_test

import (
	"encoding/json"
	"io"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"testing"
)

// TestFieldsAnswerPartOfEachResult asks the real search path for some of
// each result's fields: the results are the full answer's, in its order,
// with those fields alone (in the full answer's order); the snippet, when
// asked for, still marks the query; the HTML page ignores the parameter.
func TestFieldsAnswerPartOfEachResult(t *testing.T) {
	srv := serveDefaultStack(t, map[string][2]string{
		"http://a.test/you":  {"What you should know", "Facts about federal forms, and more federal facts."},
		"http://a.test/form": {"Forms", "Every federal form in one place."},
		"http://a.test/who":  {"The Who", "A rock band from London."},
	})
	search := func(params string) []map[string]json.RawMessage {
		t.Helper()
		res, err := http.Get(srv.URL + "/api/v1/search?q=federal" + params)
		if err != nil {
			t.Fatal(err)
		}
		defer res.Body.Close()
		var body struct {
			Results []json.RawMessage `json:"results"`
		}
		if err := json.NewDecoder(res.Body).Decode(&body); err != nil || res.StatusCode != http.StatusOK {
			t.Fatalf("%s: status %d, %v", params, res.StatusCode, err)
		}
		var out []map[string]json.RawMessage
		for _, r := range body.Results {
			var m map[string]json.RawMessage
			if err := json.Unmarshal(r, &m); err != nil {
				t.Fatal(err)
			}
			// The keys in the order written, as a value of their own.
			var keys []string
			dec := json.NewDecoder(strings.NewReader(string(r)))
			dec.Token()
			for dec.More() {
				k, _ := dec.Token()
				keys = append(keys, k.(string))
				var skip json.RawMessage
				dec.Decode(&skip)
			}
			m["(keys)"], _ = json.Marshal(keys)
			out = append(out, m)
		}
		return out
	}
	full := search("")
	if len(full) != 2 {
		t.Fatalf("%d results for federal, want 2", len(full))
	}
	for _, c := range []struct {
		fields string
		keys   []string
	}{
		{"url,title,score", []string{"url", "title", "score"}},
		{"score,+url", []string{"url", "score"}}, // written in the full answer's order
		{"snippet,click_url", []string{"snippet", "click_url"}},
		{"highlights,snippet_text,matched_terms", []string{"snippet_text", "highlights", "matched_terms"}},
		{"fetched_at", []string{"fetched_at"}},
	} {
		part := search("&fields=" + c.fields)
		if len(part) != len(full) {
			t.Fatalf("fields=%s: %d results, want %d", c.fields, len(part), len(full))
		}
		for i, r := range part {
			var keys []string
			json.Unmarshal(r["(keys)"], &keys)
			if !slices.Equal(keys, c.keys) {
				t.Errorf("fields=%s, result %d: keys %q, want %q", c.fields, i, keys, c.keys)
			}
			for _, k := range keys {
				if string(r[k]) != string(full[i][k]) {
					t.Errorf("fields=%s, result %d: %s = %s, want the full answer's %s", c.fields, i, k, r[k], full[i][k])
				}
			}
		}
	}
	if s := string(search("&fields=snippet")[0]["snippet"]); !strings.Contains(s, `\u003cmark\u003efederal`) {
		t.Errorf("the snippet asked for alone does not mark the query: %s", s)
	}
	res, err := http.Get(srv.URL + "/?q=federal&fields=url&" + url.Values{"size": {"5"}}.Encode())
	if err != nil {
		t.Fatal(err)
	}
	page, _ := io.ReadAll(res.Body)
	res.Body.Close()
	if res.StatusCode != http.StatusOK || !strings.Contains(string(page), "<mark>federal</mark>") {
		t.Errorf("the HTML page with fields=url: status %d, snippets marked: %v", res.StatusCode, strings.Contains(string(page), "<mark>federal</mark>"))
	}
}
