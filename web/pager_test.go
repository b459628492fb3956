package web_test

import (
	"encoding/json"
	"fmt"
	"html"
	"io"
	"net/http"
	"net/http/cookiejar"
	"net/url"
	"regexp"
	"strings"
	"testing"

	"github.com/deltaq/deltaq/web"
)

// TestPagerNeverLinksToAnEmptyPage runs the real engine (digitalgov-2023
// week 0 indexed, ranking with promotion, the HTTP server) on queries
// whose matches overflow ranking.candidates, fill a few pages, and come
// from a long question, at two page sizes. Over JSON, every page up to
// the last that total and pageable announce has results, together they
// hold each reachable result once, and the page after the last is empty.
// Over HTML, following the pager's links from the first page reaches
// every page up to that last one and no other, and each has results; the
// page after the last says it is past the results and links back.
func TestPagerNeverLinksToAnEmptyPage(t *testing.T) {
	s := newStack(t)
	var many, few, long string
	for _, q := range s.queries {
		res, err := s.engine.Search(t.Context(), web.Request{Query: q, Page: 1, Size: 10})
		if err != nil {
			t.Fatal(err)
		}
		switch {
		case many == "" && res.Truncated():
			many = q
		case few == "" && res.Total > 10 && res.Total < 100 && res.Total%10 != 0:
			few = q
		case long == "" && len(strings.Fields(q)) > 5 && !res.Truncated():
			long = q
		}
	}
	if many == "" || few == "" || long == "" {
		t.Fatalf("queries: truncated %q, a few pages %q, long %q: the log lacks one", many, few, long)
	}
	for _, q := range []string{many, few, long} {
		for _, size := range []int{10, 7} {
			t.Run(fmt.Sprintf("%s/size=%d", q, size), func(t *testing.T) {
				last := pagerJSON(t, s, q, size)
				pagerHTML(t, s, q, size, last)
			})
		}
	}
}

// apiPage is the part of the search API's answer the pager depends on.
type apiPage struct {
	Total    uint64 `json:"total"`
	Pageable int    `json:"pageable"`
	Results  []struct {
		URL string `json:"url"`
	} `json:"results"`
}

// pagerJSON checks the API's pages of q and returns the last page number.
func pagerJSON(t *testing.T, s *stack, q string, size int) int {
	get := func(page int) apiPage {
		t.Helper()
		res, err := http.Get(fmt.Sprintf("%s/api/v1/search?q=%s&size=%d&page=%d", s.srv.URL, url.QueryEscape(q), size, page))
		if err != nil {
			t.Fatal(err)
		}
		defer res.Body.Close()
		var p apiPage
		if res.StatusCode != http.StatusOK {
			b, _ := io.ReadAll(res.Body)
			t.Fatalf("page %d: status %d: %s", page, res.StatusCode, b)
		}
		if err := json.NewDecoder(res.Body).Decode(&p); err != nil {
			t.Fatalf("page %d: %v", page, err)
		}
		return p
	}
	first := get(1)
	reach := first.Total
	if first.Pageable > 0 && uint64(first.Pageable) < reach {
		reach = uint64(first.Pageable)
	}
	last := int((reach + uint64(size) - 1) / uint64(size))
	if last < 2 {
		t.Fatalf("total %d, pageable %d: a single page tests no pager", first.Total, first.Pageable)
	}
	seen := map[string]bool{}
	for page := 1; page <= last; page++ {
		p := get(page)
		if len(p.Results) == 0 {
			t.Fatalf("page %d of %d (total %d, pageable %d) is empty", page, last, p.Total, p.Pageable)
		}
		for _, r := range p.Results {
			if seen[r.URL] {
				t.Errorf("page %d repeats %s", page, r.URL)
			}
			seen[r.URL] = true
		}
	}
	if uint64(len(seen)) != reach {
		t.Errorf("pages 1..%d hold %d results, total %d and pageable %d say %d", last, len(seen), first.Total, first.Pageable, reach)
	}
	// The page after the last is empty, unless it is past what the
	// ranking orders: TestAPageBeyondWhatASearchOrdersIsNamed.
	if last*size < s.cfg.Ranking.Candidates {
		if p := get(last + 1); len(p.Results) != 0 {
			t.Errorf("page %d, after the last, has %d results", last+1, len(p.Results))
		}
	}
	return last
}

var pagerLink = regexp.MustCompile(`<a href="(/\?[^"]*)"`)

// pagerHTML follows the result pages' pager links from the first page of q
// and checks that they reach exactly pages 1..last, each with results.
func pagerHTML(t *testing.T, s *stack, q string, size, last int) {
	jar, err := cookiejar.New(nil)
	if err != nil {
		t.Fatal(err)
	}
	client := &http.Client{Jar: jar} // one user: one promotion order
	start := "/?" + url.Values{"q": {q}, "size": {fmt.Sprint(size)}}.Encode()
	queue, visited := []string{start}, map[string]bool{start: true}
	pages := map[string]bool{}
	for len(queue) > 0 {
		href := queue[0]
		queue = queue[1:]
		res, err := client.Get(s.srv.URL + href)
		if err != nil {
			t.Fatal(err)
		}
		b, err := io.ReadAll(res.Body)
		res.Body.Close()
		if err != nil || res.StatusCode != http.StatusOK {
			t.Fatalf("%s: status %d, %v", href, res.StatusCode, err)
		}
		body := string(b)
		if n := strings.Count(body, `<li class="result">`); n == 0 {
			t.Errorf("%s: a page the pager links to has no results", href)
		}
		u, _ := url.Parse(href)
		page := u.Query().Get("page")
		if page == "" {
			page = "1"
		}
		pages[page] = true
		nav := ""
		if i := strings.Index(body, `<nav class="pages"`); i >= 0 {
			nav = body[i:]
		}
		for _, m := range pagerLink.FindAllStringSubmatch(nav, -1) {
			next := html.UnescapeString(m[1])
			if !visited[next] {
				visited[next] = true
				queue = append(queue, next)
			}
		}
	}
	for p := 1; p <= last; p++ {
		if !pages[fmt.Sprint(p)] {
			t.Errorf("the pager never reaches page %d of %d", p, last)
		}
	}
	if len(pages) != last {
		t.Errorf("the pager reaches %d pages, want %d", len(pages), last)
	}

	// A page past the last (an old link, an edited URL) says so and links
	// to the last page, and to no other.
	past := "/?" + url.Values{"q": {q}, "size": {fmt.Sprint(size)}, "page": {fmt.Sprint(last + 1)}}.Encode()
	res, err := client.Get(s.srv.URL + past)
	if err != nil {
		t.Fatal(err)
	}
	b, err := io.ReadAll(res.Body)
	res.Body.Close()
	if err != nil {
		t.Fatal(err)
	}
	if res.StatusCode == http.StatusBadRequest {
		return // past what the ranking orders: TestAPageBeyondWhatASearchOrdersIsNamed
	}
	body := string(b)
	i := strings.Index(body, `id="past"`)
	if res.StatusCode != http.StatusOK || i < 0 {
		t.Fatalf("%s: status %d, want 200 saying the page is past the last:\n%s", past, res.StatusCode, body)
	}
	var links []string
	for _, m := range pagerLink.FindAllStringSubmatch(body[i:], -1) {
		links = append(links, html.UnescapeString(m[1]))
	}
	if len(links) != 1 {
		t.Fatalf("%s links to %q, want only the last page, %d", past, links, last)
	}
	u, err := url.Parse(links[0])
	if v := u.Query(); err != nil || v.Get("q") != q || v.Get("page") != fmt.Sprint(last) ||
		v.Has("size") && v.Get("size") != fmt.Sprint(size) {
		t.Errorf("%s links to %s, want page %d of %q", past, links[0], last, q)
	}
}

// TestAPageBeyondWhatASearchOrdersIsNamed asks the real engine for the
// page after the deepest one ranking.candidates allows at a size: the
// answer is a 400 naming the page, its value and the limit, over JSON and
// on the HTML page (a request past the ranking's limits was once blamed
// on the query, and at size 10 pages 21 to 200 were answered empty).
func TestAPageBeyondWhatASearchOrdersIsNamed(t *testing.T) {
	s := newStack(t)
	for _, size := range []int{1, 10} {
		pageBeyondIsNamed(t, s, size)
	}
}

// pageBeyondIsNamed is TestAPageBeyondWhatASearchOrdersIsNamed at size.
func pageBeyondIsNamed(t *testing.T, s *stack, size int) {
	t.Helper()
	deepest := (s.cfg.Ranking.Candidates + size - 1) / size
	page := fmt.Sprint(deepest + 1)
	res, err := http.Get(fmt.Sprintf("%s/api/v1/search?q=%s&size=%d&page=%d", s.srv.URL, url.QueryEscape(s.queries[0]), size, deepest))
	if err != nil {
		t.Fatal(err)
	}
	res.Body.Close()
	if res.StatusCode != http.StatusOK {
		t.Fatalf("size %d, page %d, the deepest: status %d, want 200", size, deepest, res.StatusCode)
	}
	res, err = http.Get(fmt.Sprintf("%s/api/v1/search?q=%s&size=%d&page=%s", s.srv.URL, url.QueryEscape(s.queries[0]), size, page))
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	var body struct {
		Error struct{ Code, Field, Value, Limit, Message string }
	}
	if err := json.NewDecoder(res.Body).Decode(&body); err != nil {
		t.Fatal(err)
	}
	e := body.Error
	if wantLimit := fmt.Sprintf("in [1, %d] (ranking.candidates = %d at size %d)", deepest, s.cfg.Ranking.Candidates, size); res.StatusCode != http.StatusBadRequest ||
		e.Code != web.CodeBadParameter || e.Field != "page" || e.Value != page || e.Limit != wantLimit || !strings.Contains(e.Message, page) {
		t.Fatalf("status %d, error %+v: want 400 %s naming page = %s, limit %q", res.StatusCode, e, web.CodeBadParameter, page, wantLimit)
	}
	res, err = http.Get(fmt.Sprintf("%s/?q=%s&size=%d&page=%s", s.srv.URL, url.QueryEscape(s.queries[0]), size, page))
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	html, _ := io.ReadAll(res.Body)
	if want := `id="error">page: ` + page; res.StatusCode != http.StatusBadRequest || !strings.Contains(string(html), want) {
		t.Fatalf("HTML: status %d, want 400 with %q in:\n%s", res.StatusCode, want, html)
	}
}
