package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

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
			if out, _, err := run(t, "feeds", "list", "--data", data); err != nil || strings.Count(out, "\n") != 1 {
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
		"  skipped: line 11 \"ftp://d.test/feed\": not an http or https URL\n",
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
