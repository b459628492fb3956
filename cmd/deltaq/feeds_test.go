package main

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/deltaq/deltaq/feeds"
)

// TestFeedsAddRefusesWhatItWouldNotKeepAsGiven: a URL without a host
// (whose path was taken for one), a URL with credentials (stored without
// them) and an interval under feeds.step (polls fall on its grid) are
// refused, each naming what is wrong, and nothing is subscribed.
func TestFeedsAddRefusesWhatItWouldNotKeepAsGiven(t *testing.T) {
	for _, c := range []struct {
		name string
		args []string
		want string
	}{
		{"a URL without a host", []string{"http:///nohost"}, `URL "http:///nohost": must be an absolute http or https URL that names a host`},
		{"a URL with credentials", []string{"http://user:pass@e.test/feed"}, `URL "http://user:pass@e.test/feed": must be without credentials (user:pass@)`},
		{"a min interval under feeds.step", []string{"http://e.test/feed", "--min-interval", "1ns"}, `--min-interval = "1ns": must be ≥ feeds.step (5m0s)`},
		{"a max interval under feeds.step", []string{"http://e.test/feed", "--max-interval", "1m"}, `--max-interval = "1m0s": must be ≥ feeds.step (5m0s)`},
	} {
		t.Run(c.name, func(t *testing.T) {
			data := t.TempDir()
			_, _, err := run(t, append(append([]string{"feeds", "add"}, c.args...), "--data", data)...)
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Fatalf("feeds add %s: %v, want %q", strings.Join(c.args, " "), err, c.want)
			}
			// A flag is refused before the repository is made, a URL by
			// the store: either way no feed is there.
			out, _, err := run(t, "feeds", "list", "--data", data)
			switch {
			case err != nil && strings.Contains(err.Error(), "no repository there"):
			case err != nil || strings.Count(out, "\n") != 1:
				t.Errorf("feeds list after the refused add: %v\n%s, want no feed", err, out)
			}
		})
	}
}

// TestFeedsExplainTakesAnIDAsRmDoes: explain, like rm, takes a feed's URL
// or its ID, and an argument that is neither says so.
func TestFeedsExplainTakesAnIDAsRmDoes(t *testing.T) {
	data := t.TempDir()
	const u = "http://e.test/feed.xml"
	if out, _, err := run(t, "feeds", "add", u, "--data", data); err != nil {
		t.Fatalf("feeds add: %v\n%s", err, out)
	}
	id := feeds.IDOf(u)
	if out, _, err := run(t, "feeds", "explain", id, "--data", data); err != nil || !strings.HasPrefix(out, u) {
		t.Errorf("feeds explain %s: %v\n%s, want the feed %s explained", id, err, out, u)
	}
	for _, cmd := range []string{"explain", "rm"} {
		_, _, err := run(t, "feeds", cmd, "yesterday", "--data", data)
		if want := `"yesterday": not a feed URL or ID of this repository`; err == nil || !strings.Contains(err.Error(), want) || strings.Contains(err.Error(), "urlnorm") {
			t.Errorf("feeds %s yesterday: %v, want %q", cmd, err, want)
		}
	}
	if out, _, err := run(t, "feeds", "rm", id, "--data", data); err != nil || !strings.Contains(out, "unsubscribed "+id) {
		t.Errorf("feeds rm %s: %v\n%s", id, err, out)
	}
}

// TestWebFeedsStartSaysTheFormat: a --start that is not a time names the
// formats it takes, with examples.
func TestWebFeedsStartSaysTheFormat(t *testing.T) {
	_, _, err := run(t, "web", "feeds", "--data", t.TempDir(), "--listen", "127.0.0.1:0", "--start", "yesterday")
	if want := `--start = "yesterday": must be an RFC 3339 time or a date, e.g. 2025-03-03T00:00:00Z or 2025-03-03`; err == nil || !strings.Contains(err.Error(), want) {
		t.Errorf("web feeds --start yesterday: %v, want %q", err, want)
	}
}

// TestFeedsImportCountsEachOutline: new subscriptions, those already
// there, repeats within the file (an upper-case host is the same feed)
// and skipped outlines are counted apart, the skipped ones listed with
// why; importing the list again subscribes none anew.
func TestFeedsImportCountsEachOutline(t *testing.T) {
	dir := t.TempDir()
	list := filepath.Join(dir, "list.opml")
	opml := `<?xml version="1.0"?><opml version="2.0"><body>
<outline text="Tech">
 <outline text="a" xmlUrl="http://a.test/feed"/>
 <outline text="A again" xmlUrl="http://A.TEST/feed"/>
 <outline text="b" xmlurl="http://b.test/feed"/>
</outline>
<outline text="c" xmlUrl="http://c.test/feed"/>
<outline text="c again" xmlUrl="http://c.test/feed"/>
<outline text="lost" type="rss"/>
<outline text="blank" xmlUrl=""/>
<outline text="ftp" xmlUrl="ftp://d.test/feed"/>
<outline text="pre" xmlUrl="http://pre.test/feed"/>
</body></opml>`
	if err := os.WriteFile(list, []byte(opml), 0o644); err != nil {
		t.Fatal(err)
	}
	data := t.TempDir()
	if out, _, err := run(t, "feeds", "add", "http://pre.test/feed", "--data", data); err != nil {
		t.Fatalf("feeds add: %v\n%s", err, out)
	}
	out, _, err := run(t, "feeds", "import", list, "--data", data)
	for _, want := range []string{
		"3 feeds subscribed, 1 already subscribed, 2 repeated in the file, 3 skipped\n",
		"  skipped: line 9 \"lost\": no xmlUrl\n",
		"  skipped: line 10 \"blank\": empty xmlUrl\n",
		"  skipped: line 11 \"ftp://d.test/feed\": must be an absolute http or https URL\n",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("feeds import:\n%s\nwant %q", out, want)
		}
	}
	if err == nil || !strings.Contains(err.Error(), "3 outlines skipped") {
		t.Errorf("feeds import with skipped outlines: %v, want an error counting them", err)
	}
	out, _, _ = run(t, "feeds", "import", list, "--data", data)
	if !strings.Contains(out, "0 feeds subscribed, 4 already subscribed, 2 repeated in the file, 3 skipped\n") {
		t.Errorf("feeds import again:\n%s\nwant none subscribed anew", out)
	}
}

// TestFeedsImportSkipsAURLWithFeedsAddsReason: a URL feeds add refuses
// is skipped by an import for the same reason, where one too long used
// to be called not an http or https URL.
func TestFeedsImportSkipsAURLWithFeedsAddsReason(t *testing.T) {
	dir := t.TempDir()
	for _, u := range []string{"http://a.test/" + strings.Repeat("a", 3000), "ftp://d.test/feed"} {
		_, _, err := run(t, "feeds", "add", u, "--data", dir)
		if err == nil {
			t.Fatalf("feeds add %.40s…: subscribed", u)
		}
		i := strings.LastIndex(err.Error(), ": must be ")
		if i < 0 {
			t.Fatalf("feeds add %.40s…: %v, want why", u, err)
		}
		why := err.Error()[i:]
		list := filepath.Join(t.TempDir(), "list.opml")
		opml := `<?xml version="1.0"?><opml version="2.0"><body><outline text="x" xmlUrl="` + u + `"/></body></opml>`
		if err := os.WriteFile(list, []byte(opml), 0o644); err != nil {
			t.Fatal(err)
		}
		out, _, err := run(t, "feeds", "import", list, "--data", dir)
		if err == nil || !strings.Contains(out, "0 feeds subscribed") || !strings.Contains(out, why+"\n") {
			t.Errorf("feeds import of %.40s…: %v\n%.300s\nwant it skipped%s", u, err, out, why)
		}
	}
}

// TestFeedsImportRefusesABadFlagOnce: a weight or interval flag no feed
// can take was reported once for each outline, as a skip; it is refused
// once, naming the flag, the value and the limit, before the list is read
// or the data directory made, in the words feeds add refuses it with;
// feeds add makes no data directory for it either.
func TestFeedsImportRefusesABadFlagOnce(t *testing.T) {
	list := filepath.Join(t.TempDir(), "list.opml")
	opml := `<?xml version="1.0"?><opml version="2.0"><body>
<outline text="a" xmlUrl="http://a.test/feed"/>
<outline text="b" xmlUrl="http://b.test/feed"/>
<outline text="c" xmlUrl="http://c.test/feed"/>
</body></opml>`
	if err := os.WriteFile(list, []byte(opml), 0o644); err != nil {
		t.Fatal(err)
	}
	missing := filepath.Join(t.TempDir(), "missing.opml")
	for _, c := range []struct {
		flags []string
		want  string
	}{
		{[]string{"--weight", "0"}, `--weight = "0": must be a finite number > 0`},
		{[]string{"--weight", "-1"}, `--weight = "-1": must be a finite number > 0`},
		{[]string{"--weight", "NaN"}, `--weight = "NaN": must be a finite number > 0`},
		{[]string{"--min-interval", "0s"}, `--min-interval = "0s": must be a duration > 0`},
		{[]string{"--max-interval", "1m"}, `--max-interval = "1m0s": must be ≥ feeds.step (5m0s)`},
		{[]string{"--min-interval", "2h", "--max-interval", "1h"}, `--min-interval = "2h0m0s": must be ≤ --max-interval (1h0m0s)`},
	} {
		t.Run(strings.Join(c.flags, " "), func(t *testing.T) {
			for _, file := range []string{list, missing} {
				data := filepath.Join(t.TempDir(), "data")
				out, _, err := run(t, append(append([]string{"feeds", "import", file}, c.flags...), "--data", data)...)
				if err == nil || !strings.Contains(err.Error(), c.want) || strings.Count(err.Error(), "must be") != 1 || out != "" {
					t.Errorf("feeds import %s: %v\n%s\nwant only %q", filepath.Base(file), err, out, c.want)
				}
				if _, err := os.Stat(data); !errors.Is(err, fs.ErrNotExist) {
					t.Errorf("feeds import %s: the data directory after the refusal: %v; want none made", filepath.Base(file), err)
				}
			}
			data := filepath.Join(t.TempDir(), "data")
			_, _, err := run(t, append(append([]string{"feeds", "add", "http://a.test/feed"}, c.flags...), "--data", data)...)
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Errorf("feeds add: %v, want %q", err, c.want)
			}
			if _, err := os.Stat(data); !errors.Is(err, fs.ErrNotExist) {
				t.Errorf("feeds add: the data directory after the refusal: %v; want none made", err)
			}
		})
	}
}

// TestFeedsImportOfManyFeeds imports a list longer than a batch of the
// store's: every feed is subscribed with its name, a feed subscribed
// before and a repeat are counted as such, and the import run again finds
// them all subscribed.
func TestFeedsImportOfManyFeeds(t *testing.T) {
	const n = 2500
	var b strings.Builder
	b.WriteString(`<?xml version="1.0"?><opml version="2.0"><body>` + "\n")
	for i := range n {
		fmt.Fprintf(&b, `<outline text="f%d" xmlUrl="http://h%d.test/feed"/>`+"\n", i, i)
	}
	b.WriteString(`<outline text="again" xmlUrl="http://H1.test/feed"/></body></opml>`)
	list := filepath.Join(t.TempDir(), "list.opml")
	if err := os.WriteFile(list, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	data := t.TempDir()
	if out, _, err := run(t, "feeds", "add", "http://h7.test/feed", "--name", "Mine", "--data", data); err != nil {
		t.Fatalf("feeds add: %v\n%s", err, out)
	}
	out, _, err := run(t, "feeds", "import", list, "--data", data)
	if want := fmt.Sprintf("%d feeds subscribed, 1 already subscribed, 1 repeated in the file, 0 skipped\n", n-1); err != nil || out != want {
		t.Fatalf("feeds import: %v\n%s\nwant %q", err, out, want)
	}
	out, _, err = run(t, "feeds", "list", "--data", data)
	if err != nil || strings.Count(out, "\n") != n+1 || !strings.Contains(out, " f2499 ") || !strings.Contains(out, " Mine ") {
		t.Errorf("feeds list: %v, %d lines; want the %d feeds, f2499 named, h7 still Mine", err, strings.Count(out, "\n"), n)
	}
	out, _, err = run(t, "feeds", "import", list, "--data", data)
	if want := fmt.Sprintf("0 feeds subscribed, %d already subscribed, 1 repeated in the file, 0 skipped\n", n); err != nil || out != want {
		t.Errorf("feeds import again: %v\n%s\nwant %q", err, out, want)
	}
}

// TestFeedsExportThenImportKeepsTheSettings: the weight and intervals of
// each feed survive an export and an import into another repository; a
// flag given to the import overrides the list's.
func TestFeedsExportThenImportKeepsTheSettings(t *testing.T) {
	data := t.TempDir()
	for _, args := range [][]string{
		{"http://a.test/feed", "--weight", "2.5", "--min-interval", "30m", "--max-interval", "48h"},
		{"http://b.test/feed"},
	} {
		if out, _, err := run(t, append(append([]string{"feeds", "add"}, args...), "--data", data)...); err != nil {
			t.Fatalf("feeds add: %v\n%s", err, out)
		}
	}
	exported, _, err := run(t, "feeds", "export", "--data", data)
	if err != nil {
		t.Fatalf("feeds export: %v\n%s", err, exported)
	}
	file := filepath.Join(t.TempDir(), "export.opml")
	if err := os.WriteFile(file, []byte(exported), 0o644); err != nil {
		t.Fatal(err)
	}
	other := t.TempDir()
	if out, _, err := run(t, "feeds", "import", file, "--data", other); err != nil || !strings.Contains(out, "2 feeds subscribed") {
		t.Fatalf("feeds import of the export: %v\n%s", err, out)
	}
	again, _, err := run(t, "feeds", "export", "--data", other)
	if err != nil || again != exported {
		t.Errorf("export after export and import: %v\n%s\nwant the first export\n%s", err, again, exported)
	}
	third := t.TempDir()
	if out, _, err := run(t, "feeds", "import", file, "--weight", "4", "--data", third); err != nil {
		t.Fatalf("feeds import --weight 4: %v\n%s", err, out)
	}
	out, _, err := run(t, "feeds", "export", "--data", third)
	if err != nil || strings.Count(out, `deltaq:weight="4"`) != 2 || !strings.Contains(out, `deltaq:minInterval="30m0s" deltaq:maxInterval="48h0m0s"`) {
		t.Errorf("export after import --weight 4: %v\n%s\nwant weight 4 for both, the intervals of the list", err, out)
	}
}

// TestFeedsImportKeepsNamesAndFolders: import keeps each new feed's
// outline text as its name and the outlines around it as its folders,
// which list shows and export writes back as nested outlines; a feed
// subscribed before keeps having no name; the export imported into an
// empty repository exports the same again.
func TestFeedsImportKeepsNamesAndFolders(t *testing.T) {
	list := filepath.Join(t.TempDir(), "list.opml")
	opml := `<?xml version="1.0"?><opml version="2.0"><body>
<outline text="Tech"><outline text="Go">
 <outline text="The Go blog" xmlUrl="http://go.test/feed"/>
</outline></outline>
<outline text="Mine" xmlUrl="http://pre.test/feed"/>
</body></opml>`
	if err := os.WriteFile(list, []byte(opml), 0o644); err != nil {
		t.Fatal(err)
	}
	data := t.TempDir()
	if out, _, err := run(t, "feeds", "add", "http://pre.test/feed", "--data", data); err != nil {
		t.Fatalf("feeds add: %v\n%s", err, out)
	}
	if out, _, err := run(t, "feeds", "import", list, "--data", data); err != nil || !strings.Contains(out, "1 feeds subscribed, 1 already subscribed") {
		t.Fatalf("feeds import: %v\n%s", err, out)
	}
	out, _, err := run(t, "feeds", "list", "--data", data)
	if err != nil || !strings.Contains(out, "The Go blog  Tech/Go\n") || strings.Contains(out, "Mine") {
		t.Errorf("feeds list: %v\n%s\nwant the Go blog named and in Tech/Go, the feed subscribed before unnamed", err, out)
	}
	exported, _, err := run(t, "feeds", "export", "--data", data)
	if err != nil {
		t.Fatalf("feeds export: %v\n%s", err, exported)
	}
	for _, want := range []string{
		`<outline text="Tech" title="Tech">`,
		`<outline text="Go" title="Go">`,
		`<outline type="rss" text="The Go blog" title="The Go blog" xmlUrl="http://go.test/feed" deltaq:weight=`,
		`<outline type="rss" text="http://pre.test/feed" title="http://pre.test/feed" xmlUrl="http://pre.test/feed" deltaq:name="" deltaq:weight=`,
	} {
		if !strings.Contains(exported, want) {
			t.Errorf("feeds export:\n%s\nwant %s", exported, want)
		}
	}
	file := filepath.Join(t.TempDir(), "export.opml")
	if err := os.WriteFile(file, []byte(exported), 0o644); err != nil {
		t.Fatal(err)
	}
	other := t.TempDir()
	if out, _, err := run(t, "feeds", "import", file, "--data", other); err != nil || !strings.Contains(out, "2 feeds subscribed") {
		t.Fatalf("feeds import of the export: %v\n%s", err, out)
	}
	if again, _, err := run(t, "feeds", "export", "--data", other); err != nil || again != exported {
		t.Errorf("export after export and import: %v\n%s\nwant the first export\n%s", err, again, exported)
	}
}

// redirectSite serves an Atom feed of n entries at each path of feeds
// and answers each path of moves with its status and Location; it counts
// the requests of each path.
type redirectSite struct {
	*httptest.Server
	mu    sync.Mutex
	feeds map[string]int
	moves map[string]string // path → "status location"
	asked map[string]int
}

func newRedirectSite(t *testing.T) *redirectSite {
	s := &redirectSite{feeds: map[string]int{}, moves: map[string]string{}, asked: map[string]int{}}
	at := time.Now().Add(-time.Hour).UTC().Format(time.RFC3339)
	s.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		s.mu.Lock()
		defer s.mu.Unlock()
		s.asked[r.URL.Path]++
		if mv, ok := s.moves[r.URL.Path]; ok {
			status, loc, _ := strings.Cut(mv, " ")
			code, _ := strconv.Atoi(status)
			w.Header().Set("Location", loc)
			w.WriteHeader(code)
			return
		}
		n, ok := s.feeds[r.URL.Path]
		if !ok {
			http.NotFound(w, r)
			return
		}
		w.Header().Set("Content-Type", "application/atom+xml")
		fmt.Fprintf(w, `<?xml version="1.0"?><feed xmlns="http://www.w3.org/2005/Atom"><title>f</title><id>urn:f</id><updated>%s</updated>`, at)
		for i := range n {
			fmt.Fprintf(w, `<entry><id>urn:%d</id><title>t%d</title><updated>%s</updated></entry>`, i, i, at)
		}
		fmt.Fprint(w, `</feed>`)
	}))
	t.Cleanup(s.Close)
	return s
}

func (s *redirectSite) set(path string, n int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.feeds[path] = n
}

func (s *redirectSite) move(path string, status int, to string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.moves[path] = fmt.Sprintf("%d %s", status, to)
}

func (s *redirectSite) requests(path string) int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.asked[path]
}

// feedsStep runs deltaq with --data data and wants every one of want in
// its output, and an error only if failing.
func feedsStep(t *testing.T, data string, failing bool, want []string, args ...string) string {
	t.Helper()
	out, _, err := run(t, append(args, "--data", data)...)
	if (err != nil) != failing {
		t.Fatalf("%s: %v (want failing %v)\n%s", strings.Join(args, " "), err, failing, out)
	}
	for _, w := range want {
		if !strings.Contains(out, w) && (err == nil || !strings.Contains(err.Error(), w)) {
			t.Fatalf("%s: %v\n%s\nwant %q", strings.Join(args, " "), err, out, w)
		}
	}
	return out
}

// A feed that answers 301 is moved to the target: the poll says so and
// reads the target at once, the list and explain show the URL it had,
// and the next poll fetches the target alone, its new items flowing in.
func TestFeedsPollFollowsAPermanentRedirect(t *testing.T) {
	site := newRedirectSite(t)
	old, moved := site.URL+"/old.atom", site.URL+"/new.atom"
	site.set("/old.atom", 2)
	data := t.TempDir()
	feedsStep(t, data, false, []string{"0 postings known"}, "feeds", "add", old)
	feedsStep(t, data, false, []string{"1 of 1 feeds fetched, 2 new items"}, "feeds", "poll", "--allow-private")
	site.move("/old.atom", 301, "/new.atom")
	site.set("/new.atom", 3)
	feedsStep(t, data, false, []string{"1 of 1 feeds fetched, 1 new items", "moved: " + old + " → " + moved + " (HTTP 301)"}, "feeds", "poll", "--allow-private")
	out := feedsStep(t, data, false, []string{moved}, "feeds", "list")
	if row := strings.Fields(strings.Split(strings.TrimSpace(out), "\n")[1]); len(row) < 8 || row[1] != moved || row[len(row)-1] != old || row[5] != "3" {
		t.Errorf("feeds list after the move:\n%s\nwant the feed at %s with its 3 postings, moved from %s", out, moved, old)
	}
	feedsStep(t, data, false, []string{moved, "moved from " + old}, "feeds", "explain", moved)
	feedsStep(t, data, false, []string{moved, "moved from " + old}, "feeds", "explain", old)
	oldAsked := site.requests("/old.atom")
	site.set("/new.atom", 5)
	feedsStep(t, data, false, []string{"1 of 1 feeds fetched, 2 new items"}, "feeds", "poll", "--allow-private")
	if n := site.requests("/old.atom"); n != oldAsked {
		t.Errorf("the poll after the move asked the old URL %d more times, want none", n-oldAsked)
	}
	feedsStep(t, data, false, []string{feeds.IDOf(old) + " " + moved, "5 postings known"}, "feeds", "add", moved)
	if out := feedsStep(t, data, false, nil, "feeds", "list"); strings.Count(out, "\n") != 2 {
		t.Errorf("feeds list after adding the new URL again:\n%s\nwant the one feed", out)
	}
}

// A redirect loop (a → b → a) moves the feed once and no further: each
// poll fails naming the loop, and the feed stays at b.
func TestFeedsPollStopsAtARedirectLoop(t *testing.T) {
	site := newRedirectSite(t)
	a, b := site.URL+"/a", site.URL+"/b"
	site.move("/a", 301, "/b")
	site.move("/b", 308, "/a")
	data := t.TempDir()
	feedsStep(t, data, false, nil, "feeds", "add", a)
	loop := "redirect loop (" + a + " → " + b + " → " + a + ")"
	for range 3 {
		feedsStep(t, data, true, []string{loop}, "feeds", "poll", "--allow-private")
		out := feedsStep(t, data, false, []string{loop}, "feeds", "list")
		if row := strings.Fields(strings.Split(strings.TrimSpace(out), "\n")[1]); row[1] != b {
			t.Fatalf("feeds list after a poll of the loop:\n%s\nwant the feed at %s", out, b)
		}
	}
}

// A redirect to the URL of another subscription is not followed, and
// the error names that feed.
func TestFeedsPollRefusesARedirectToAnotherSubscription(t *testing.T) {
	site := newRedirectSite(t)
	a, b := site.URL+"/a", site.URL+"/b"
	site.set("/a", 1)
	site.set("/b", 1)
	data := t.TempDir()
	feedsStep(t, data, false, nil, "feeds", "add", a)
	feedsStep(t, data, false, nil, "feeds", "add", b)
	site.move("/a", 301, "/b")
	want := b + " is the URL of feed " + feeds.IDOf(b) + " already"
	feedsStep(t, data, true, []string{"failed: " + a, want}, "feeds", "poll", "--allow-private")
	out := feedsStep(t, data, false, nil, "feeds", "list")
	if strings.Count(out, a+" ") != 1 || strings.Count(out, b+" ") != 2 {
		t.Errorf("feeds list after the refused move:\n%s\nwant %s and %s each subscribed at its own URL", out, a, b)
	}
}

// A feed that answers a temporary redirect stays at its URL and reads
// the target in every poll, though after the first the crawler knows the
// target and does not queue it again itself.
func TestFeedsPollReadsTheTargetOfATemporaryRedirect(t *testing.T) {
	site := newRedirectSite(t)
	a := site.URL + "/a"
	site.move("/a", 302, "/b")
	site.set("/b", 2)
	data := t.TempDir()
	feedsStep(t, data, false, nil, "feeds", "add", a)
	feedsStep(t, data, false, []string{"1 of 1 feeds fetched, 2 new items"}, "feeds", "poll", "--allow-private")
	site.set("/b", 3)
	out := feedsStep(t, data, false, []string{"1 of 1 feeds fetched, 1 new items"}, "feeds", "poll", "--allow-private")
	if strings.Contains(out, "moved:") {
		t.Errorf("a temporary redirect moved the feed:\n%s", out)
	}
	if out := feedsStep(t, data, false, nil, "feeds", "list"); strings.Fields(strings.Split(out, "\n")[1])[1] != a {
		t.Errorf("feeds list after temporary redirects:\n%s\nwant the feed at %s", out, a)
	}
}

// TestFeedsAddNamesAndRefilesAFeed: `feeds add --name --folder` names and
// files a new feed, renames or refiles one already subscribed when given
// again (keeping what is not given), and --folder "" takes it out of its
// folders.
func TestFeedsAddNamesAndRefilesAFeed(t *testing.T) {
	data := t.TempDir()
	add := func(args ...string) string {
		t.Helper()
		out, _, err := run(t, append([]string{"feeds", "add", "http://go.test/feed", "--data", data}, args...)...)
		if err != nil {
			t.Fatalf("feeds add %v: %v\n%s", args, err, out)
		}
		return out
	}
	list := func() string {
		t.Helper()
		out, _, err := run(t, "feeds", "list", "--data", data)
		if err != nil {
			t.Fatalf("feeds list: %v\n%s", err, out)
		}
		return out
	}
	if out := add("--name", "The Go blog", "--folder", "Tech/Go"); !strings.Contains(out, `"The Go blog" in "/Tech/Go"`) {
		t.Errorf("feeds add --name --folder said:\n%s", out)
	}
	if out := list(); !strings.Contains(out, "The Go blog  Tech/Go\n") {
		t.Errorf("feeds list after add:\n%s\nwant the feed named and in Tech/Go", out)
	}
	add("--weight", "2") // neither given: both kept
	if out := list(); !strings.Contains(out, "The Go blog  Tech/Go\n") {
		t.Errorf("feeds list after add --weight:\n%s\nwant the name and folders kept", out)
	}
	add("--name", "Go news")
	if out := list(); !strings.Contains(out, "Go news  Tech/Go\n") {
		t.Errorf("feeds list after add --name:\n%s\nwant it renamed, its folders kept", out)
	}
	add("--folder", "")
	if out := list(); !strings.Contains(out, "Go news  \n") || strings.Contains(out, "Tech") {
		t.Errorf("feeds list after add --folder \"\":\n%s\nwant it in no folder", out)
	}
}

// TestAnInterruptedFeedsPollFails: a poll stopped by a signal reads and
// keeps the feeds it fetched, and fails (exit 130 from main) as an
// interrupted crawl does, where it used to exit 0 with "2 of 5 feeds
// fetched", as if the others had nothing to fetch.
func TestAnInterruptedFeedsPollFails(t *testing.T) {
	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	var served atomic.Int64
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/robots.txt" {
			http.NotFound(w, r)
			return
		}
		if served.Add(1) == 2 {
			cancel() // as Ctrl-C would, with the second feed asked for
		}
		w.Header().Set("Content-Type", "application/atom+xml")
		fmt.Fprintf(w, `<?xml version="1.0"?><feed xmlns="http://www.w3.org/2005/Atom"><title>f</title><id>%[1]s</id><updated>2025-01-01T00:00:00Z</updated>`+
			`<entry><title>one</title><id>%[1]s/1</id><link href="%[1]s/1"/><updated>2025-01-01T00:00:00Z</updated></entry></feed>`, r.URL.Path)
	}))
	defer srv.Close()
	data := t.TempDir()
	for i := range 5 {
		if _, _, err := run(t, "feeds", "add", fmt.Sprintf("%s/f%d.atom", srv.URL, i), "--data", data); err != nil {
			t.Fatal(err)
		}
	}
	var stdout, stderr strings.Builder
	root := newRootCmd(&stdout, &stderr)
	root.SetArgs([]string{"feeds", "poll", "--data", data, "--allow-private", "--politeness-overrides",
		"[{host: " + strings.TrimPrefix(srv.URL, "http://") + ", min_delay: 0s, per_host: 1}]"})
	err := root.ExecuteContext(ctx)
	if !errors.Is(err, context.Canceled) || !strings.Contains(err.Error(), "feeds poll interrupted") {
		t.Fatalf("interrupted feeds poll: err = %v, want the interruption\n%s%s", err, stdout.String(), stderr.String())
	}
	if !strings.Contains(stdout.String(), "of 5 feeds fetched") || strings.Contains(stdout.String(), "5 of 5 feeds fetched") {
		t.Errorf("interrupted feeds poll printed:\n%s\nwant the feeds fetched before the interruption read", stdout.String())
	}
}
