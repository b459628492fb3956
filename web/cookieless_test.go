package web_test

import (
	"html"
	"io"
	"net/http"
	"net/url"
	"regexp"
	"strings"
	"testing"

	"github.com/deltaq/deltaq/web"
)

var (
	resultURL = regexp.MustCompile(`<div class="url">([^<·]*)`)
	nextLink  = regexp.MustCompile(`<a href="(/\?[^"]*)" rel="next">`)
)

// TestACookielessVisitorSeesEachResultOnce follows the Next links of the
// real engine's result pages (digitalgov-2023 week 0, ranking with
// promotion) as a browser that keeps no cookie does. Each request used to
// draw a new user id, and so another promotion order: over the ten pages
// of the query chosen here, 4 of 100 results repeated a page before and
// as many never showed (over twenty pages of "accessibility", 22 of 200).
// The pages now carry the first page's id in their links,
// and together show each result once, as they do for a visitor with the
// cookie; the id is the one the first page set as the cookie, and a
// request that carries one sets no cookie of it.
func TestACookielessVisitorSeesEachResultOnce(t *testing.T) {
	s := newStack(t)
	q := ""
	for _, c := range s.queries {
		res, err := s.engine.Search(t.Context(), web.Request{Query: c, Page: 1, Size: 10})
		if err != nil {
			t.Fatal(err)
		}
		if res.Truncated() && res.Pageable >= 100 {
			q = c
			break
		}
	}
	if q == "" {
		t.Fatal("no query of the log fills ten pages")
	}
	client := &http.Client{} // no cookie jar
	href := "/?" + url.Values{"q": {q}}.Encode()
	seen, carried := map[string]int{}, ""
	for page := 1; page <= 10; page++ {
		res, err := client.Get(s.srv.URL + href)
		if err != nil {
			t.Fatal(err)
		}
		b, err := io.ReadAll(res.Body)
		res.Body.Close()
		if err != nil || res.StatusCode != http.StatusOK {
			t.Fatalf("%s: status %d, %v", href, res.StatusCode, err)
		}
		cookies := res.Cookies()
		switch {
		case page == 1 && (len(cookies) != 1 || cookies[0].Name != web.UserCookie):
			t.Fatalf("the first page set cookies %v, want the user id", cookies)
		case page == 1:
			carried = cookies[0].Value
		case len(cookies) != 0:
			t.Errorf("page %d, its id given in its URL, set cookies %v", page, cookies)
		}
		for _, m := range resultURL.FindAllStringSubmatch(string(b), -1) {
			u := strings.TrimSpace(html.UnescapeString(m[1]))
			if p, ok := seen[u]; ok {
				t.Errorf("page %d repeats %s, shown on page %d", page, u, p)
			}
			seen[u] = page
		}
		m := nextLink.FindStringSubmatch(string(b))
		if m == nil {
			t.Fatalf("page %d of %q has no Next link", page, q)
		}
		href = html.UnescapeString(m[1])
		if next, err := url.Parse(href); err != nil || next.Query().Get("u") != carried {
			t.Fatalf("page %d links to %s; want it to carry the first page's id %s", page, href, carried)
		}
	}
	if len(seen) != 100 {
		t.Errorf("ten pages of ten showed %d results, want 100", len(seen))
	}
}
