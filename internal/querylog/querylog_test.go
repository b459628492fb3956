package querylog

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/deltaq/deltaq/internal/datasets"
)

func find(qs []Query, text string) (Query, bool) {
	for _, q := range qs {
		if q.Text == text {
			return q, true
		}
	}
	return Query{}, false
}

// The figures are the ones datasets/README.md §4 states for each file.
func TestRealLogsMatchTheREADME(t *testing.T) {
	cases := []struct {
		file     string
		format   Format
		lines    int
		skipped  int
		distinct int
		total    float64
		query    string
		count    float64
	}{
		{"excite-1997-small.tsv", FormatRaw, 4501, 533, 2105, 4501 - 533, "yahoo chat", 16},
		{"excite-1997-small.tsv", FormatRaw, 4501, 533, 2105, 4501 - 533, "maytag", 41},
		// Latin-1: the bytes EF BF BD become three characters, not U+FFFD.
		{"excite-1997-small.tsv", FormatRaw, 4501, 533, 2105, 4501 - 533, "m\u00ef\u00bf\u00bdnchen AND hotel", 2},
		{"tldr-brew-installs.tsv", FormatCounts, 1900, 0, 1900, 97208960, "python", 4515280},
		{"tldr-brew-installs.tsv", FormatCounts, 1900, 0, 1900, 97208960, "aws", 1769999},
		{"trec-mq.tsv", FormatTopics, 60000, 0, 59674, 60000, "pet therapy", 3},
		{"trec-mq.tsv", FormatTopics, 60000, 0, 59674, 60000, "after school program evaluation", 1},
	}
	for _, tc := range cases {
		for _, f := range []Format{tc.format, FormatAuto} {
			t.Run(tc.file+" read as "+f.String()+" has the README's counts and "+tc.query, func(t *testing.T) {
				path := datasets.Path(t, "querylogs", tc.file)
				fh, err := os.Open(path)
				if err != nil {
					t.Fatal(err)
				}
				defer fh.Close()
				l, err := Read(fh, path, f)
				if err != nil {
					t.Fatal(err)
				}
				if l.Format != tc.format {
					t.Errorf("format = %v, want %v", l.Format, tc.format)
				}
				if l.Lines != tc.lines || l.Skipped != tc.skipped || len(l.Queries) != tc.distinct || l.Total() != tc.total {
					t.Errorf("lines %d skipped %d distinct %d total %v; want %d %d %d %v",
						l.Lines, l.Skipped, len(l.Queries), l.Total(), tc.lines, tc.skipped, tc.distinct, tc.total)
				}
				q, ok := find(l.Queries, tc.query)
				if !ok || q.Count != tc.count {
					t.Errorf("query %q: %+v (found %v), want count %v", tc.query, q, ok, tc.count)
				}
			})
		}
	}
}

func TestLoadReturnsQueriesInFirstSeenOrder(t *testing.T) {
	qs, err := Load(datasets.Path(t, "querylogs", "tldr-brew-installs.tsv"), FormatAuto)
	if err != nil {
		t.Fatal(err)
	}
	want := []Query{{"python", 4515280}, {"node", 3798713}, {"git", 2381286}}
	for i, w := range want {
		if qs[i] != w {
			t.Errorf("query %d = %+v, want %+v", i, qs[i], w)
		}
	}
}

func TestFixtures(t *testing.T) {
	cases := []struct {
		name    string
		format  Format
		input   string
		want    []Query
		wantErr string
	}{
		{
			name: "counts with repeated queries are summed", format: FormatCounts,
			input: "a b\t3\nc\t1.5\na b\t2\n",
			want:  []Query{{"a b", 5}, {"c", 1.5}},
		},
		{
			name: "raw lines count once each and empty queries are skipped", format: FormatRaw,
			input: "U1\t970916105432\tfoo\nU2\t970916105433\t\nU1\t970916105434\tfoo\nU3\t970916105435\tbar\n",
			want:  []Query{{"foo", 2}, {"bar", 1}},
		},
		{
			name: "topics count once and duplicates are summed", format: FormatTopics,
			input: "1\tx y\n2\tz\n3\tx y\n",
			want:  []Query{{"x y", 2}, {"z", 1}},
		},
		{
			name: "blank lines and CRLF line ends are tolerated", format: FormatCounts,
			input: "a\t1\r\n\r\nb\t2\r\n",
			want:  []Query{{"a", 1}, {"b", 2}},
		},
		{
			name: "auto detects three columns as raw", format: FormatAuto,
			input: "U1\t970916105432\tfoo\n",
			want:  []Query{{"foo", 1}},
		},
		{
			name: "auto detects numeric queries under integer ids as topics when some query is not a number", format: FormatAuto,
			input: "1\t1040\n2\ttax forms\n",
			want:  []Query{{"1040", 1}, {"tax forms", 1}},
		},
		{
			name: "an empty file has no queries", format: FormatAuto,
			input: "",
			want:  nil,
		},
		{name: "a count that is not a number names the line", format: FormatCounts,
			input: "a\t1\nb\tmany\n", wantErr: "fixture:2: count \"many\": not a number"},
		{name: "a negative count is refused", format: FormatCounts,
			input: "a\t-1\n", wantErr: "fixture:1: count \"-1\": must be a finite number >= 0"},
		{name: "a NaN count is refused", format: FormatCounts,
			input: "a\tNaN\n", wantErr: "fixture:1: count \"NaN\": must be a finite number >= 0"},
		{name: "a line with the wrong column count names the line", format: FormatRaw,
			input: "U1\t970916105432\tfoo\nU1\tfoo\n", wantErr: "fixture:2: 2 columns: want 3"},
		{name: "a malformed time names the line", format: FormatRaw,
			input: "U1\t9709\tfoo\n", wantErr: "fixture:1: time \"9709\": want 12 digits"},
		{name: "a non-integer topic id names the line", format: FormatTopics,
			input: "1\ta\nq2\tb\n", wantErr: "fixture:2: query id \"q2\""},
		{name: "an empty topic query is an error", format: FormatTopics,
			input: "1\t\n", wantErr: "fixture:1: empty query"},
		{name: "invalid UTF-8 in a counts query is an error", format: FormatCounts,
			input: "caf\xe9\t1\n", wantErr: "fixture:1: query is not valid UTF-8"},
		{name: "auto refuses mixed column counts", format: FormatAuto,
			input: "a\t1\nU\t970916105432\tq\n", wantErr: "fixture:2: 3 columns, but line 1 has 2"},
		{name: "auto refuses four columns", format: FormatAuto,
			input: "a\tb\tc\td\n", wantErr: "fixture:1: 4 tab-separated columns"},
		{name: "auto refuses lines where both columns are numbers", format: FormatAuto,
			input: "1\t2\n3\t4\n", wantErr: "format is ambiguous"},
		{name: "auto names the lines that fit neither two-column format", format: FormatAuto,
			input: "tax\t1\n7\tforms\n", wantErr: "neither every second column is a count (line 2's is not) nor every first an integer id (line 1's is not)"},
		{name: "a line after the detection window is still checked", format: FormatAuto,
			input: strings.Repeat("a\t1\n", detectLines+5) + "b\n", wantErr: "fixture:1006: 1 columns: want 2"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			l, err := Read(strings.NewReader(tc.input), "fixture", tc.format)
			if tc.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
					t.Fatalf("error = %v, want one containing %q", err, tc.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if len(l.Queries) != len(tc.want) {
				t.Fatalf("queries = %+v, want %+v", l.Queries, tc.want)
			}
			for i := range tc.want {
				if l.Queries[i] != tc.want[i] {
					t.Errorf("query %d = %+v, want %+v", i, l.Queries[i], tc.want[i])
				}
			}
		})
	}
}

func TestAmbiguousIsASentinel(t *testing.T) {
	_, err := Read(strings.NewReader("1\t2\n"), "x", FormatAuto)
	if !errors.Is(err, ErrAmbiguous) {
		t.Fatalf("err = %v, want ErrAmbiguous", err)
	}
}

func TestLoadNamesAMissingFile(t *testing.T) {
	p := filepath.Join(t.TempDir(), "nope.tsv")
	_, err := Load(p, FormatAuto)
	if err == nil || !strings.Contains(err.Error(), "nope.tsv") {
		t.Fatalf("err = %v, want the path named", err)
	}
}

func TestOverlongLineIsAnError(t *testing.T) {
	in := "a\t1\n" + strings.Repeat("x", MaxLineBytes+10) + "\t1\n"
	_, err := Read(strings.NewReader(in), "big", FormatCounts)
	if err == nil || !strings.Contains(err.Error(), "big:2: line longer than") {
		t.Fatalf("err = %v", err)
	}
}

func TestParseFormat(t *testing.T) {
	for _, f := range []Format{FormatAuto, FormatCounts, FormatRaw, FormatTopics} {
		got, err := ParseFormat(f.String())
		if err != nil || got != f {
			t.Errorf("ParseFormat(%q) = %v, %v", f.String(), got, err)
		}
	}
	if _, err := ParseFormat("csv"); err == nil {
		t.Error("ParseFormat(csv) succeeded")
	}
}

func FuzzRead(f *testing.F) {
	f.Add("a\t1\nb\t2\n", 0)
	f.Add("U\t970916105432\tq\n", 2)
	f.Add("1\tq\n", 3)
	f.Add("\t\t\n\r\n", 0)
	f.Fuzz(func(t *testing.T, in string, format int) {
		l, err := Read(strings.NewReader(in), "fuzz", Format(format))
		if err != nil {
			return
		}
		if l.Format == FormatAuto {
			t.Fatal("format left as auto")
		}
		seen := map[string]bool{}
		for _, q := range l.Queries {
			if strings.TrimSpace(q.Text) == "" || q.Count < 0 || seen[q.Text] {
				t.Fatalf("bad query %+v", q)
			}
			seen[q.Text] = true
		}
	})
}

// TestReadDropsAByteOrderMark: a log saved with a UTF-8 byte order mark
// has the same first query as without it, in every format.
func TestReadDropsAByteOrderMark(t *testing.T) {
	for _, in := range []string{"\ufeffpython\t4515280\nnode\t3798713\n", "\ufeff40\tpython\n389\tnode\n"} {
		l, err := Read(strings.NewReader(in), "log", FormatAuto)
		if err != nil {
			t.Fatalf("%q: %v", in, err)
		}
		if len(l.Queries) != 2 || l.Queries[0].Text != "python" {
			t.Errorf("%q: queries %+v, want python first", in, l.Queries)
		}
	}
}
