package alert

import (
	"fmt"
	"math/rand/v2"
	"net/url"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/deltaq/deltaq/crawler/extract"
	"github.com/deltaq/deltaq/eval/archive"
	"github.com/deltaq/deltaq/index"
	"github.com/deltaq/deltaq/index/indextest"
	"github.com/deltaq/deltaq/internal/datasets"
	"github.com/deltaq/deltaq/internal/querylog"
	"github.com/deltaq/deltaq/notify"
	"github.com/deltaq/deltaq/repo"
)

// standingQueries returns n real queries: the TREC Million Query topics,
// then (past their 60,000) conjunctions of two of them drawn with a fixed
// seed. Queries of stop words only, which no alert may hold, are left out.
func standingQueries(b *testing.B, n int) []Alert {
	an := analyzer(b)
	lim := indextest.Config().Limits()
	qs, err := querylog.Load(datasets.Path(b, "querylogs", "trec-mq.tsv"), querylog.FormatTopics)
	if err != nil {
		b.Fatal(err)
	}
	rng := rand.New(rand.NewPCG(1, 2))
	out := make([]Alert, 0, n)
	for i := 0; len(out) < n; i++ {
		q := qs[i%len(qs)].Text
		if i >= len(qs) {
			q += " " + strings.Fields(qs[rng.IntN(len(qs))].Text)[0]
		}
		a := Alert{Query: q, Notify: []notify.Target{{Kind: notify.Feed}}}
		if _, err := compile(&a, an, lim); err == nil {
			out = append(out, a)
		}
	}
	return out
}

// corpus returns the extracted pages of digitalgov-2023 week 0.
func corpus(b *testing.B) []page {
	a, err := archive.Open(datasets.Path(b, "archives", "digitalgov-2023"))
	if err != nil {
		b.Fatal(err)
	}
	lim := extract.Limits{MaxLinks: 1000, MaxTextBytes: 1 << 20, MaxDepth: 512, MaxNodes: 200000}
	var out []page
	for p := range a.Pages(0) {
		u, _ := url.Parse("https://digital.gov" + p.URL)
		d, err := extract.HTML(p.Body, "text/html; charset=utf-8", u, lim)
		if err != nil {
			b.Fatal(err)
		}
		out = append(out, page{URL: u.String(), Title: d.Title, Text: d.Text})
	}
	return out
}

// timed measures the time the index spends in the observer.
type timed struct {
	inner index.BatchObserver
	spent time.Duration
}

func (t *timed) ObserveBatch(rb *repo.Batch, pages []index.IndexedPage) error {
	start := time.Now()
	err := t.inner.ObserveBatch(rb, pages)
	t.spent += time.Since(start)
	return err
}

// cpuTime is the CPU time the process has used, every thread counted (the
// garbage collector's workers too). On a shared machine it tells the cost
// better than wall time, which also counts the neighbours' turns.
func cpuTime(b *testing.B) time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		b.Fatal(err)
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// BenchmarkAlertOverhead indexes batches of 100 changed digitalgov pages
// with 0 and with 100,000 standing queries matched in each batch; ns/page
// (and cpu-ns/page, CPU time) of the two sub-benchmarks compare the cost
// per indexed page, and observe-% is the share of the batch spent matching.
func BenchmarkAlertOverhead(b *testing.B) {
	pages := corpus(b)
	for _, n := range []int{0, 100000} {
		b.Run(fmt.Sprintf("alerts=%d", n), func(b *testing.B) {
			dir := b.TempDir()
			db := openRepo(b, filepath.Join(dir, "db"))
			// The alerts predate the pages' fetch times (2023-01-30 on).
			created := func() time.Time { return time.Date(2023, 1, 1, 0, 0, 0, 0, time.UTC) }
			m, err := New(b.Context(), db, testConfig(), analyzer(b), indextest.Config().Limits(), nil, Options{Clock: created})
			if err != nil {
				b.Fatal(err)
			}
			if n > 0 {
				if _, err := m.AddMany(b.Context(), standingQueries(b, n)); err != nil {
					b.Fatal(err)
				}
			}
			obs := &timed{inner: m}
			ix, err := index.Open(filepath.Join(dir, "ix"), indextest.Config(), db, index.Options{Observer: obs})
			if err != nil {
				b.Fatal(err)
			}
			defer ix.Close()
			const batch = 100
			at := time.Date(2023, 1, 30, 0, 0, 0, 0, time.UTC)
			next := 0
			indexed := 0
			cpu0 := cpuTime(b)
			start := time.Now()
			obs.spent = 0
			for b.Loop() {
				at = at.Add(time.Hour)
				var ps []page
				for range batch {
					p := pages[next%len(pages)]
					p.Text += fmt.Sprintf(" revision %d", next/len(pages))
					ps = append(ps, p)
					next++
				}
				putPages(b, db, at, ps...)
				if _, err := ix.CatchUp(b.Context()); err != nil {
					b.Fatal(err)
				}
				indexed += batch
			}
			total := time.Since(start)
			b.ReportMetric(float64(total.Nanoseconds())/float64(indexed), "ns/page")
			b.ReportMetric(float64((cpuTime(b)-cpu0).Nanoseconds())/float64(indexed), "cpu-ns/page")
			b.ReportMetric(100*float64(obs.spent)/float64(total), "observe-%")
			b.ReportMetric(float64(m.Fired())/float64(indexed), "matches/page")
			b.ReportMetric(float64(m.Verified())/float64(indexed), "candidates/page")
		})
	}
}
