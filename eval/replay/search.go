package replay

import (
	"cmp"
	"encoding/json"
	"fmt"
	"html"
	"math"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"sync"

	"github.com/PuerkitoBio/goquery"

	"github.com/deltaq/deltaq/eval/archive"
	"github.com/deltaq/deltaq/internal/postings"
	"github.com/deltaq/deltaq/internal/words"
)

// SearchOptions configure the keyword-search interface the replay can add
// to an archive (`deltaq web replay --search`). It is not part of the
// archived sites: the pages and their changes are real, the interface is
// added, and every response says so.
type SearchOptions struct {
	// Enabled adds GET /search?q=&page= to every archive host.
	Enabled bool `mapstructure:"-"`
	// PageSize is p, results per page.
	PageSize int `mapstructure:"page_size"`
	// MaxResults is K, the most results a query returns over all pages.
	MaxResults int `mapstructure:"max_results"`
}

// Search limits on a request.
const (
	maxQueryBytes = 256
	maxQueryTerms = 8
)

// SearchLabel is what every search response says about the interface.
const SearchLabel = "added search interface over real archived pages (not part of the archived site)"

// BM25 parameters (the common k1 = 1.2, b = 0.75, as Bleve's).
const (
	bm25K1 = 1.2
	bm25B  = 0.75
)

// Hit is one search result.
type Hit struct {
	URL         string  `json:"url"`
	Title       string  `json:"title"`
	Description string  `json:"description"`
	Version     string  `json:"version"` // the body hash, as the page's ETag
	Score       float64 `json:"score"`
}

// SearchResult is one page of results, the JSON form of a response.
type SearchResult struct {
	Interface  string `json:"interface"`
	Query      string `json:"query"`
	Page       int    `json:"page"`
	PageSize   int    `json:"page_size"`
	MaxResults int    `json:"max_results"`
	Total      int    `json:"total"` // every page matching all keywords, before the cap K
	Hits       []Hit  `json:"hits"`
}

// searcher answers keyword queries over one archive's pages of a week:
// conjunctive match (every keyword, as Yang et al. §3 assume), BM25 order,
// ties by URL.
type searcher struct {
	arch *archive.Archive
	opts SearchOptions

	mu       sync.Mutex
	analyzed []*pageTerms       // by interval ID, filled on first use
	weeks    map[int]*weekIndex // at most two weeks kept
	order    []int
}

// pageTerms is what the index needs of one archived body.
type pageTerms struct {
	title, description string
	tf                 map[string]int32
	length             int
}

type weekIndex struct {
	docs     []archive.Page
	terms    []*pageTerms
	postings postings.Index
	avgLen   float64
}

func newSearcher(a *archive.Archive, opts SearchOptions) *searcher {
	return &searcher{arch: a, opts: opts, analyzed: make([]*pageTerms, a.NumIntervals()), weeks: map[int]*weekIndex{}}
}

// PageKeywords is what the added search reads from an archived body: the
// title, the meta description and the keywords it matches a page on (the
// words of the title and the body, repeats kept). Evaluations that need
// the search's view of a page without asking it (a sample to estimate
// |R_S(q)| from) call it too.
func PageKeywords(body []byte) (title, description string, keywords []string) {
	doc, err := goquery.NewDocumentFromReader(strings.NewReader(string(body)))
	if err != nil { // a reader over a string does not fail
		return "", "", nil
	}
	title = strings.Join(strings.Fields(doc.Find("title").First().Text()), " ")
	description, _ = doc.Find(`meta[name="description"]`).First().Attr("content")
	description = strings.Join(strings.Fields(description), " ")
	return title, description, words.Split(title + " " + doc.Find("body").Text())
}

// analyze reads a body's title, meta description and text once.
func analyze(p archive.Page) *pageTerms {
	t := &pageTerms{tf: map[string]int32{}}
	var kws []string
	t.title, t.description, kws = PageKeywords(p.Body)
	for _, w := range kws {
		t.tf[w]++
		t.length++
	}
	return t
}

// week returns the index of week w, building it on first use.
func (s *searcher) week(w int) *weekIndex {
	s.mu.Lock()
	defer s.mu.Unlock()
	if ix, ok := s.weeks[w]; ok {
		return ix
	}
	ix := &weekIndex{postings: postings.Index{}}
	total := 0
	for p := range s.arch.Pages(w) {
		if s.analyzed[p.ID] == nil {
			s.analyzed[p.ID] = analyze(p)
		}
		pt := s.analyzed[p.ID]
		n := int32(len(ix.docs))
		ix.docs = append(ix.docs, p)
		ix.terms = append(ix.terms, pt)
		total += pt.length
		for term := range pt.tf {
			ix.postings.Add(n, []string{term})
		}
	}
	if len(ix.docs) > 0 {
		ix.avgLen = float64(total) / float64(len(ix.docs))
	}
	s.weeks[w] = ix
	s.order = append(s.order, w)
	if len(s.order) > 2 { // the current week and the one before
		delete(s.weeks, s.order[0])
		s.order = s.order[1:]
	}
	return ix
}

// search returns every page of week w holding all keywords, best first.
func (ix *weekIndex) search(keywords []string) []Hit {
	n := float64(len(ix.docs))
	var hits []Hit
	for _, d := range ix.postings.All(keywords) {
		pt := ix.terms[d]
		score := 0.0
		for _, k := range keywords {
			df := float64(len(ix.postings[k]))
			idf := math.Log(1 + (n-df+0.5)/(df+0.5))
			tf := float64(pt.tf[k])
			score += idf * tf * (bm25K1 + 1) / (tf + bm25K1*(1-bm25B+bm25B*float64(pt.length)/ix.avgLen))
		}
		p := ix.docs[d]
		hits = append(hits, Hit{URL: p.URL, Title: pt.title, Description: pt.description, Version: p.Hash, Score: score})
	}
	slices.SortFunc(hits, func(a, b Hit) int {
		if c := cmp.Compare(b.Score, a.Score); c != 0 {
			return c
		}
		return strings.Compare(a.URL, b.URL)
	})
	return hits
}

// serveSearch answers GET /search?q=&page=[&format=json].
func (st *site) serveSearch(w http.ResponseWriter, r *http.Request, week int) (int, error) {
	s := st.search
	q := r.URL.Query()
	query := q.Get("q")
	pages := (s.opts.MaxResults + s.opts.PageSize - 1) / s.opts.PageSize
	bad := func(format string, args ...any) (int, error) {
		st.counters.badSearch.Add(1)
		return writeText(w, r, http.StatusBadRequest, newText("400 "+fmt.Sprintf(format, args...)+"\n"))
	}
	if len(query) > maxQueryBytes {
		return bad("q is %d bytes: the limit is %d", len(query), maxQueryBytes)
	}
	keywords := words.Distinct(query)
	if len(keywords) == 0 {
		return bad("q = %q: needs at least one keyword (stop words do not count)", query)
	}
	if len(keywords) > maxQueryTerms {
		return bad("q has %d keywords: the limit is %d", len(keywords), maxQueryTerms)
	}
	page := 1
	if v := q.Get("page"); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil || n < 1 || n > pages {
			return bad("page = %q: must be an integer in [1, %d] (%d results at most, %d per page)", v, pages, s.opts.MaxResults, s.opts.PageSize)
		}
		page = n
	}
	format := q.Get("format")
	if format != "" && format != "json" && format != "html" {
		return bad("format = %q: must be html or json", format)
	}
	all := s.week(week).search(keywords)
	res := SearchResult{Interface: SearchLabel, Query: strings.Join(keywords, " "), Page: page, PageSize: s.opts.PageSize, MaxResults: s.opts.MaxResults, Total: len(all)}
	capped := all[:min(len(all), s.opts.MaxResults)]
	lo := min((page-1)*s.opts.PageSize, len(capped))
	res.Hits = capped[lo:min(lo+s.opts.PageSize, len(capped))]
	if res.Hits == nil {
		res.Hits = []Hit{}
	}
	st.counters.search.Add(1)
	w.Header()["X-Deltaq-Interface"] = []string{"added"}
	if format == "json" {
		body, err := json.Marshal(res)
		if err != nil {
			return http.StatusInternalServerError, fmt.Errorf("replay: encode search result: %w", err)
		}
		return writeBody(w, r, http.StatusOK, jsonType, body)
	}
	return writeBody(w, r, http.StatusOK, htmlType, searchHTML(res, pages))
}

// searchHTML renders a result page with stable classes for CSS extraction:
// .total[data-total], li.hit[data-id][data-version] > a.title, p.description.
func searchHTML(res SearchResult, pages int) []byte {
	var b strings.Builder
	e := html.EscapeString
	fmt.Fprintf(&b, "<!doctype html>\n<html><head><meta charset=\"utf-8\"><meta name=\"robots\" content=\"noindex\"><meta name=\"deltaq-interface\" content=\"added\"><title>search: %s</title></head>\n<body>\n", e(res.Query))
	fmt.Fprintf(&b, "<p class=\"interface\">%s</p>\n", e(res.Interface))
	fmt.Fprintf(&b, "<p class=\"total\" data-total=\"%d\">%d results (at most %d shown, %d per page)</p>\n", res.Total, res.Total, res.MaxResults, res.PageSize)
	fmt.Fprintf(&b, "<ol class=\"results\" start=\"%d\">\n", (res.Page-1)*res.PageSize+1)
	for _, h := range res.Hits {
		fmt.Fprintf(&b, "<li class=\"hit\" data-id=\"%s\" data-version=\"%s\"><a class=\"title\" href=\"%s\">%s</a><p class=\"description\">%s</p></li>\n",
			e(h.URL), e(h.Version), e(h.URL), e(h.Title), e(h.Description))
	}
	b.WriteString("</ol>\n")
	if res.Page < pages && res.Page*res.PageSize < min(res.Total, res.MaxResults) {
		fmt.Fprintf(&b, "<a rel=\"next\" href=\"/search?q=%s&amp;page=%d\">next</a>\n", url.QueryEscape(res.Query), res.Page+1)
	}
	b.WriteString("</body></html>\n")
	return []byte(b.String())
}
