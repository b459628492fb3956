package index

import (
	"context"
	"maps"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/blevesearch/bleve/v2"
	"github.com/blevesearch/bleve/v2/search/query"

	"github.com/deltaq/deltaq/internal/urlnorm"
)

var smallCorpus = []page{
	{URL: "https://a.test/budget", Title: "Budget report", Text: "The federal budget report covers agency spending for the year."},
	{URL: "https://a.test/plain", Title: "Plain language", Text: "Plain language makes federal websites easier to read. Write for your reader."},
	{URL: "https://b.test/access", Title: "Accessibility guide", Text: "Accessibility and plain language for federal websites; section 508 and WCAG."},
	{URL: "https://b.test/draft", Title: "Draft budget", Text: "A first draft of the budget, not the final federal report."},
	{URL: "https://c.test/html", Title: "Markup", Text: "Never trust <script>alert(1)</script> in a budget page & escape it."},
}

var smallPopularity = map[string]float64{
	"https://a.test/budget": 0.1, "https://a.test/plain": 0.5, "https://b.test/access": 0.9,
	"https://b.test/draft": 0.3, "https://c.test/html": 0.7,
}

func smallIndex(t *testing.T) *Index {
	t.Helper()
	return smallIndexWith(t, Options{})
}

// smallIndexWith is smallIndex opened with opts (its Popularity set).
func smallIndexWith(t *testing.T, opts Options) *Index {
	t.Helper()
	db := openRepo(t, t.TempDir())
	opts.Popularity = func(_ context.Context, u string) (float64, error) { return smallPopularity[u], nil }
	ix := openIndex(t, tempDir(t, "ix"), testConfig(ScoringBM25), db, opts)
	putPages(t, db, t0, smallCorpus...)
	catchUp(t, ix)
	return ix
}

func urls(hits []Hit) []string {
	var out []string
	for _, h := range hits {
		out = append(out, h.URL)
	}
	slices.Sort(out)
	return out
}

// searchURLs runs q on ix and returns the sorted URLs of its first 10 hits
// and its total, failing the test on a parse or search error.
func searchURLs(t *testing.T, ix *Index, q string) ([]string, uint64) {
	t.Helper()
	return firstURLs(t, ix, q, 10)
}

// firstURLs is searchURLs for the first n hits.
func firstURLs(t *testing.T, ix *Index, q string, n int) ([]string, uint64) {
	t.Helper()
	res := mustSearch(t, ix, q, n)
	return urls(res.Hits), res.Total
}

// mustSearch runs q on ix for its first n hits, failing the test on a parse
// or search error.
func mustSearch(t *testing.T, ix *Index, q string, n int) Result {
	t.Helper()
	pq, err := ParseQuery(q, ix.cfg.Limits())
	if err != nil {
		t.Fatalf("%q: %v", q, err)
	}
	res, err := ix.Search(t.Context(), pq, 0, n)
	if err != nil {
		t.Fatalf("%q: %v", q, err)
	}
	return res
}

func TestSearchSyntax(t *testing.T) {
	ix := smallIndex(t)
	cases := []struct {
		name string
		q    string
		want []string
	}{
		{"a term matches its stemmed forms", "budgets", []string{"https://a.test/budget", "https://b.test/draft", "https://c.test/html"}},
		{"a short query needs every word", "federal budget", []string{"https://a.test/budget", "https://b.test/draft"}},
		{"a short query no page fully matches falls back to any word", "budget wcag", []string{"https://a.test/budget", "https://b.test/access", "https://b.test/draft", "https://c.test/html"}},
		{"a phrase needs the words in order", `"plain language"`, []string{"https://a.test/plain", "https://b.test/access"}},
		{"a phrase in the wrong order does not match", `"websites federal"`, nil},
		{"an excluded term removes pages", "federal -draft", []string{"https://a.test/budget", "https://a.test/plain", "https://b.test/access"}},
		{"an excluded phrase removes pages", `federal -"plain language"`, []string{"https://a.test/budget", "https://b.test/draft"}},
		{"typographic quotes and minus signs are operators", `federal −„plain language“ –draft`, []string{"https://a.test/budget"}},
		{"a typographic phrase needs the words in order", `“websites federal”`, nil},
		{"site: keeps one host", "federal site:b.test", []string{"https://b.test/access", "https://b.test/draft"}},
		{"repeated site: is OR", "budget site:a.test site:c.test", []string{"https://a.test/budget", "https://c.test/html"}},
		{"-site: drops a host", "budget -site:a.test", []string{"https://b.test/draft", "https://c.test/html"}},
		{"stop words in a query are ignored", "the budget of", []string{"https://a.test/budget", "https://b.test/draft", "https://c.test/html"}},
		{"the title is searched with the text", "markup", []string{"https://c.test/html"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			res := mustSearch(t, ix, tc.q, 10)
			if got := urls(res.Hits); !slices.Equal(got, tc.want) || res.Total != uint64(len(tc.want)) {
				t.Fatalf("%s: %v (total %d), want %v", tc.q, got, res.Total, tc.want)
			}
			for i := 1; i < len(res.Hits); i++ {
				if res.Hits[i].Score > res.Hits[i-1].Score {
					t.Fatal("hits are not in order of relevance")
				}
			}
		})
	}
}

func TestSearchHits(t *testing.T) {
	ix := smallIndex(t)
	q, _ := ParseQuery("budget escape", ix.cfg.Limits())
	res, err := ix.Search(t.Context(), q, 0, 10)
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Hits) != 1 {
		t.Fatalf("hits %+v", res.Hits)
	}
	h := res.Hits[0]
	if h.URL != "https://c.test/html" || h.Title != "Markup" || !h.FetchedAt.Equal(t0) || h.Popularity != 0.7 || h.Score <= 0 {
		t.Errorf("hit = %+v", h)
	}
	if strings.Contains(h.Snippet, "<script>") || !strings.Contains(h.Snippet, "&lt;script&gt;") {
		t.Errorf("snippet not escaped: %s", h.Snippet)
	}
	if !strings.Contains(h.Snippet, "<mark>budget</mark>") || !strings.Contains(h.Snippet, "<mark>escape</mark>") {
		t.Errorf("matches not marked: %s", h.Snippet)
	}
}

func TestSearchPagination(t *testing.T) {
	ix := smallIndex(t)
	q, _ := ParseQuery("federal", ix.cfg.Limits())
	all, err := ix.Search(t.Context(), q, 0, 10)
	if err != nil {
		t.Fatal(err)
	}
	var paged []Hit
	for from := 0; from < 4; from += 2 {
		res, err := ix.Search(t.Context(), q, from, 2)
		if err != nil {
			t.Fatal(err)
		}
		paged = append(paged, res.Hits...)
	}
	if len(all.Hits) != 4 || len(paged) != 4 {
		t.Fatalf("all %d paged %d", len(all.Hits), len(paged))
	}
	for i := range paged {
		if paged[i].URL != all.Hits[i].URL {
			t.Fatalf("page order differs at %d", i)
		}
	}
}

func TestStopWordQuerySearchesTitles(t *testing.T) {
	db := openRepo(t, t.TempDir())
	ix := openIndex(t, tempDir(t, "ix"), testConfig(ScoringBM25), db, Options{})
	putPages(t, db, t0, append(slices.Clone(smallCorpus),
		page{URL: "https://d.test/who", Title: "The Who", Text: "A rock band from London."},
		page{URL: "https://d.test/you", Title: "What you should know", Text: "Facts about federal forms."})...)
	catchUp(t, ix)
	for q, want := range map[string][]string{
		"the":              {"https://d.test/who"},
		"the who":          {"https://d.test/who"},
		`"you should"`:     {"https://d.test/you"},
		"you should":       {"https://d.test/you"},
		"the -site:d.test": nil,
		"the -the":         nil,
		"you -you":         nil,
		"you -the":         {"https://d.test/you"},
		"band -the":        {"https://d.test/who"}, // beside other words a stop word is ignored, excluded or not
	} {
		pq, err := ParseQuery(q, ix.cfg.Limits())
		if err != nil {
			t.Fatal(err)
		}
		res, err := ix.Search(t.Context(), pq, 0, 10)
		if err != nil {
			t.Fatalf("%q: %v", q, err)
		}
		if got := urls(res.Hits); !slices.Equal(got, want) {
			t.Errorf("%q: %v, want %v", q, got, want)
		}
	}
	pq, _ := ParseQuery("...", ix.cfg.Limits())
	if _, err := ix.Search(t.Context(), pq, 0, 10); err == nil || !strings.Contains(err.Error(), "no searchable words") {
		t.Fatalf("punctuation only: err = %v", err)
	}
	// A long query is repeated only in part.
	pq, _ = ParseQuery(strings.Repeat("*", 900), ix.cfg.Limits())
	want := `q: "` + strings.Repeat("*", 60) + `…" has no searchable words`
	if _, err := ix.Search(t.Context(), pq, 0, 10); err == nil || !strings.HasPrefix(err.Error(), want) {
		t.Fatalf("long punctuation: err = %.200v, want it to start %q", err, want)
	}
	want = strings.Replace(want, "no searchable words", "no searchable words (only punctuation)", 1)
	if _, _, err := ix.Retrieve(t.Context(), pq, 10); err == nil || !strings.HasPrefix(err.Error(), want) {
		t.Fatalf("long punctuation, best match: err = %.200v, want it to start %q", err, want)
	}
}

func TestRetrieveIsSearchsOrderWithoutStoredFields(t *testing.T) {
	ix := smallIndex(t)
	q, _ := ParseQuery("federal", ix.cfg.Limits())
	hits, total, err := ix.Retrieve(t.Context(), q, 3)
	if err != nil {
		t.Fatal(err)
	}
	res, err := ix.Search(t.Context(), q, 0, 3)
	if err != nil {
		t.Fatal(err)
	}
	if total != 4 || len(hits) != 3 || res.Total != 4 {
		t.Fatalf("total %d, %d hits; Search total %d", total, len(hits), res.Total)
	}
	for i, h := range hits {
		if h.URL != res.Hits[i].URL || h.Score != res.Hits[i].Score || h.Snippet != "" || h.Title != "" || h.Score <= 0 {
			t.Fatalf("hit %d: %+v, Search's %+v", i, h, res.Hits[i])
		}
		if i > 0 && h.Score > hits[i-1].Score {
			t.Fatalf("not by relevance: %+v", hits)
		}
	}
}

// TestSearchEqualsBruteForce compares, for 50 TREC Million Query topics,
// the set of pages Search returns on digitalgov week 0 with a scan of every
// page for those the coordination rule admits after the same analyzer:
// every word for a short query (unless fewer than min_results pages have
// them all), any word for a longer one.
func TestSearchEqualsBruteForce(t *testing.T) {
	fx := week0Index(t, ScoringBM25)
	// The fixture is shared by the package's tests: put the setting back.
	saved := fx.ix.cfg.Retrieval.MinResults
	t.Cleanup(func() { fx.ix.cfg.Retrieval.MinResults = saved })
	fx.ix.cfg.Retrieval.MinResults = 10
	a := fx.ix.Analyzer()
	// term → pages containing it, from analyzing every page.
	postings := map[string]map[string]bool{}
	for _, p := range fx.c.pages {
		for _, tok := range a.Analyze([]byte(IndexedText(p.Title, p.Text))) {
			term := string(tok.Term)
			if postings[term] == nil {
				postings[term] = map[string]bool{}
			}
			postings[term][p.URL] = true
		}
	}
	brute := func(q Query) []string {
		all, any := map[string]bool{}, map[string]bool{}
		distinct := map[string]bool{}
		for i, tok := range a.Analyze([]byte(strings.Join(q.Terms, " "))) {
			docs := postings[string(tok.Term)]
			distinct[string(tok.Term)] = true
			if i == 0 {
				maps.Copy(all, docs)
				maps.Copy(any, docs)
				continue
			}
			for u := range all {
				if !docs[u] {
					delete(all, u)
				}
			}
			maps.Copy(any, docs)
		}
		if len(distinct) <= fx.ix.cfg.Retrieval.ShortQueryTerms && len(all) >= fx.ix.cfg.Retrieval.MinResults {
			return slices.Sorted(maps.Keys(all))
		}
		return slices.Sorted(maps.Keys(any))
	}
	checked, empty := 0, 0
	for _, tq := range trecQueries(t) {
		if checked == 50 {
			break
		}
		q, err := ParseQuery(tq.Text, fx.ix.cfg.Limits())
		if err != nil || len(q.Phrases)+len(q.ExcludeTerms)+len(q.ExcludePhrases)+len(q.Sites)+len(q.ExcludeSites) > 0 ||
			len(a.Analyze([]byte(tq.Text))) == 0 {
			continue
		}
		want := brute(q)
		if len(want) == 0 {
			if empty >= 10 { // mostly queries with results, and a few without
				continue
			}
			empty++
		}
		res, err := fx.ix.Search(t.Context(), q, 0, 10000)
		if err != nil {
			t.Fatal(err)
		}
		if got := urls(res.Hits); !slices.Equal(got, want) || res.Total != uint64(len(want)) {
			t.Errorf("%q: Search found %d pages (total %d), the scan %d", tq.Text, len(got), res.Total, len(want))
		}
		checked++
	}
	if checked < 50 || empty == 0 {
		t.Fatalf("checked %d queries (%d without results)", checked, empty)
	}
}

func TestShownPagesEqualSearchHits(t *testing.T) {
	ix := smallIndex(t)
	q, _ := ParseQuery("federal websites", ix.cfg.Limits())
	ix.cfg.Retrieval.MinResults = 3 // two pages have both words: any word qualifies
	all, err := ix.Search(t.Context(), q, 0, 10)
	if err != nil {
		t.Fatal(err)
	}
	chosen := []string{all.Hits[2].URL, all.Hits[0].URL, "https://nowhere.test/"}
	got, err := ix.Shown(t.Context(), q, chosen)
	if err != nil {
		t.Fatal(err)
	}
	// One for each URL in its place, the zero Hit for the one not held.
	if len(got) != 3 || got[0].URL != chosen[0] || got[1].URL != chosen[1] || !reflect.DeepEqual(got[2], Hit{}) {
		t.Fatalf("shown %+v: want the 2 indexed in their places, then the zero Hit", got)
	}
	for i, h := range []Hit{all.Hits[2], all.Hits[0]} {
		g := got[i]
		if g.Snippet != h.Snippet || !strings.Contains(g.Snippet, "<mark>") || g.Title != h.Title || g.Title == "" ||
			!g.FetchedAt.Equal(h.FetchedAt) || g.Popularity != smallPopularity[h.URL] {
			t.Errorf("%s: shown %+v, Search's hit %+v", h.URL, g, h)
		}
	}
	titles, err := ix.Titles(t.Context(), chosen)
	if err != nil {
		t.Fatal(err)
	}
	if len(titles) != len(got) {
		t.Fatalf("%d pages titled, %d shown", len(titles), len(got))
	}
	for i, g := range got {
		g.Snippet, g.SnippetText, g.Highlights = "", "", nil // Titles cuts none
		if h := titles[i]; !reflect.DeepEqual(h, g) {
			t.Errorf("%s: titled %+v, want %+v", chosen[i], h, g)
		}
	}
}

// TestCheckHighlights accepts spans of the snippet text, ascending and
// apart, and names the first that is not.
func TestCheckHighlights(t *testing.T) {
	text := "a budget report"
	for _, c := range []struct {
		spans []Span
		ok    bool
	}{
		{nil, true},
		{[]Span{{2, 8}, {9, 15}}, true},
		{[]Span{{0, 1}, {1, 2}}, true},
		{[]Span{{9, 15}, {2, 8}}, false},
		{[]Span{{2, 8}, {5, 9}}, false},
		{[]Span{{3, 3}}, false},
		{[]Span{{-1, 2}}, false},
		{[]Span{{9, 16}}, false},
	} {
		err := Hit{URL: "u", SnippetText: text, Highlights: c.spans}.CheckHighlights()
		if (err == nil) != c.ok {
			t.Errorf("%v: err = %v, want ok %v", c.spans, err, c.ok)
		}
		if err != nil && !strings.Contains(err.Error(), "highlights[") {
			t.Errorf("%v: %v does not name the span", c.spans, err)
		}
	}
}

// A result shows its title above its snippet, so the snippet comes from
// the page's main text: around the matches there, or from its start when
// only the title matches.
func TestSnippetsAreCutFromTheMainText(t *testing.T) {
	ix := smallIndex(t)
	for _, tc := range []struct{ q, url, want string }{
		{"budget report", "https://a.test/budget", "The federal <mark>budget</mark> <mark>report</mark> covers agency spending for the year."},
		{"markup", "https://c.test/html", "Never trust &lt;script&gt;alert(1)&lt;/script&gt; in a budget page &amp; escape it."},
	} {
		res := mustSearch(t, ix, tc.q, 10)
		i := slices.IndexFunc(res.Hits, func(h Hit) bool { return h.URL == tc.url })
		if i < 0 {
			t.Fatalf("%q: %s not found in %v", tc.q, tc.url, urls(res.Hits))
		}
		if h := res.Hits[i]; h.Snippet != tc.want {
			t.Errorf("%q: snippet of %s = %q, want %q", tc.q, tc.url, h.Snippet, tc.want)
		}
	}
}

// TestSiteKeepsTheHostAndItsSubdomains: site: and -site: take a host as a
// user types it (any case, a trailing dot, Unicode) and match it and its
// subdomains, in best-match search and in the Bleve query Rank runs; an
// IP address has no subdomains.
func TestSiteKeepsTheHostAndItsSubdomains(t *testing.T) {
	db := openRepo(t, t.TempDir())
	ix := openIndex(t, tempDir(t, "ix"), testConfig(ScoringBM25), db, Options{})
	var pages []page
	for _, u := range []string{"https://a.test/", "https://www.a.test/", "https://docs.www.a.test/", "https://ba.test/",
		"https://bücher.de/", "https://www.bücher.de/", "http://127.0.0.1:8080/", "http://a.test:8080/"} {
		pages = append(pages, page{URL: must[string](t)(urlnorm.Normalize(u)), Title: "Budget", Text: "The budget of the year."})
	}
	putPages(t, db, t0, pages...)
	catchUp(t, ix)
	all := []string{"http://127.0.0.1:8080/", "http://a.test:8080/", "https://a.test/", "https://ba.test/", "https://docs.www.a.test/",
		"https://www.a.test/", "https://www.xn--bcher-kva.de/", "https://xn--bcher-kva.de/"}
	without := func(drop ...string) []string {
		return slices.DeleteFunc(slices.Clone(all), func(u string) bool { return slices.Contains(drop, u) })
	}
	for q, want := range map[string][]string{
		"budget site:a.test":           {"https://a.test/", "https://docs.www.a.test/", "https://www.a.test/"},
		"budget site:A.Test.":          {"https://a.test/", "https://docs.www.a.test/", "https://www.a.test/"},
		"budget site:www.a.test":       {"https://docs.www.a.test/", "https://www.a.test/"},
		"budget site:a.test:8080":      {"http://a.test:8080/"},
		"budget site:bücher.de":        {"https://www.xn--bcher-kva.de/", "https://xn--bcher-kva.de/"},
		"budget site:XN--BCHER-KVA.DE": {"https://www.xn--bcher-kva.de/", "https://xn--bcher-kva.de/"},
		"budget site:ba.test site:de":  {"https://ba.test/", "https://www.xn--bcher-kva.de/", "https://xn--bcher-kva.de/"},
		"budget site:127.0.0.1:8080":   {"http://127.0.0.1:8080/"},
		"budget site:0.0.1:8080":       nil,
		"budget -site:a.test":          without("https://a.test/", "https://docs.www.a.test/", "https://www.a.test/"),
		"budget -site:Bücher.de.":      without("https://www.xn--bcher-kva.de/", "https://xn--bcher-kva.de/"),
	} {
		if got, _ := searchURLs(t, ix, q); !slices.Equal(got, want) {
			t.Errorf("%q: %v, want %v", q, got, want)
		}
		pq := must[Query](t)(ParseQuery(q, ix.cfg.Limits()))
		bq := must[query.Query](t)(bleveQuery(pq, ix.Analyzer()))
		res := must[*bleve.SearchResult](t)(ix.bleve().Search(bleve.NewSearchRequestOptions(bq, 100, 0, false)))
		var got []string
		for _, h := range res.Hits {
			got = append(got, h.ID)
		}
		if slices.Sort(got); !slices.Equal(got, want) {
			t.Errorf("%q, as a Bleve query: %v, want %v", q, got, want)
		}
	}
}
