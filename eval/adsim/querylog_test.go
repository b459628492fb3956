package adsim

import (
	"slices"
	"strings"
	"testing"

	"github.com/deltaq/deltaq/internal/datasets"
)

func TestParseLog(t *testing.T) {
	for _, tc := range []struct {
		name    string
		in      string
		format  LogFormat
		phrases []Phrase
		empty   int
	}{
		{
			name:    "sums query<TAB>count lines by normalized phrase",
			in:      "Git\t5\npython\t7\ngit \t2\n",
			format:  FormatCounts,
			phrases: []Phrase{{"git", 7}, {"python", 7}},
		},
		{
			name:    "counts Excite lines, decodes Latin-1 and drops empty queries",
			in:      "u1\t970916105432\tYahoo Chat\nu2\t970916105433\t\nu3\t970916105434\tyahoo chat\nu4\t970916105435\tcaf\xe9\n",
			format:  FormatExcite,
			phrases: []Phrase{{"yahoo chat", 2}, {"café", 1}},
			empty:   1,
		},
		{
			name:    "counts TREC topics",
			in:      "1\tpancrea cancer\n2\tPancrea  Cancer\n3\tgov grants\n",
			format:  FormatTREC,
			phrases: []Phrase{{"pancrea cancer", 2}, {"gov grants", 1}},
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			l, err := ParseLog(strings.NewReader(tc.in))
			if err != nil {
				t.Fatal(err)
			}
			if l.Format != tc.format || l.Empty != tc.empty || !slices.Equal(l.Phrases, tc.phrases) {
				t.Fatalf("got %s, %d empty, %v; want %s, %d, %v", l.Format, l.Empty, l.Phrases, tc.format, tc.empty, tc.phrases)
			}
		})
	}
	for _, bad := range []string{"", "just text\n", "a\tb\tc\n", "q\t-3\n"} {
		t.Run("rejects "+strings.TrimSpace(strings.ReplaceAll(bad, "\t", "<TAB>")), func(t *testing.T) {
			if _, err := ParseLog(strings.NewReader(bad)); err == nil {
				t.Fatal("accepted")
			}
		})
	}
}

func TestRealQueryLogs(t *testing.T) {
	for _, tc := range []struct {
		file         string
		format       LogFormat
		lines, empty int
		phrases      int
		top          Phrase
	}{
		{"tldr-brew-installs.tsv", FormatCounts, 1900, 0, 1900, Phrase{"python", 4515280}},
		{"excite-1997-small.tsv", FormatExcite, 4501, 533, 2095, Phrase{"maytag", 41}},
		{"trec-mq.tsv", FormatTREC, 60000, 0, 59674, Phrase{"american muslim mosques schools", 3}},
	} {
		t.Run("reads "+tc.file, func(t *testing.T) {
			l, err := ReadLog(datasets.Path(t, "querylogs", tc.file))
			if err != nil {
				t.Fatal(err)
			}
			if l.Format != tc.format || l.Lines != tc.lines || l.Empty != tc.empty || len(l.Phrases) != tc.phrases || l.Phrases[0] != tc.top {
				t.Fatalf("got %s: %d lines, %d empty, %d phrases, top %v", l.Format, l.Lines, l.Empty, len(l.Phrases), l.Phrases[0])
			}
		})
	}
}

func FuzzParseLog(f *testing.F) {
	f.Add("python\t12\nnode\t3\n")
	f.Add("u\t970916105432\tyahoo chat\n")
	f.Add("1\tgov\n2\tgov grants\n")
	f.Fuzz(func(t *testing.T, s string) {
		l, err := ParseLog(strings.NewReader(s))
		if err != nil {
			return
		}
		for i, p := range l.Phrases {
			if p.Text == "" || p.Count <= 0 {
				t.Fatalf("phrase %d = %+v", i, p)
			}
			if i > 0 && l.Phrases[i-1].Count < p.Count {
				t.Fatalf("not sorted by count at %d", i)
			}
		}
	})
}
