package diff

import (
	"net/url"
	"testing"
	"time"

	"github.com/deltaq/deltaq/crawler/extract"
	"github.com/deltaq/deltaq/eval/archive"
	"github.com/deltaq/deltaq/internal/datasets"
)

// BenchmarkChangedPages diffs the text of every page of digitalgov-2023
// that changes from week 20 to week 21 (187 pages) against its text of
// week 20, as a watch's page diff does (TextChanges, a one-second
// timeout), and reports the time and allocation per page.
//
//	go test ./diff -run '^$' -bench ChangedPages -benchmem
func BenchmarkChangedPages(b *testing.B) {
	a, err := archive.Open(datasets.Path(b, "archives", "digitalgov-2023"))
	if err != nil {
		b.Fatal(err)
	}
	lim := extract.Limits{MaxLinks: 5000, MaxTextBytes: 1 << 20, MaxDepth: 512, MaxNodes: 500000}
	text := func(p archive.Page) string {
		u, err := url.Parse("http://digitalgov.test" + p.URL)
		if err != nil {
			b.Fatal(err)
		}
		d, err := extract.HTML(p.Body, "text/html; charset=utf-8", u, lim)
		if err != nil {
			b.Fatal(err)
		}
		return d.Text
	}
	var olds, curs []string
	for _, u := range a.Changed(21) {
		old, _ := a.Lookup(u, 20)
		cur, _ := a.Lookup(u, 21)
		olds, curs = append(olds, text(old)), append(curs, text(cur))
	}
	if len(olds) == 0 {
		b.Fatal("no page changes from week 20 to 21")
	}
	o := Options{Timeout: time.Second}
	for b.Loop() {
		for i := range olds {
			TextChanges(olds[i], curs[i], o)
		}
	}
	b.ReportMetric(float64(b.Elapsed().Microseconds())/float64(b.N*len(olds)), "µs/page")
}
