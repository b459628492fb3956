package index

import (
	"context"
	"slices"
	"sort"
	"testing"
	"time"

	"github.com/blevesearch/bleve/v2"
	"github.com/blevesearch/bleve/v2/search/query"
)

// latencyQueries are the trec-mq queries that parse and match something
// in digitalgov week 0: the query mix of the latency targets.
func latencyQueries(tb testing.TB, ix *Index, n int) []Query {
	var out []Query
	for _, q := range trecQueries(tb) {
		pq, err := ParseQuery(q.Text, ix.cfg.Limits())
		if err != nil {
			continue
		}
		res, err := ix.Search(context.Background(), pq, 0, 1)
		if err != nil || res.Total == 0 {
			continue
		}
		if out = append(out, pq); len(out) == n {
			break
		}
	}
	return out
}

// percentiles returns the p50 and p99 of ds in milliseconds.
func percentiles(ds []time.Duration) (p50, p99 float64) {
	sort.Slice(ds, func(i, j int) bool { return ds[i] < ds[j] })
	at := func(q float64) float64 { return float64(ds[int(q*float64(len(ds)-1))]) / 1e6 }
	return at(0.50), at(0.99)
}

// BenchmarkSearchLatency puts the in-process searcher (Index.Search: the
// query parsed into a conjunction, top 10 by relevance, stored fields and
// highlighted snippets) beside a bare Bleve query for the same terms (the
// same conjunction, top 10, nothing loaded), over the trec-mq queries that
// match digitalgov-2023 week 0; it reports p50 and p99 per query and the
// ratio of the searcher's p50 to Bleve's.
func BenchmarkSearchLatency(b *testing.B) {
	fx := week0Index(b, ScoringBM25)
	ix := fx.ix
	qs := latencyQueries(b, ix, 200)
	if len(qs) < 50 {
		b.Fatalf("only %d matching queries", len(qs))
	}
	bare := func(q Query) error {
		bq, err := bleveQuery(q, ix.Analyzer())
		if err != nil {
			return err
		}
		_, err = ix.bleve().SearchInContext(context.Background(), bleve.NewSearchRequestOptions(bq, 10, 0, false))
		return err
	}
	ored := func(q Query) error {
		var terms []query.Query
		for _, t := range q.Terms {
			mq := query.NewMatchQuery(t)
			mq.SetField(FieldText)
			terms = append(terms, mq)
		}
		if len(terms) == 0 {
			return nil
		}
		_, err := ix.bleve().SearchInContext(context.Background(), bleve.NewSearchRequestOptions(query.NewDisjunctionQuery(terms), 10, 0, false))
		return err
	}
	searcher := func(q Query) error {
		_, err := ix.Search(context.Background(), q, 0, 10)
		return err
	}
	var p50s = map[string]float64{}
	for _, c := range []struct {
		name string
		run  func(Query) error
	}{{"bleve-or", ored}, {"bleve-and", bare}, {"searcher", searcher}} {
		b.Run(c.name, func(b *testing.B) {
			var ds []time.Duration
			for b.Loop() {
				for _, q := range qs {
					start := time.Now()
					if err := c.run(q); err != nil {
						b.Fatal(err)
					}
					ds = append(ds, time.Since(start))
				}
			}
			p50, p99 := percentiles(ds)
			p50s[c.name] = p50
			b.ReportMetric(p50, "p50-ms")
			b.ReportMetric(p99, "p99-ms")
			b.ReportMetric(float64(len(qs)), "queries")
			if c.name == "searcher" && p50s["bleve-and"] > 0 {
				b.ReportMetric(p50/p50s["bleve-and"], "p50-vs-bleve")
			}
		})
	}
}

// BenchmarkSearchAfterBatch indexes digitalgov-2023 week 0 with Bleve's
// merges running as they do in deltaq serve, then applies the pages that
// change in weeks 1 to 8 in batches of 100, as a crawl does, and after
// each batch times two searches of a trec-mq query: the first waits for
// the new snapshot's text field (snapbuild.go), the second does not. It
// reports the p50 and the greatest of each, in milliseconds.
//
//	go test ./index -run '^$' -bench SearchAfterBatch -benchtime 1x
func BenchmarkSearchAfterBatch(b *testing.B) {
	db := openRepo(b, b.TempDir())
	ix := openIndex(b, tempDir(b, "ix"), testConfig(ScoringBM25), db, Options{})
	week := digitalgov(b, 0)
	putPages(b, db, t0, week.pages...)
	catchUp(b, ix)
	qs := latencyQueries(b, ix, 50)
	if len(qs) == 0 {
		b.Fatal("no query matches week 0")
	}
	var batches [][]page
	for w := 1; w <= 8; w++ {
		next := digitalgov(b, w)
		var changed []page
		for _, p := range next.pages {
			if old, ok := week.byURL[p.URL]; !ok || old != p {
				changed = append(changed, p)
			}
		}
		for len(changed) > 0 {
			n := min(100, len(changed))
			batches = append(batches, changed[:n])
			changed = changed[n:]
		}
		week = next
	}
	search := func(q Query) time.Duration {
		start := time.Now()
		if _, err := ix.Search(context.Background(), q, 0, 10); err != nil {
			b.Fatal(err)
		}
		return time.Since(start)
	}
	var first, second []time.Duration
	var built buildCounts // of the snapshots' builds, after the first
	for b.Loop() {
		for i, batch := range batches {
			putPages(b, db, t0.Add(time.Duration(i+1)*time.Hour), batch...)
			catchUp(b, ix)
			q := qs[i%len(qs)]
			first = append(first, search(q))
			st := ix.texts.cur
			built = built.plus(st.built)
			second = append(second, search(q))
			if ix.texts.cur != st { // a merge came between the two
				built = built.plus(ix.texts.cur.built)
			}
		}
	}
	for _, m := range []struct {
		name string
		ds   []time.Duration
	}{{"first", first}, {"second", second}} {
		p50, _ := percentiles(m.ds)
		b.ReportMetric(p50, m.name+"-p50-ms")
		b.ReportMetric(float64(slices.Max(m.ds))/1e6, m.name+"-max-ms")
	}
	b.ReportMetric(float64(len(batches)), "batches")
	b.ReportMetric(float64(built.read), "segments-read")
	b.ReportMetric(float64(built.derived), "segments-derived")
	b.ReportMetric(float64(built.carried), "segments-carried")
}
