package replay

import (
	"bytes"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/deltaq/deltaq/eval/archive"
	"github.com/deltaq/deltaq/eval/archive/archivetest"
)

func TestServeTldrWeekByWeek(t *testing.T) {
	a := realArchive(t, "tldr-en")
	web := newTestWeb(t, Options{}, a)

	t.Run("a page changed in week 1 has a new body and ETag", func(t *testing.T) {
		url := a.Changed(1)[0]
		web.setWeek(t, 0)
		r0 := web.get(t, url)
		web.setWeek(t, 1)
		r1 := web.get(t, url)
		if r0.status != 200 || r1.status != 200 {
			t.Fatalf("%s: status %d in week 0, %d in week 1", url, r0.status, r1.status)
		}
		if bytes.Equal(r0.body, r1.body) || r0.header.Get("ETag") == r1.header.Get("ETag") {
			t.Fatalf("%s: same body or ETag in weeks 0 and 1 (ETag %s)", url, r0.header.Get("ETag"))
		}
		for w, r := range []response{r0, r1} {
			p, _ := a.Lookup(url, w)
			if !bytes.Equal(r.body, p.Body) || r.header.Get("ETag") != `"`+p.Hash+`"` || r.header.Get("ETag") != etagOf(r.body) {
				t.Errorf("week %d: body or ETag %s differs from the archive's %q", w, r.header.Get("ETag"), p.Hash)
			}
		}
	})

	t.Run("a page has the headers of its interval", func(t *testing.T) {
		web.setWeek(t, 20)
		p, ok := a.Lookup("/common/tar.html", 20)
		if !ok {
			t.Fatal("/common/tar.html is not in week 20")
		}
		r := web.get(t, p.URL)
		want := map[string]string{
			"Content-Type":   "text/html; charset=utf-8",
			"Content-Length": fmt.Sprint(len(p.Body)),
			"Etag":           `"` + p.Hash + `"`,
			"Last-Modified":  a.Date(p.First).Format(http.TimeFormat),
		}
		for k, v := range want {
			if got := r.header.Get(k); got != v {
				t.Errorf("%s = %q, want %q", k, got, v)
			}
		}
	})

	t.Run("a page deleted in a later week is 404 from that week", func(t *testing.T) {
		w := 1
		for len(a.Deleted(w)) == 0 {
			w++
		}
		url := a.Deleted(w)[0]
		web.setWeek(t, w-1)
		if r := web.get(t, url); r.status != 200 {
			t.Fatalf("%s in week %d: status %d, want 200", url, w-1, r.status)
		}
		web.setWeek(t, w)
		if r := web.get(t, url); r.status != 404 || r.header.Get("ETag") != "" {
			t.Fatalf("%s in week %d: status %d (ETag %q), want 404 without ETag", url, w, r.status, r.header.Get("ETag"))
		}
	})

	t.Run("a page created later is 404 before it exists", func(t *testing.T) {
		url := a.Created(3)[0]
		web.setWeek(t, 2)
		if r := web.get(t, url); r.status != 404 {
			t.Fatalf("%s in week 2: status %d, want 404", url, r.status)
		}
		web.setWeek(t, 3)
		if r := web.get(t, url); r.status != 200 {
			t.Fatalf("%s in week 3: status %d, want 200", url, r.status)
		}
	})

	t.Run("a percent-encoded path is served as the manifest writes it", func(t *testing.T) {
		web.setWeek(t, 0)
		for _, url := range []string{"/common/%5B.html", "/common/%5B%5B.html", "/common/%21.html"} {
			p, ok := a.Lookup(url, 0)
			if !ok {
				t.Fatalf("%s is not in week 0 of the archive", url)
			}
			if r := web.get(t, url); r.status != 200 || !bytes.Equal(r.body, p.Body) {
				t.Errorf("GET %s: status %d, body of %d bytes; want 200 and the archive's %d", url, r.status, len(r.body), len(p.Body))
			}
		}
	})

	t.Run("another spelling of an encoded path is 404", func(t *testing.T) {
		for _, url := range []string{"/common/%5b.html", "/common/!.html"} {
			if r := web.get(t, url); r.status != 404 {
				t.Errorf("GET %s: status %d, want 404", url, r.status)
			}
		}
	})

	t.Run("a query string is ignored on a static site", func(t *testing.T) {
		if r := web.get(t, "/?utm=1"); r.status != 200 {
			t.Fatalf("GET /?utm=1: status %d, want 200", r.status)
		}
	})

	t.Run("HEAD has the headers of GET and no body", func(t *testing.T) {
		g := web.get(t, "/common/tar.html")
		h := web.do(t, http.MethodHead, "/common/tar.html")
		if h.status != 200 || len(h.body) != 0 {
			t.Fatalf("HEAD: status %d, %d body bytes; want 200 and none", h.status, len(h.body))
		}
		for _, k := range []string{"Etag", "Last-Modified", "Content-Length", "Content-Type"} {
			if h.header.Get(k) != g.header.Get(k) || h.header.Get(k) == "" {
				t.Errorf("%s: HEAD %q, GET %q", k, h.header.Get(k), g.header.Get(k))
			}
		}
	})

	t.Run("methods other than GET and HEAD are 405 with Allow", func(t *testing.T) {
		for _, m := range []string{http.MethodPost, http.MethodPut, http.MethodDelete, http.MethodOptions} {
			r := web.do(t, m, "/common/tar.html")
			if r.status != 405 || r.header.Get("Allow") != "GET, HEAD" {
				t.Errorf("%s: status %d, Allow %q; want 405 and GET, HEAD", m, r.status, r.header.Get("Allow"))
			}
		}
	})

	hosts := []struct {
		host string
		want int
	}{
		{"tldr-en.test", 200},
		{"TLDR-EN.Test", 200},
		{"tldr-en.test:8080", 200},
		{"tldr-en.test.", 200},
		{"digitalgov-2023.test", 404},
		{"tldr-en", 404},
		{"127.0.0.1", 404},
		{"[::1]:80", 404},
	}
	for _, tc := range hosts {
		t.Run(fmt.Sprintf("Host %s is answered %d", tc.host, tc.want), func(t *testing.T) {
			if r := web.doHost(t, tc.host, http.MethodGet, "/"); r.status != tc.want {
				t.Fatalf("status %d, want %d", r.status, tc.want)
			}
		})
	}
}

func TestEveryPageOfAWeekIsServed(t *testing.T) {
	// The whole of one week of each archive, over HTTP: every manifest URL
	// must arrive at the server as its own escaped path and come back with
	// its body, and no URL of another week may leak in.
	for _, tc := range []struct {
		name string
		week int
	}{{"tldr-en", 47}, {"digitalgov-2023", 40}} {
		t.Run(tc.name, func(t *testing.T) {
			a := realArchive(t, tc.name)
			web := newTestWeb(t, Options{}, a)
			web.setWeek(t, tc.week)
			for p := range a.Pages(tc.week) {
				r := web.get(t, p.URL)
				if r.status != 200 || !bytes.Equal(r.body, p.Body) || r.header.Get("ETag") != etagOf(r.body) {
					t.Fatalf("GET %s: status %d, %d bytes, ETag %s; want the archive's %d bytes, %q",
						p.URL, r.status, len(r.body), r.header.Get("ETag"), len(p.Body), p.Hash)
				}
			}
			st := web.srv.Stats().Hosts[tc.name+".test"]
			if st.OK != int64(a.Len(tc.week)) || st.NotFound != 0 {
				t.Fatalf("stats %+v, want OK = %d", st, a.Len(tc.week))
			}
		})
	}
}

func TestTwoArchivesAreServedSideBySide(t *testing.T) {
	tldr, gov := realArchive(t, "tldr-en"), realArchive(t, "digitalgov-2023")
	web := newTestWeb(t, Options{}, tldr, gov)
	web.setWeek(t, 5)
	for _, a := range []*archive.Archive{tldr, gov} {
		p, _ := a.Lookup("/", 5)
		r := web.doHost(t, a.Name()+".test", http.MethodGet, "/")
		if r.status != 200 || !bytes.Equal(r.body, p.Body) {
			t.Errorf("%s.test/: status %d, not the archive's home page", a.Name(), r.status)
		}
	}
	if got := strings.Join(web.srv.Hosts(), " "); got != "tldr-en.test digitalgov-2023.test" {
		t.Errorf("Hosts() = %s", got)
	}
}

func TestSetWeek(t *testing.T) {
	srv, err := New([]*archive.Archive{realArchive(t, "tldr-en")}, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if srv.Week() != 0 || srv.Weeks() != 48 {
		t.Fatalf("new server: Week %d, Weeks %d; want 0, 48", srv.Week(), srv.Weeks())
	}
	cases := []struct {
		week int
		ok   bool
	}{{47, true}, {0, true}, {12, true}, {48, false}, {-1, false}, {1 << 40, false}}
	for _, tc := range cases {
		verdict := map[bool]string{true: "accepted", false: "rejected and the week kept"}[tc.ok]
		t.Run(fmt.Sprintf("week %d is %s", tc.week, verdict), func(t *testing.T) {
			before := srv.Week()
			err := srv.SetWeek(tc.week)
			if tc.ok {
				if err != nil || srv.Week() != tc.week {
					t.Fatalf("SetWeek(%d) = %v, Week() = %d", tc.week, err, srv.Week())
				}
				return
			}
			if !errors.Is(err, ErrWeekRange) || !strings.Contains(err.Error(), "[0, 48)") {
				t.Fatalf("SetWeek(%d) = %v, want ErrWeekRange naming [0, 48)", tc.week, err)
			}
			if srv.Week() != before {
				t.Fatalf("a rejected SetWeek moved the week from %d to %d", before, srv.Week())
			}
		})
	}
}

func TestNewRejectsBadInput(t *testing.T) {
	tldr := realArchive(t, "tldr-en")
	fixture := func(name string, weeks int) *archive.Archive {
		return fixtureArchive(t, archivetest.Fixture{Name: name, Weeks: weeks,
			Intervals: []archivetest.Interval{{URL: "/", First: 0, Last: weeks - 1, Body: "home\n"}}})
	}
	cases := []struct {
		name     string
		archives []*archive.Archive
		opts     Options
		want     string
	}{
		{"no archives", nil, Options{}, "no archives"},
		{"a nil archive", []*archive.Archive{tldr, nil}, Options{}, "archive 1 is nil"},
		{"the same archive twice", []*archive.Archive{tldr, tldr}, Options{}, `"tldr-en" is served twice`},
		{"a name that is no DNS label", []*archive.Archive{fixture("under_score", 48)}, Options{}, "must be a DNS label"},
		{"archives of different lengths", []*archive.Archive{tldr, fixture("short", 3)}, Options{}, `"short" has 3 weeks, "tldr-en" has 48`},
		{"a negative latency", []*archive.Archive{tldr}, Options{Latency: -time.Second}, "web.replay.latency = -1s: must be >= 0"},
		{"robots lines for an archive not served", []*archive.Archive{tldr}, Options{RobotsExtra: map[string][]string{"nope": {"Disallow: /"}}}, "robots_extra.nope"},
		{"a robots line with a newline", []*archive.Archive{tldr}, Options{RobotsExtra: map[string][]string{"tldr-en": {"Disallow: /\nAllow: /x"}}}, "robots_extra.tldr-en[0]"},
	}
	for _, tc := range cases {
		t.Run("New rejects "+tc.name, func(t *testing.T) {
			srv, err := New(tc.archives, tc.opts)
			if err == nil || !strings.Contains(err.Error(), tc.want) || !strings.HasPrefix(err.Error(), "replay: ") {
				t.Fatalf("New = %v, %v; want an error containing %q", srv, err, tc.want)
			}
		})
	}
	t.Run("Validate reports every problem at once", func(t *testing.T) {
		err := Options{Latency: -1, RobotsExtra: map[string][]string{"a": {"x\ny"}}}.Validate()
		if err == nil || !strings.Contains(err.Error(), "latency") || !strings.Contains(err.Error(), "robots_extra") {
			t.Fatalf("Validate = %v, want both problems", err)
		}
	})
}

func TestStatsCountResponsesByHostAndStatus(t *testing.T) {
	a := realArchive(t, "tldr-en")
	web := newTestWeb(t, Options{}, a)
	p, _ := a.Lookup("/", 0)
	etag := `"` + p.Hash + `"`
	web.get(t, "/")                        // 200
	web.get(t, "/", "If-None-Match", etag) // 304
	web.get(t, "/no-such-page.html")       // 404
	web.get(t, "/robots.txt")              // 200, robots
	web.get(t, "/sitemap.xml")             // 200, sitemap
	web.do(t, http.MethodHead, "/")        // 200, no body
	web.do(t, http.MethodPost, "/")        // 405
	web.doHost(t, "elsewhere.test", http.MethodGet, "/")

	st := web.srv.Stats()
	want := HostStats{OK: 4, NotModified: 1, NotFound: 1, MethodNotAllowed: 1, Robots: 1, Sitemaps: 1, BodyBytes: int64(len(p.Body))}
	if got := st.Hosts["tldr-en.test"]; got != want {
		t.Errorf("tldr-en.test: %+v\nwant %+v", got, want)
	}
	if st.UnknownHost != 1 {
		t.Errorf("UnknownHost = %d, want 1", st.UnknownHost)
	}
	if tot := st.Total(); tot.NotFound != 2 || tot.OK != 4 {
		t.Errorf("Total() = %+v, want NotFound 2 (one unknown host), OK 4", tot)
	}
}

func TestConcurrentRequestsWhileWeeksFlip(t *testing.T) {
	// Readers fetch pages that change often while the week moves back and
	// forth; each response must be one coherent version: its body hashes to
	// its ETag and is the body of that URL in some week. Run under -race.
	a := realArchive(t, "tldr-en")
	web := newTestWeb(t, Options{}, a)
	urls := append([]string{"/", "/common/"}, a.Changed(13)[:20]...)
	versions := map[string]bool{} // url + ETag seen in the archive
	for _, u := range urls {
		for _, p := range a.Intervals(u) {
			versions[u+` "`+p.Hash+`"`] = true
		}
	}

	const readers, perReader = 4, 60
	var wg sync.WaitGroup
	errs := make(chan error, readers*perReader)
	done := make(chan struct{})
	wg.Go(func() {
		for w := 0; ; w = (w + 7) % a.Weeks() {
			select {
			case <-done:
				return
			default:
			}
			if err := web.srv.SetWeek(w); err != nil {
				errs <- err
				return
			}
		}
	})
	var readersWG sync.WaitGroup
	for i := range readers {
		readersWG.Go(func() {
			for j := range perReader {
				u := urls[(i*perReader+j)%len(urls)]
				r, err := web.try(t.Context(), web.host, http.MethodGet, u)
				switch {
				case err != nil:
					errs <- err
				case r.status == 404:
					// the URL may not exist in the week being served
				case r.status != 200:
					errs <- fmt.Errorf("GET %s: status %d", u, r.status)
				case r.header.Get("ETag") != etagOf(r.body):
					errs <- fmt.Errorf("GET %s: ETag %s does not match the body", u, r.header.Get("ETag"))
				case !versions[u+" "+r.header.Get("ETag")]:
					errs <- fmt.Errorf("GET %s: ETag %s is no version of this URL", u, r.header.Get("ETag"))
				}
			}
		})
	}
	readersWG.Wait()
	close(done)
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
	if st := web.srv.Stats().Total(); st.OK+st.NotFound != readers*perReader {
		t.Errorf("counted %d responses, sent %d requests", st.OK+st.NotFound, readers*perReader)
	}
}
