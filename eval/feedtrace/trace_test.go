package feedtrace

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/deltaq/deltaq/internal/datasets"
)

func TestLoadReadsTheRealTrace(t *testing.T) {
	tr, err := Load(t.Context(), datasets.Path(t, "feeds"))
	if err != nil {
		t.Fatal(err)
	}
	if len(tr.Feeds) != 77 || tr.Postings() != 47712 {
		t.Fatalf("%d feeds, %d postings; the README says 77 and 47,712", len(tr.Feeds), tr.Postings())
	}
	from := time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC)
	to := from.AddDate(1, 0, 0)
	for _, f := range tr.Feeds {
		if f.AtomURL == "" || len(f.Postings) == 0 {
			t.Fatalf("feed %s: url %q, %d postings", f.Name, f.AtomURL, len(f.Postings))
		}
		for i, p := range f.Postings {
			if p.Before(from) || !p.Before(to) || (i > 0 && p.Before(f.Postings[i-1])) {
				t.Fatalf("feed %s: posting %d at %s is outside 2025 or out of order", f.Name, i, p)
			}
		}
	}
}

// TestReadPostingsRefusesADamagedLine: a time or an offset no posting
// can have is refused, naming the line, where it would have moved the
// evaluation's year or been kept.
func TestReadPostingsRefusesADamagedLine(t *testing.T) {
	for _, tc := range []struct{ line, want string }{
		{"a/b\t0\t60", "line 2: unix_time 0: must be from 2005-01-01 to before 2100-01-01"},
		{"a/b\t-9223372036854775808\t60", "line 2: unix_time -9223372036854775808: must be from"},
		{"a/b\t99999999999\t60", "line 2: unix_time 99999999999: must be from"},
		{"a/b\tsoon\t60", `line 2: unix_time "soon"`},
		{"a/b\t1736781369\t9999", `line 2: utc_offset_minutes "9999": must be whole minutes from -720 to 840`},
		{"a/b\t1736781369\t+1h", `line 2: utc_offset_minutes "+1h"`},
		{"c/d\t1736781369\t60", `line 2: feed "c/d" is not in feeds.tsv`},
	} {
		feeds := map[string]*Feed{"a/b": {Name: "a/b"}}
		in := "feed\tunix_time\tutc_offset_minutes\n" + tc.line + "\n"
		if err := readPostings(t.Context(), strings.NewReader(in), feeds); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%q: %v, want %q", tc.line, err, tc.want)
		}
	}
	feeds := map[string]*Feed{"a/b": {Name: "a/b"}}
	if err := readPostings(t.Context(), strings.NewReader("a/b\t1736781369\t-300\na/b\t1737833220\n"), feeds); err != nil || len(feeds["a/b"].Postings) != 2 {
		t.Errorf("two good lines, one without an offset: %v, %d postings", err, len(feeds["a/b"].Postings))
	}
}

// TestLoadRefusesAFeedListedTwice: a feed named on two lines of
// feeds.tsv would be evaluated twice, one copy without postings.
func TestLoadRefusesAFeedListedTwice(t *testing.T) {
	dir := t.TempDir()
	src := datasets.Path(t, "feeds")
	meta, err := os.ReadFile(filepath.Join(src, "feeds.tsv"))
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.SplitAfter(string(meta), "\n")
	meta = append(meta, lines[1]...)
	if err := os.WriteFile(filepath.Join(dir, "feeds.tsv"), meta, 0o644); err != nil {
		t.Fatal(err)
	}
	postings, err := os.ReadFile(filepath.Join(src, "commit-feeds.tsv.zst"))
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "commit-feeds.tsv.zst"), postings, 0o644); err != nil {
		t.Fatal(err)
	}
	want := fmt.Sprintf(`feeds.tsv line %d: feed "BurntSushi/ripgrep" again (first on line 2)`, len(lines))
	if _, err := Load(t.Context(), dir); err == nil || !strings.Contains(err.Error(), want) {
		t.Errorf("Load = %v, want %q", err, want)
	}
}

// TestLoadSaysAStreamCutShortIsCutShort: a commit-feeds.tsv.zst cut in
// two is refused for the stream's end, not for the value in the half
// line the stream broke off in.
func TestLoadSaysAStreamCutShortIsCutShort(t *testing.T) {
	dir := t.TempDir()
	src := datasets.Path(t, "feeds")
	for _, name := range []string{"feeds.tsv", "commit-feeds.tsv.zst"} {
		b, err := os.ReadFile(filepath.Join(src, name))
		if err != nil {
			t.Fatal(err)
		}
		if name == "commit-feeds.tsv.zst" {
			b = b[:len(b)/2]
		}
		if err := os.WriteFile(filepath.Join(dir, name), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	_, err := Load(t.Context(), dir)
	if err == nil || !strings.Contains(err.Error(), "commit-feeds.tsv.zst breaks off by line") || strings.Contains(err.Error(), "unix_time") {
		t.Errorf("Load of a stream cut in two: %v, want it to say the stream breaks off", err)
	}
}
