package fanouteval

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"math/rand/v2"
	"os"
	"path/filepath"
	"time"

	"github.com/deltaq/deltaq/crawler/extract"
	"github.com/deltaq/deltaq/eval/archive"
	"github.com/deltaq/deltaq/eval/report"
	"github.com/deltaq/deltaq/index"
	"github.com/deltaq/deltaq/index/fanout"
	"github.com/deltaq/deltaq/internal/progress"
	"github.com/deltaq/deltaq/internal/querylog"
	"github.com/deltaq/deltaq/repo"
)

// Options are one evaluation's inputs.
type Options struct {
	Config     Config
	Index      index.Config
	Repo       repo.Config
	Extract    extract.Limits
	Archives   []*archive.Archive
	Queries    []querylog.Query
	Partitions []Partition
	// HostShards is the cluster's host shards (cluster.shards), dealt to
	// the Config.Shards nodes by ByHost.
	HostShards int
	Header     string // the report's heading and what was run
	Logger     *slog.Logger
}

// Summary is what a run measured: one row per partition and statistics.
type Summary struct {
	Pages   int
	Queries int // asked (the sample)
	Refused int // refused by the single index's parser or searcher
	Rows    []Row
	Took    time.Duration
}

// Row is one (partition, statistics) variant.
type Row struct {
	Partition  Partition
	Statistics fanout.Statistics
	ShardPages []int
	Compared   int     // queries both answered
	SetEqual   float64 // share of queries with the same top-k set
	ListEqual  float64 // share with the same top-k in the same order
	// TieEqual is the share with the same scores rank by rank and the same
	// pages but for ties at the k-th score (fanout.SameUpToTies): one
	// index breaks those by document number, which Bleve assigns within a
	// batch in no fixed order, so the strict shares vary a little from
	// run to run.
	TieEqual   float64
	Overlap    float64 // mean |A∩B|/max(|A|,|B|) of the top k (1 when both empty)
	MinOverlap float64
	// MaxScoreDiff is the largest |score − single score| of a page in both
	// top-k lists: 0 means the merged scores are the single index's.
	MaxScoreDiff float64
	// Rounds and Bytes are the mean request rounds and coordination bytes
	// (requests and answers as JSON) per query.
	Rounds, Bytes float64
	// Hist[i] counts queries whose top k share i pages with the single
	// index's (i = 0..k).
	Hist []int
	// DFTableBytes is the mean size of a shard's df table (index.DFTable):
	// what periodic exchange would publish per node.
	DFTableBytes, DFTableWords int
	// StaleWeeks > 0: the statistics were published that many weeks
	// before the pages searched (periodic exchange), compared with one
	// index of the later week.
	StaleWeeks int
	set        *shardSet
}

// shardSet is S indexes over one partition of the pages.
type shardSet struct {
	ixs         []*index.Index
	nodes       []fanout.Node
	meas        []*fanout.Measured
	pages       []int
	words, size int // summed df tables
}

// Run builds one index over the pages and, per partition, Config.Shards
// indexes over its parts, asks every sampled query of both and writes the
// report into out.
func Run(ctx context.Context, opts Options, out string, p *progress.Tracker) (Summary, error) {
	start := time.Now()
	cfg := opts.Config
	if err := cfg.Validate(); err != nil {
		return Summary{}, err
	}
	if len(opts.Archives) == 0 || len(opts.Queries) == 0 || len(opts.Partitions) == 0 {
		return Summary{}, errors.New("fanouteval: archives, queries and partitions are required")
	}
	if opts.HostShards < 1 {
		return Summary{}, fmt.Errorf("fanouteval: cluster.shards = %d: must be >= 1", opts.HostShards)
	}
	tidy, err := report.OutDir(out)
	if err != nil {
		return Summary{}, fmt.Errorf("fanouteval: %w", err)
	}
	defer tidy() // interrupted before the report: no empty out
	tmp, err := os.MkdirTemp("", "deltaq-fanout-")
	if err != nil {
		return Summary{}, fmt.Errorf("fanouteval: %w", err)
	}
	defer os.RemoveAll(tmp)
	pages, err := ExtractWeek(opts.Archives, cfg.Week, opts.Extract)
	if err != nil {
		return Summary{}, fmt.Errorf("fanouteval: %w", err)
	}
	at := opts.Archives[0].Date(cfg.Week)
	var closers []func() error
	defer func() {
		for _, c := range closers {
			c()
		}
	}()
	open := func(name string, part []Page) (*index.Index, error) {
		ix, close, err := Build(ctx, filepath.Join(tmp, name), opts.Index, opts.Repo, part, at, opts.Logger)
		if err != nil {
			return nil, err
		}
		closers = append(closers, close)
		return ix, nil
	}
	indexes := 1 + len(opts.Partitions)*cfg.Shards
	if cfg.StaleWeeks > 0 {
		indexes *= 2
	}
	p.Stage("index", indexes, 1, "index build")
	built := func() {
		p.Step()
		p.RunDone()
	}
	single, err := open("single", pages)
	if err != nil {
		return Summary{}, fmt.Errorf("fanouteval: single index: %w", err)
	}
	built()
	// build splits pages over the nodes by part, one index each.
	build := func(name string, part Partition, pages []Page) (*shardSet, error) {
		set := &shardSet{}
		split := make([][]Page, cfg.Shards)
		for _, pg := range pages {
			s := part.NodeOf(pg, cfg.Shards, opts.HostShards)
			split[s] = append(split[s], pg)
		}
		for s := range split {
			ix, err := open(fmt.Sprintf("%s-%d", name, s), split[s])
			if err != nil {
				return nil, fmt.Errorf("fanouteval: %s node %d: %w", name, s, err)
			}
			words, size, err := ix.DFTable(ctx)
			if err != nil {
				return nil, err
			}
			set.words, set.size = set.words+words, set.size+size
			m := &fanout.Measured{Shard: ix}
			set.ixs = append(set.ixs, ix)
			set.nodes = append(set.nodes, fanout.Node{Name: fmt.Sprintf("%s-%d", name, s), Shard: m})
			set.meas = append(set.meas, m)
			set.pages = append(set.pages, len(split[s]))
			built()
		}
		return set, nil
	}
	// The periodic exchange's case: statistics published at Week, pages
	// (and the single index compared with) StaleWeeks later.
	var later *index.Index
	var laterPages []Page
	if cfg.StaleWeeks > 0 {
		if laterPages, err = ExtractWeek(opts.Archives, cfg.Week+cfg.StaleWeeks, opts.Extract); err != nil {
			return Summary{}, fmt.Errorf("fanouteval: eval.fanout.stale_weeks: %w", err)
		}
		if later, err = open("single-later", laterPages); err != nil {
			return Summary{}, fmt.Errorf("fanouteval: single index: %w", err)
		}
		built()
	}
	queries := sample(opts.Queries, cfg.MaxQueries, cfg.Seed)
	sum := Summary{Pages: len(pages), Queries: len(queries)}
	var rows []*Row
	for _, part := range opts.Partitions {
		set, err := build(string(part), part, pages)
		if err != nil {
			return sum, err
		}
		for _, st := range []fanout.Statistics{fanout.Local, fanout.Global} {
			rows = append(rows, &Row{Partition: part, Statistics: st, set: set})
		}
		if later != nil {
			now, err := build(string(part)+"-later", part, laterPages)
			if err != nil {
				return sum, err
			}
			stale := &shardSet{ixs: now.ixs, meas: now.meas, pages: now.pages, words: set.words, size: set.size}
			for i, n := range now.nodes {
				stale.nodes = append(stale.nodes, fanout.Node{Name: n.Name, Shard: staleStats{Shard: n.Shard, published: set.ixs[i]}})
			}
			rows = append(rows, &Row{Partition: part, Statistics: fanout.Global, StaleWeeks: cfg.StaleWeeks, set: stale})
		}
	}
	for _, row := range rows {
		row.ShardPages, row.MinOverlap, row.Hist = row.set.pages, 1, make([]int, cfg.Depth+1)
		row.DFTableWords, row.DFTableBytes = row.set.words/cfg.Shards, row.set.size/cfg.Shards
	}
	limits := opts.Index.Limits()
	p.Stage("ask", len(queries), 1, "query run")
	for _, lq := range queries {
		if err := ctx.Err(); err != nil {
			return sum, err
		}
		p.Step()
		p.RunDone()
		q, err := index.ParseQuery(lq.Text, limits)
		if err != nil {
			sum.Refused++
			continue
		}
		want, _, err := single.Retrieve(ctx, q, cfg.Depth)
		if err != nil {
			var qe *index.QueryError
			if errors.As(err, &qe) {
				sum.Refused++
				continue
			}
			return sum, err
		}
		var wantLater []index.Hit
		if later != nil {
			if wantLater, _, err = later.Retrieve(ctx, q, cfg.Depth); err != nil {
				return sum, err
			}
		}
		for _, row := range rows {
			set := row.set
			var bytes0 int64
			for _, m := range set.meas {
				bytes0 += m.Bytes.Load()
			}
			res, err := fanout.Search(ctx, set.nodes, q, cfg.Depth, fanout.Options{
				Retrieval: opts.Index.Retrieval, Statistics: row.Statistics, Timeout: cfg.Timeout})
			if err != nil {
				return sum, fmt.Errorf("fanouteval: %s/%s %q: %w", row.Partition, row.Statistics, lq.Text, err)
			}
			if res.Partial() {
				return sum, fmt.Errorf("fanouteval: %s/%s %q: partial: %v", row.Partition, row.Statistics, lq.Text, res.Missing)
			}
			var bytes int64
			for _, m := range set.meas {
				bytes += m.Bytes.Load()
			}
			if row.StaleWeeks > 0 {
				row.add(wantLater, res.Ranked, res.Rounds, bytes-bytes0)
			} else {
				row.add(want, res.Ranked, res.Rounds, bytes-bytes0)
			}
		}
	}
	for _, row := range rows {
		row.finish()
		sum.Rows = append(sum.Rows, *row)
	}
	sum.Took = time.Since(start)
	if err := write(out, opts, sum); err != nil {
		return sum, err
	}
	return sum, nil
}

// staleStats is a node whose statistics are those it published earlier,
// from its index of then, as a periodic exchange would give them.
type staleStats struct {
	fanout.Shard
	published *index.Index
}

// Stats implements fanout.Shard.
func (s staleStats) Stats(ctx context.Context, q index.Query, words []string) (index.MatchStats, error) {
	return s.published.Stats(ctx, q, words)
}

// add compares one query's fanned-out top k with the single index's.
func (r *Row) add(want []index.Hit, got []index.Ranked, rounds int, bytes int64) {
	r.Compared++
	score := make(map[string]float64, len(want))
	for _, h := range want {
		score[h.URL] = h.Score
	}
	same, ordered := 0, len(want) == len(got)
	for i, g := range got {
		s, ok := score[g.URL]
		if !ok {
			ordered = false
			continue
		}
		same++
		r.MaxScoreDiff = max(r.MaxScoreDiff, abs(s-g.Score))
		if i >= len(want) || want[i].URL != g.URL {
			ordered = false
		}
	}
	overlap := 1.0
	if n := max(len(want), len(got)); n > 0 {
		overlap = float64(same) / float64(n)
	}
	if same == len(want) && same == len(got) {
		r.SetEqual++
	}
	if ordered {
		r.ListEqual++
	}
	wantRanked := make([]index.Ranked, len(want))
	for i, h := range want {
		wantRanked[i] = index.Ranked{URL: h.URL, Score: h.Score}
	}
	if fanout.SameUpToTies(got, wantRanked) {
		r.TieEqual++
	}
	r.Overlap += overlap
	r.MinOverlap = min(r.MinOverlap, overlap)
	r.Hist[min(same, len(r.Hist)-1)]++
	r.Rounds += float64(rounds)
	r.Bytes += float64(bytes)
}

func (r *Row) finish() {
	if r.Compared == 0 {
		return
	}
	n := float64(r.Compared)
	r.SetEqual /= n
	r.ListEqual /= n
	r.TieEqual /= n
	r.Overlap /= n
	r.Rounds /= n
	r.Bytes /= n
}

func abs(x float64) float64 {
	if x < 0 {
		return -x
	}
	return x
}

// sample returns up to n of qs (all for n = 0), a seeded sample in log
// order.
func sample(qs []querylog.Query, n int, seed uint64) []querylog.Query {
	if n == 0 || n >= len(qs) {
		return qs
	}
	rng := rand.New(rand.NewPCG(seed, 0x66616e6f7574))
	keep := rng.Perm(len(qs))[:n]
	picked := make([]bool, len(qs))
	for _, i := range keep {
		picked[i] = true
	}
	out := make([]querylog.Query, 0, n)
	for i, q := range qs {
		if picked[i] {
			out = append(out, q)
		}
	}
	return out
}
