package watch

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"testing"
)

// TestFetchFollowsRedirectsAsTheCrawlerDoes: a watch's own fetch (deltaq
// serve) follows crawler.limits.max_redirects redirects in a row, not
// net/http's ten, and a loop, a longer chain or a target of another scheme
// fails saying which, in the words of a check on the crawler's fetches.
func TestFetchFollowsRedirectsAsTheCrawlerDoes(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch p := r.URL.Path; {
		case p == "/a":
			http.Redirect(w, r, "/b", http.StatusFound)
		case p == "/b":
			http.Redirect(w, r, "/a", http.StatusFound)
		case p == "/ftp":
			http.Redirect(w, r, "ftp://example.org/x", http.StatusFound)
		case strings.HasPrefix(p, "/c"): // /c12 is the page, /cN redirects to /cN+1
			n, _ := strconv.Atoi(p[2:])
			if n < 12 {
				http.Redirect(w, r, fmt.Sprintf("/c%d", n+1), http.StatusFound)
				return
			}
			w.Header().Set("Content-Type", "text/html")
			fmt.Fprint(w, htmlPage("end"))
		default:
			http.NotFound(w, r)
		}
	}))
	defer srv.Close()
	u := srv.URL
	for _, tc := range []struct {
		path string
		most int
		want string // "" for a fetched page
	}{
		{"/c0", 12, ""},
		{"/c0", 11, "more than crawler.limits.max_redirects = 11 redirects in a row (" + u + "/c0 → " + u + "/c1 → "},
		{"/c10", 0, "more than crawler.limits.max_redirects = 0 redirects in a row (" + u + "/c10 → " + u + "/c11)"},
		{"/a", 12, "a redirect loop (" + u + "/a → " + u + "/b → " + u + "/a); not followed"},
		{"/ftp", 12, "a redirect to no http or https URL (" + u + "/ftp → ftp://example.org/x)"},
	} {
		f := HTTPFetcher{Client: loopbackClient(), MaxBytes: 1 << 20, MaxRedirects: tc.most}
		got, err := f.Fetch(t.Context(), u+tc.path)
		switch {
		case tc.want == "" && (err != nil || got.Status != 200):
			t.Errorf("%s under %d: status %d, %v; want the page", tc.path, tc.most, got.Status, err)
		case tc.want != "" && (err == nil || !strings.Contains(err.Error(), tc.want)):
			t.Errorf("%s under %d: %v; want an error saying %q", tc.path, tc.most, err, tc.want)
		}
	}
}
