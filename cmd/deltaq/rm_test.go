package main

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/deltaq/deltaq/eval/archive/archivetest"
	"github.com/deltaq/deltaq/index"
	"github.com/deltaq/deltaq/internal/urlnorm"
	"github.com/deltaq/deltaq/internal/warc"
	"github.com/deltaq/deltaq/repo"
)

// searchData opens the repository and index under data and returns the
// URLs that match query.
func searchData(t *testing.T, data, query string) []string {
	t.Helper()
	cfg, db := openData(t, data)
	defer db.Close()
	ix, err := index.Open(indexPath(data), cfg.Index, db, index.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer ix.Close()
	q, err := index.ParseQuery(query, cfg.Index.Limits())
	if err != nil {
		t.Fatal(err)
	}
	res, err := ix.Search(t.Context(), q, 0, 10)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, h := range res.Hits {
		out = append(out, h.URL)
	}
	return out
}

func TestRmRemovesFromRepositoryAndIndexAndABackupKeepsWhatWasThere(t *testing.T) {
	dir := t.TempDir()
	data, fx := crawlFruit(t, dir)
	if _, _, err := run(t, "index", "rebuild", "--data", data); err != nil {
		t.Fatal(err)
	}
	if got := searchData(t, data, "cherry"); len(got) != 1 || got[0] != "http://fruit.test/c" {
		t.Fatalf("before rm, cherry finds %v", got)
	}

	checkExports(t, data, fx)

	// A control character is refused, not dropped: "/\x01" is not "/".
	if _, _, err := run(t, "rm", "--data", data, "http://fruit.test/\x01"); err == nil || !strings.Contains(err.Error(), "has 0x01 at byte 18") {
		t.Errorf("rm of a URL with a control character: %v, want it refused naming the byte", err)
	}
	if _, _, err := run(t, "page", "explain", "--data", data, "http://fruit.test/\x01"); err == nil || !strings.Contains(err.Error(), "has 0x01 at byte 18") {
		t.Errorf("page explain of a URL with a control character: %v, want it refused naming the byte", err)
	}
	out, _, err := run(t, "rm", "--data", data, "http://fruit.test/c")
	if err != nil || out != "removed 1 page and 0 queue entries\nindex updated: 1 document removed, 2 left\n" {
		t.Fatalf("rm: %v\n%s", err, out)
	}
	if got := searchData(t, data, "cherry"); len(got) != 0 {
		t.Errorf("after rm, cherry still finds %v", got)
	}
	if got := searchData(t, data, "apple"); len(got) != 2 {
		t.Errorf("after rm of /c, apple finds %v, want / and /a", got)
	}
	_, db := openData(t, data)
	if _, err := db.Page("http://fruit.test/c"); !errors.Is(err, repo.ErrNotFound) {
		t.Errorf("page /c still in the repository: %v", err)
	}
	if vs, err := db.Versions(t.Context(), "http://fruit.test/c", false); err != nil || len(vs) != 0 {
		t.Errorf("versions of /c left: %d, %v", len(vs), err)
	}
	if in, err := db.InLinks(t.Context(), "http://fruit.test/a"); err != nil || len(in) != 1 {
		t.Errorf("in-links of /a: %v, %v (want the home page's only)", in, err)
	}
	db.Close()

	// A backup taken now keeps / and /a through the removal of the host.
	backup := filepath.Join(dir, "backup")
	if out, _, err := run(t, "backup", "--data", data, backup); err != nil {
		t.Fatalf("backup: %v\n%s", err, out)
	}
	if _, _, err := run(t, "backup", "--data", data, backup); err == nil || !strings.Contains(err.Error(), "already exists") {
		t.Errorf("a backup over an existing directory: %v", err)
	}

	out, _, err = run(t, "rm", "--data", data, "--host", "fruit.test")
	if err != nil || !strings.Contains(out, "removed 2 pages") {
		t.Fatalf("rm --host: %v\n%s", err, out)
	}
	if got := searchData(t, data, "apple"); len(got) != 0 {
		t.Errorf("after rm --host, apple still finds %v", got)
	}
	out, _, err = run(t, "hosts", "--data", data)
	if err != nil || !strings.Contains(out, "0 hosts") {
		t.Errorf("hosts after rm --host: %v\n%s", err, out)
	}

	// Restored (used as the data directory), the backup searches as the
	// data did when it was taken, and the repository has its pages.
	if got := searchData(t, backup, "apple"); len(got) != 2 {
		t.Errorf("the backup's index finds %v for apple, want / and /a", got)
	}
	out, _, err = run(t, "hosts", "--data", backup)
	if err != nil || !strings.Contains(out, "\n1 host\n") || !strings.Contains(out, "fruit.test") {
		t.Errorf("hosts of the backup: %v\n%s", err, out)
	}
}

// checkExports exports data as WARC and as JSON lines and checks both
// against the fixture it was crawled from: a well-formed WARC with one
// response per page holding the body served, one JSON record per page.
func checkExports(t *testing.T, data string, fx archivetest.Fixture) {
	t.Helper()
	dir := t.TempDir()
	warcFile, jsonl := filepath.Join(dir, "pages.warc"), filepath.Join(dir, "pages.jsonl")
	if out, _, err := run(t, "export", "--data", data, "--out", warcFile); err != nil || !strings.Contains(out, "exported 3 pages, 3 versions as warc") {
		t.Fatalf("export warc: %v\n%s", err, out)
	}
	f, err := os.Open(warcFile)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	recs, err := warc.Read(f)
	if err != nil {
		t.Fatalf("the exported WARC is malformed: %v", err)
	}
	if len(recs) != 1+len(fx.Intervals) || recs[0].Header["WARC-Type"] != "warcinfo" {
		t.Fatalf("%d records, want a warcinfo and %d responses", len(recs), len(fx.Intervals))
	}
	want := map[string]string{}
	for _, iv := range fx.Intervals {
		want["http://fruit.test"+iv.URL] = iv.Body
	}
	for _, rec := range recs[1:] {
		u := rec.Header["WARC-Target-URI"]
		resp, err := http.ReadResponse(bufio.NewReader(bytes.NewReader(rec.Block)), nil)
		if err != nil {
			t.Fatalf("%s: block is not an HTTP response: %v", u, err)
		}
		body, _ := io.ReadAll(resp.Body)
		if resp.StatusCode != 200 || string(body) != want[u] {
			t.Errorf("%s: status %d, body %q, want %q", u, resp.StatusCode, body, want[u])
		}
		delete(want, u)
	}
	if len(want) != 0 {
		t.Errorf("pages missing from the WARC: %v", want)
	}

	if out, _, err := run(t, "export", "--data", data, "--out", jsonl, "--format", "jsonl"); err != nil {
		t.Fatalf("export jsonl: %v\n%s", err, out)
	}
	b, err := os.ReadFile(jsonl)
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(string(b)), "\n")
	if len(lines) != 3 {
		t.Fatalf("%d JSON lines, want 3:\n%s", len(lines), b)
	}
	for _, l := range lines {
		var rec struct {
			URL      string `json:"url"`
			State    string `json:"state"`
			Versions []struct {
				FetchedAt time.Time `json:"fetched_at"`
			} `json:"versions"`
		}
		if err := json.Unmarshal([]byte(l), &rec); err != nil || rec.State != "live" || len(rec.Versions) != 1 || rec.Versions[0].FetchedAt.IsZero() || !strings.HasPrefix(rec.URL, "http://fruit.test/") {
			t.Errorf("record %s: %+v, %v", l, rec, err)
		}
	}

	// Named .gz, both are compressed, to the same records.
	for _, c := range []struct{ file, format string }{{warcFile + ".gz", "warc"}, {jsonl + ".gz", "jsonl"}} {
		if out, _, err := run(t, "export", "--data", data, "--out", c.file, "--format", c.format); err != nil {
			t.Fatalf("export %s: %v\n%s", c.file, err, out)
		}
		f, err := os.Open(c.file)
		if err != nil {
			t.Fatal(err)
		}
		defer f.Close()
		zr, err := gzip.NewReader(f)
		if err != nil {
			t.Fatalf("%s is not gzip: %v", c.file, err)
		}
		got, err := io.ReadAll(zr)
		if err != nil {
			t.Fatal(err)
		}
		want, err := os.ReadFile(strings.TrimSuffix(c.file, ".gz"))
		if err != nil {
			t.Fatal(err)
		}
		if c.format == "warc" { // the warcinfo record's date is the export's
			got, want = bytes.SplitN(got, []byte("WARC-Type: response"), 2)[1], bytes.SplitN(want, []byte("WARC-Type: response"), 2)[1]
		}
		if !bytes.Equal(got, want) {
			t.Errorf("%s decompresses to other records than %s", c.file, strings.TrimSuffix(c.file, ".gz"))
		}
	}
}

// TestRmSaysWhatIsWrongWithItsArguments: rm given nothing to remove used to
// answer "not both", as if given both URLs and --host.
func TestRmSaysWhatIsWrongWithItsArguments(t *testing.T) {
	data := t.TempDir()
	for _, c := range []struct {
		args       []string
		want, lack string
	}{
		{[]string{}, "nothing to remove: give the URLs of pages or --host HOST", "not both"},
		{[]string{"http://a.test/", "--host", "a.test"}, "give URLs to remove or --host HOST, not both", "nothing"},
		{[]string{"--host", ""}, "--host: empty", "not both"},
	} {
		_, _, err := run(t, append([]string{"rm", "--data", data}, c.args...)...)
		if err == nil || !strings.Contains(err.Error(), c.want) || strings.Contains(err.Error(), c.lack) {
			t.Errorf("rm %q: error %v, want %q", c.args, err, c.want)
		}
	}
}

// TestRmQuotesAnOverLongURLCut: a 70,000-byte URL given to rm was
// repeated whole in the error (72 KB on stderr), which ended "urlnorm: too
// long" without the limit. It is now quoted by its first 100 characters,
// and the error names its length and the limit.
func TestRmQuotesAnOverLongURLCut(t *testing.T) {
	long := "http://fruit.test/" + strings.Repeat("a", 70000)
	_, stderr, err := run(t, "rm", "--data", t.TempDir(), "http://fruit.test/a", long)
	want := `URL "` + long[:100] + `"…: urlnorm: too long: 70018 bytes, more than the 2048 allowed`
	if err == nil || err.Error() != want || !errors.Is(err, urlnorm.ErrTooLong) || len(stderr) > 300 {
		t.Errorf("rm of a 70,000-byte URL: error %v, %d bytes on stderr; want %q", err, len(stderr), want)
	}
}

// TestRmAndQueueRefuseAHostTheRepositoryDoesNotHold: rm --host of a URL, a
// pattern, a default port or an unknown host used to print "removed 0
// pages" and succeed; queue --host of an unknown host printed "0 of 0".
func TestRmAndQueueRefuseAHostTheRepositoryDoesNotHold(t *testing.T) {
	data, _ := crawlFruit(t, t.TempDir())
	for _, c := range []struct{ host, want string }{
		{"http://fruit.test/", `--host "http://fruit.test/": a URL, not a host[:port]: its host is fruit.test`},
		{"*", `--host "*": not a host[:port]`},
		{"FRUIT.test", `--host "FRUIT.test": not a host[:port] as the repository keys hosts: give fruit.test`},
		{"fruit.test:80", "--host fruit.test:80: unknown: the repository has no page, queue entry or record of it; did you mean fruit.test?"},
		{"nosuch.test", "--host nosuch.test: unknown"},
	} {
		out, _, err := run(t, "rm", "--data", data, "--host", c.host)
		if err == nil || !strings.Contains(err.Error(), c.want) || strings.Contains(out, "removed") {
			t.Errorf("rm --host %s: error %v, output %q; want %q", c.host, err, out, c.want)
		}
		if c.host == "*" || c.host == "http://fruit.test/" {
			if _, _, err := run(t, "queue", "--data", data, "--host", c.host); err == nil || !strings.Contains(err.Error(), c.want) {
				t.Errorf("queue --host %s: error %v, want %q", c.host, err, c.want)
			}
		}
	}
	if _, _, err := run(t, "queue", "--data", data, "--host", "fruit.test:8080"); err == nil || !strings.HasSuffix(err.Error(), "; did you mean fruit.test?") {
		t.Errorf("queue --host fruit.test:8080: %v; want fruit.test suggested", err)
	}
	out, _, err := run(t, "queue", "--data", data, "--host", "nosuch.test")
	if err == nil || err.Error() != "--host nosuch.test: unknown: the repository has no page, queue entry or record of it" || out != "" {
		t.Errorf("queue --host nosuch.test: %v\n%s; want it refused as rm refuses it", err, out)
	}
	if got := fetchedPages(t, data); len(got) != 3 {
		t.Errorf("after the refusals %d pages are live, want 3", len(got))
	}
	out, _, err = run(t, "queue", "--data", data, "--host", "fruit.test")
	if err != nil || !strings.Contains(out, "queued URLs shown") {
		t.Errorf("queue --host fruit.test: %v\n%s", err, out)
	}
}

// TestRmCountsTheDocumentsItTookOutOfTheIndex: rm printed the deletes it
// applied to the index, one per page removed, whether or not the page had
// a document: removing pages never fetched "removed" documents.
func TestRmCountsTheDocumentsItTookOutOfTheIndex(t *testing.T) {
	data, _ := crawlFruit(t, t.TempDir())
	_, db := openData(t, data)
	now := time.Now()
	b := db.NewBatch(t.Context())
	for _, u := range []string{"http://fruit.test/q1", "http://fruit.test/q2", "http://fruit.test/q3"} {
		b.PutPage(&repo.Page{URL: u, State: repo.StateQueued, FirstSeen: now})
	}
	if err := b.Commit(); err != nil {
		t.Fatal(err)
	}
	db.Close()
	if _, _, err := run(t, "index", "rebuild", "--data", data); err != nil {
		t.Fatal(err)
	}
	out, _, err := run(t, "rm", "--data", data, "http://fruit.test/q1")
	if err != nil || out != "removed 1 page and 0 queue entries\nindex updated: 0 documents removed, 3 left\n" {
		t.Errorf("rm of a page never fetched: %v\n%s", err, out)
	}
	out, _, err = run(t, "rm", "--data", data, "http://fruit.test/q2", "http://fruit.test/q3", "http://fruit.test/nosuch")
	if err == nil || err.Error() != "not in the repository: 1 of the 3 URLs given (named above); the other 2 were removed" ||
		out != "removed 2 pages and 0 queue entries\nindex updated: 0 documents removed, 3 left\n" {
		t.Errorf("rm of two pages never fetched and a URL not held: error %v, output %q", err, out)
	}
	out, _, err = run(t, "rm", "--data", data, "--host", "fruit.test")
	if err != nil || !strings.Contains(out, "removed 3 pages and") || !strings.Contains(out, "index updated: 3 documents removed, 0 left") {
		t.Errorf("rm --host: %v\n%s", err, out)
	}
}

// TestRmChangesNothingWhenItCannotUpdateTheIndex: rm used to remove the
// pages, then fail on an index it could not open, and exit with an error
// after the change.
func TestRmChangesNothingWhenItCannotUpdateTheIndex(t *testing.T) {
	data, _ := crawlFruit(t, t.TempDir())
	t.Setenv("DELTAQ_INDEX_SCORING", "tf-idf")
	if _, _, err := run(t, "index", "rebuild", "--data", data); err != nil {
		t.Fatal(err)
	}
	t.Setenv("DELTAQ_INDEX_SCORING", "bm25")
	for _, args := range [][]string{{"http://fruit.test/c"}, {"--host", "fruit.test"}} {
		out, _, err := run(t, append([]string{"rm", "--data", data}, args...)...)
		if err == nil || !strings.Contains(err.Error(), `built with scoring model "tf-idf"`) || strings.Contains(out, "removed") {
			t.Errorf("rm %q over an index of another scoring: error %v, output %q", args, err, out)
		}
	}
	if got := fetchedPages(t, data); len(got) != 3 {
		t.Errorf("after the failed rm %d pages are live, want 3: %v", len(got), got)
	}
}

// TestRmNamesEachURLItDoesNotHoldAndTheNearOneItDoes: rm given URLs the
// repository does not hold (a trailing slash, the other scheme) printed
// "removed 0 pages" and succeeded, so a mistyped URL went unnoticed. Now
// each is named with the held URL it is near, which is left in place; the
// URLs held are removed, and rm fails so a script notices.
func TestRmNamesEachURLItDoesNotHoldAndTheNearOneItDoes(t *testing.T) {
	data, _ := crawlFruit(t, t.TempDir())
	if _, _, err := run(t, "index", "rebuild", "--data", data); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		url, stderr string
	}{
		{"http://fruit.test/c/", "rm: http://fruit.test/c/: not in the repository; did you mean http://fruit.test/c?\n"},
		{"https://fruit.test/a", "rm: https://fruit.test/a: not in the repository; did you mean http://fruit.test/a?\n"},
		{"https://fruit.test/a/", "rm: https://fruit.test/a/: not in the repository; did you mean http://fruit.test/a?\n"},
		{"https://fruit.test/", "rm: https://fruit.test/: not in the repository; did you mean http://fruit.test/?\n"},
		{"HTTP://Fruit.test/nosuch#top", `rm: "HTTP://Fruit.test/nosuch#top" (as normalized, http://fruit.test/nosuch): not in the repository` + "\n"},
	} {
		out, stderr, err := run(t, "rm", "--data", data, c.url)
		if err == nil || err.Error() != "nothing removed: the URL given is not in the repository" || !strings.Contains(stderr, c.stderr) || out != "" {
			t.Errorf("rm %s: error %v, output %q, stderr %q; want stderr %q", c.url, err, out, stderr, c.stderr)
		}
	}
	out, stderr, err := run(t, "rm", "--data", data, "http://fruit.test/c/", "https://fruit.test/nosuch")
	if err == nil || err.Error() != "nothing removed: none of the 2 URLs given is in the repository" || out != "" ||
		!strings.Contains(stderr, "http://fruit.test/c/: not in the repository; did you mean http://fruit.test/c?") ||
		!strings.Contains(stderr, "https://fruit.test/nosuch: not in the repository\n") {
		t.Errorf("rm of two URLs not held: error %v, output %q, stderr %q", err, out, stderr)
	}
	if got := fetchedPages(t, data); len(got) != 3 {
		t.Fatalf("after rm of URLs not held %d pages are live, want 3: %v", len(got), got)
	}

	// A partly wrong list: the URL held (after normalization) goes, from
	// the index too; the near one suggested stays.
	out, stderr, err = run(t, "rm", "--data", data, "http://fruit.test/c#top", "http://fruit.test/a/", "http://fruit.test/nosuch")
	if err == nil || err.Error() != "not in the repository: 2 of the 3 URLs given (named above); the other was removed" {
		t.Errorf("rm of a partly wrong list: error %v, want it to fail naming 2 of 3", err)
	}
	if !strings.Contains(out, "removed 1 page and") || !strings.Contains(out, "index updated: 1 document removed, 2 left") {
		t.Errorf("rm of a partly wrong list printed %q, want 1 page and 1 document removed", out)
	}
	if want := "rm: http://fruit.test/a/: not in the repository; did you mean http://fruit.test/a?\nrm: http://fruit.test/nosuch: not in the repository\n"; !strings.Contains(stderr, want) {
		t.Errorf("rm of a partly wrong list: stderr %q, want it to hold %q", stderr, want)
	}
	if got := fetchedPages(t, data); len(got) != 2 || !got["http://fruit.test/"] || !got["http://fruit.test/a"] {
		t.Errorf("after rm of /c and two URLs not held, live pages are %v, want / and /a", got)
	}
	if got := searchData(t, data, "cherry"); len(got) != 0 {
		t.Errorf("after rm, cherry still finds %v", got)
	}

	// One page given twice, in two forms, is removed once and rm succeeds.
	out, stderr, err = run(t, "rm", "--data", data, "http://fruit.test/a", "http://FRUIT.test/a#x")
	if err != nil || !strings.Contains(out, "removed 1 page and") || strings.Contains(stderr, "rm:") {
		t.Errorf("rm of /a given twice: error %v, output %q, stderr %q", err, out, stderr)
	}
}

// TestRmCountsInWords: rm printed "removed 1 pages" and "1 documents
// removed"; one of anything is now singular.
func TestRmCountsInWords(t *testing.T) {
	for _, c := range []struct {
		got, want string
	}{
		{countOf(0, "page", "pages"), "0 pages"},
		{countOf(1, "page", "pages"), "1 page"},
		{countOf(2, "page", "pages"), "2 pages"},
		{countOf(1, "queue entry", "queue entries"), "1 queue entry"},
		{countOf(int64(1), "document", "documents"), "1 document"},
		{countOf(uint64(1), "host", "hosts"), "1 host"},
	} {
		if c.got != c.want {
			t.Errorf("got %q, want %q", c.got, c.want)
		}
	}
}

func TestNearURLs(t *testing.T) {
	for _, c := range []struct {
		url  string
		want []string
	}{
		{"http://a.test/", []string{"https://a.test/"}},
		{"http://a.test/c", []string{"http://a.test/c/", "https://a.test/c", "https://a.test/c/"}},
		{"https://a.test:8443/c/?x=1", []string{"https://a.test:8443/c?x=1", "http://a.test:8443/c/?x=1", "http://a.test:8443/c?x=1"}},
	} {
		if got := nearURLs(c.url); !slices.Equal(got, c.want) {
			t.Errorf("nearURLs(%s) = %q, want %q", c.url, got, c.want)
		}
	}
}
