package cluster_test

import (
	"context"
	"fmt"
	"path/filepath"
	"testing"
	"time"

	"github.com/deltaq/deltaq/cluster"
	"github.com/deltaq/deltaq/cluster/natstest"
	"github.com/deltaq/deltaq/configs"
	"github.com/deltaq/deltaq/eval/archive"
	"github.com/deltaq/deltaq/eval/fanouteval"
	"github.com/deltaq/deltaq/index"
	"github.com/deltaq/deltaq/index/fanout"
	"github.com/deltaq/deltaq/internal/datasets"
	"github.com/deltaq/deltaq/internal/querylog"
)

// benchIndex indexes pages under dir with the default configuration.
func benchIndex(b *testing.B, cfg *configs.Config, dir string, pages []fanouteval.Page) *index.Index {
	b.Helper()
	ix, close, err := fanouteval.Build(b.Context(), dir, cfg.Index, cfg.Repo, pages, time.Date(2023, 1, 30, 12, 0, 0, 0, time.UTC), nil)
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { close() })
	return ix
}

// BenchmarkFanOut asks trec-mq queries of digitalgov-2023's week 0 (the
// first page of 10, default retrieval) side by side: of one index
// (local), fanned out over three indexes in the process (the merge's own
// cost), and fanned out from one node to two others over a real NATS
// server on loopback (SearchNode.Retrieve, as `deltaq serve --cluster`).
// The pages are split by URL, so every node holds a third of them. It
// reports queries/s and the coordination bytes per query.
func BenchmarkFanOut(b *testing.B) {
	cfg, err := configs.Load(configs.Sources{Env: []string{}})
	if err != nil {
		b.Fatal(err)
	}
	a, err := archive.Open(datasets.Path(b, "archives", "digitalgov-2023"))
	if err != nil {
		b.Fatal(err)
	}
	pages, err := fanouteval.ExtractWeek([]*archive.Archive{a}, 0, cfg.Crawler.Extract)
	if err != nil {
		b.Fatal(err)
	}
	logged, err := querylog.Load(datasets.Path(b, "querylogs", "trec-mq.tsv"), querylog.FormatTopics)
	if err != nil {
		b.Fatal(err)
	}
	var qs []index.Query
	for _, l := range logged[:500] {
		if q, err := index.ParseQuery(l.Text, cfg.Index.Limits()); err == nil {
			qs = append(qs, q)
		}
	}
	dir := b.TempDir()
	single := benchIndex(b, cfg, filepath.Join(dir, "single"), pages)
	split := make([][]fanouteval.Page, 3)
	for _, p := range pages {
		s := fanouteval.ByURL.NodeOf(p, 3, 0)
		split[s] = append(split[s], p)
	}
	var shards []*index.Index
	var inproc []fanout.Node
	for s, part := range split {
		ix := benchIndex(b, cfg, filepath.Join(dir, fmt.Sprint(s)), part)
		shards = append(shards, ix)
		inproc = append(inproc, fanout.Node{Name: fmt.Sprint("n", s), Shard: ix})
	}
	ns := natstest.Start(b, 1)
	ctx, cancel := context.WithCancel(b.Context())
	defer cancel()
	var nodes []*cluster.SearchNode
	for s, ix := range shards {
		ccfg := cfg.Cluster
		ccfg.URL, ccfg.Node, ccfg.Replicas = ns.URL(), fmt.Sprint("n", s), 1
		n, err := cluster.JoinSearch(ctx, ccfg, ix, cluster.SearchOptions{Limits: cfg.Index.Limits(), Retrieval: cfg.Index.Retrieval})
		if err != nil {
			b.Fatal(err)
		}
		b.Cleanup(n.Close)
		go n.Run(ctx)
		nodes = append(nodes, n)
	}
	for {
		if list, _ := nodes[0].Nodes(); len(list) == 3 {
			break
		}
		time.Sleep(50 * time.Millisecond) // the first heartbeats
	}
	// Every index reads its postings once per snapshot: before timing.
	for _, q := range qs {
		if _, _, _, err := nodes[0].Retrieve(ctx, q, 10); err != nil {
			b.Fatal(err)
		}
		if _, _, err := single.Retrieve(ctx, q, 10); err != nil {
			b.Fatal(err)
		}
	}
	// 10: a first page; 200: ranking.candidates, what `deltaq serve`
	// retrieves for the popularity blend and promotion.
	for _, limit := range []int{10, 200} {
		b.Run(fmt.Sprintf("local/limit=%d", limit), func(b *testing.B) {
			i := 0
			for b.Loop() {
				if _, _, err := single.Retrieve(ctx, qs[i%len(qs)], limit); err != nil {
					b.Fatal(err)
				}
				i++
			}
			b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "queries/s")
		})
		b.Run(fmt.Sprintf("fanout-in-process/limit=%d", limit), func(b *testing.B) {
			i := 0
			for b.Loop() {
				if _, err := fanout.Search(ctx, inproc, qs[i%len(qs)], limit, fanout.Options{Retrieval: cfg.Index.Retrieval}); err != nil {
					b.Fatal(err)
				}
				i++
			}
			b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "queries/s")
		})
		b.Run(fmt.Sprintf("fanout-nats/limit=%d", limit), func(b *testing.B) {
			i := 0
			bytes0 := nodes[0].Stats.Bytes.Load()
			req0 := nodes[0].Stats.Requests.Load()
			for b.Loop() {
				_, _, missing, err := nodes[0].Retrieve(ctx, qs[i%len(qs)], limit)
				if err != nil || len(missing) > 0 {
					b.Fatalf("err %v, missing %v", err, missing)
				}
				i++
			}
			b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "queries/s")
			b.ReportMetric(float64(nodes[0].Stats.Bytes.Load()-bytes0)/float64(b.N), "coord-B/query")
			b.ReportMetric(float64(nodes[0].Stats.Requests.Load()-req0)/float64(b.N), "requests/query")
		})
	}
}
