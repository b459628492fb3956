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
	"github.com/deltaq/deltaq/internal/bounds"
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
	if err := opts.check(); err != nil {
		return Summary{}, err
	}
	cfg := opts.Config
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
	e := &evaluation{opts: opts, cfg: cfg, dir: tmp, at: opts.Archives[0].Date(cfg.Week), p: p, pages: pages}
	defer e.close() // runs before RemoveAll: the indexes close before their directory goes
	if err := e.buildSingles(ctx); err != nil {
		return Summary{}, err
	}
	queries := sample(opts.Queries, cfg.MaxQueries, cfg.Seed)
	sum := Summary{Pages: len(pages), Queries: len(queries)}
	if err := e.buildRows(ctx); err != nil {
		return sum, err
	}
	if err := e.ask(ctx, queries, &sum); err != nil {
		return sum, err
	}
	for _, row := range e.rows {
		row.finish()
		sum.Rows = append(sum.Rows, *row)
	}
	sum.Took = time.Since(start)
	if err := write(out, opts, sum); err != nil {
		return sum, err
	}
	return sum, nil
}

// check refuses options Run cannot evaluate before it creates the out
// directory or builds anything.
func (o Options) check() error {
	if err := o.Config.Validate(); err != nil {
		return err
	}
	if len(o.Archives) == 0 || len(o.Queries) == 0 || len(o.Partitions) == 0 {
		return errors.New("fanouteval: archives, queries and partitions are required")
	}
	if o.HostShards < 1 {
		return fmt.Errorf("fanouteval: cluster.shards = %d: must be >= 1", o.HostShards)
	}
	// An archive is served as <name>.test: two of one name would put
	// every URL in the corpus twice. A partition given twice would be
	// evaluated and reported twice.
	for i := range bounds.Repeats(o.Archives, (*archive.Archive).Name) {
		name := o.Archives[i].Name()
		return fmt.Errorf("fanouteval: two archives are named %q (archive.json \"name\"), so both would be host %s.test: give archives of distinct names", name, name)
	}
	for i := range bounds.Repeats(o.Partitions, func(p Partition) Partition { return p }) {
		return fmt.Errorf("fanouteval: --partition %s given twice: give each once", o.Partitions[i])
	}
	return nil
}

// evaluation is one Run's indexes and rows. It keeps the close of every
// index it builds, so that Run releases them all however it returns.
type evaluation struct {
	opts    Options
	cfg     Config
	dir     string    // the indexes' temporary directory
	at      time.Time // when the pages count as fetched: Config.Week's date
	p       *progress.Tracker
	closers []func() error

	pages, laterPages []Page       // laterPages: the week StaleWeeks later
	single, later     *index.Index // later: nil unless StaleWeeks > 0
	rows              []*Row
}

// close releases every index built. Their errors are dropped: the
// indexes were only read, and their directory is removed next.
func (e *evaluation) close() {
	for _, c := range e.closers {
		c()
	}
}

// open builds an index of part under the temporary directory and keeps
// its close for close.
func (e *evaluation) open(ctx context.Context, name string, part []Page) (*index.Index, error) {
	ix, release, err := Build(ctx, filepath.Join(e.dir, name), e.opts.Index, e.opts.Repo, part, e.at, e.opts.Logger)
	if err != nil {
		return nil, err
	}
	e.closers = append(e.closers, release)
	return ix, nil
}

// step reports one unit of the current stage (an index built, a query
// asked) done.
func (e *evaluation) step() {
	e.p.Step()
	e.p.RunDone()
}

// buildSingles opens the index stage, counting every index the run will
// build, and builds the single index the splits are compared with and,
// with StaleWeeks, the later week's single index that the stale rows are
// compared with.
func (e *evaluation) buildSingles(ctx context.Context) error {
	indexes := 1 + len(e.opts.Partitions)*e.cfg.Shards
	if e.cfg.StaleWeeks > 0 {
		indexes *= 2
	}
	e.p.Stage("index", indexes, 1, "index build")
	var err error
	if e.single, err = e.open(ctx, "single", e.pages); err != nil {
		return fmt.Errorf("fanouteval: single index: %w", err)
	}
	e.step()
	if e.cfg.StaleWeeks == 0 {
		return nil
	}
	// The periodic exchange's case: statistics published at Week, pages
	// (and the single index compared with) StaleWeeks later.
	if e.laterPages, err = ExtractWeek(e.opts.Archives, e.cfg.Week+e.cfg.StaleWeeks, e.opts.Extract); err != nil {
		return fmt.Errorf("fanouteval: eval.fanout.stale_weeks: %w", err)
	}
	if e.later, err = e.open(ctx, "single-later", e.laterPages); err != nil {
		return fmt.Errorf("fanouteval: single index: %w", err)
	}
	e.step()
	return nil
}

// buildSplit splits pages over the nodes by part, one index each, and
// sums the df tables the nodes would publish.
func (e *evaluation) buildSplit(ctx context.Context, name string, part Partition, pages []Page) (*shardSet, error) {
	set := &shardSet{}
	split := make([][]Page, e.cfg.Shards)
	for _, pg := range pages {
		s := part.NodeOf(pg, e.cfg.Shards, e.opts.HostShards)
		split[s] = append(split[s], pg)
	}
	for s := range split {
		ix, err := e.open(ctx, fmt.Sprintf("%s-%d", name, s), split[s])
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
		e.step()
	}
	return set, nil
}

// buildRows builds every partition's split and gives it a row per
// statistics compared: each shard's own, the cluster's and, with
// StaleWeeks, the cluster's as published before the later week's split.
func (e *evaluation) buildRows(ctx context.Context) error {
	for _, part := range e.opts.Partitions {
		set, err := e.buildSplit(ctx, string(part), part, e.pages)
		if err != nil {
			return err
		}
		for _, st := range []fanout.Statistics{fanout.Local, fanout.Global} {
			e.rows = append(e.rows, &Row{Partition: part, Statistics: st, set: set})
		}
		if e.later != nil {
			now, err := e.buildSplit(ctx, string(part)+"-later", part, e.laterPages)
			if err != nil {
				return err
			}
			e.rows = append(e.rows, &Row{Partition: part, Statistics: fanout.Global, StaleWeeks: e.cfg.StaleWeeks, set: staleSet(set, now)})
		}
	}
	for _, row := range e.rows {
		row.ShardPages, row.MinOverlap, row.Hist = row.set.pages, 1, make([]int, e.cfg.Depth+1)
		row.DFTableWords, row.DFTableBytes = row.set.words/e.cfg.Shards, row.set.size/e.cfg.Shards
	}
	return nil
}

// staleSet is the split now with each node's statistics taken from its
// counterpart in published, the earlier week's split, as a periodic
// exchange would give them; the df table sizes are published's, the
// tables that exchange would have sent.
func staleSet(published, now *shardSet) *shardSet {
	stale := &shardSet{ixs: now.ixs, meas: now.meas, pages: now.pages, words: published.words, size: published.size}
	for i, n := range now.nodes {
		stale.nodes = append(stale.nodes, fanout.Node{Name: n.Name, Shard: staleStats{Shard: n.Shard, published: published.ixs[i]}})
	}
	return stale
}

// ask asks each query of the single indexes and of every row's split and
// adds the comparison to the row. Queries the single index refuses are
// counted in sum.Refused and compared by no row; any other failure ends
// the run.
func (e *evaluation) ask(ctx context.Context, queries []querylog.Query, sum *Summary) error {
	limits := e.opts.Index.Limits()
	e.p.Stage("ask", len(queries), 1, "query run")
	for _, lq := range queries {
		if err := ctx.Err(); err != nil {
			return err
		}
		e.step()
		q, err := index.ParseQuery(lq.Text, limits)
		if err != nil {
			sum.Refused++
			continue
		}
		want, _, err := e.single.Retrieve(ctx, q, e.cfg.Depth)
		if err != nil {
			var qe *index.QueryError
			if errors.As(err, &qe) {
				sum.Refused++
				continue
			}
			return err
		}
		var wantLater []index.Hit
		if e.later != nil {
			if wantLater, _, err = e.later.Retrieve(ctx, q, e.cfg.Depth); err != nil {
				return err
			}
		}
		for _, row := range e.rows {
			rowWant := want
			if row.StaleWeeks > 0 {
				rowWant = wantLater
			}
			if err := e.compare(ctx, row, q, lq.Text, rowWant); err != nil {
				return err
			}
		}
	}
	return nil
}

// compare asks q of row's split through fanout.Search, the code serve
// --cluster runs, and adds its top k, rounds and coordination bytes to
// row against want, the single index's top k. An error or a partial
// answer ends the run.
func (e *evaluation) compare(ctx context.Context, row *Row, q index.Query, text string, want []index.Hit) error {
	set := row.set
	bytes0 := set.bytes()
	res, err := fanout.Search(ctx, set.nodes, q, e.cfg.Depth, fanout.Options{
		Retrieval: e.opts.Index.Retrieval, Statistics: row.Statistics, Timeout: e.cfg.Timeout})
	if err != nil {
		return fmt.Errorf("fanouteval: %s/%s %q: %w", row.Partition, row.Statistics, text, err)
	}
	if res.Partial() {
		return fmt.Errorf("fanouteval: %s/%s %q: partial: %v", row.Partition, row.Statistics, text, res.Missing)
	}
	row.add(want, res.Ranked, res.Rounds, set.bytes()-bytes0)
	return nil
}

// bytes is the JSON size of every request and answer s's shards have
// counted so far; its difference across a search is that search's
// coordination.
func (s *shardSet) bytes() int64 {
	var n int64
	for _, m := range s.meas {
		n += m.Bytes.Load()
	}
	return n
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
