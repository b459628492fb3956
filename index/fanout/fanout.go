package fanout

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"slices"
	"sync"
	"time"

	"github.com/deltaq/deltaq/index"
)

// Shard is one index of the cluster as the coordinator asks it; an
// *index.Index is one in the process, a remote node another (package
// cluster).
type Shard interface {
	Stats(ctx context.Context, q index.Query, words []string) (index.MatchStats, error)
	Feedback(ctx context.Context, q index.Query, gs *index.MatchStats, k int) (index.Feedback, error)
	MatchShard(ctx context.Context, sq index.ShardQuery) (index.ShardResult, error)
}

// Node is a named shard.
type Node struct {
	Name  string
	Shard Shard
}

// Statistics says which statistics the shards score with.
type Statistics int

const (
	// Global: the cluster's, gathered for each query (exact).
	Global Statistics = iota
	// Local: each shard's own, as independent searches merged would be.
	Local
)

func (s Statistics) String() string {
	if s == Local {
		return "local"
	}
	return "global"
}

// Options tune a search.
type Options struct {
	// Retrieval is the searcher's configuration, the same on every node.
	Retrieval index.RetrievalConfig
	// Statistics: Global (default) or Local.
	Statistics Statistics
	// Timeout bounds each node's answer in each round; 0 = only ctx.
	Timeout time.Duration
}

// Result is a fanned-out search's answer.
type Result struct {
	Ranked []index.Ranked // best first, ties by URL
	Total  int            // qualifying pages over the nodes that answered
	// Missing names the nodes that did not answer a round (timeout or
	// error), with why; their pages are absent and Ranked is partial.
	Missing []Failure
	Rounds  int // request rounds (each to every node still answering)
}

// Partial reports whether some node did not answer.
func (r Result) Partial() bool { return len(r.Missing) > 0 }

// Failure is a node that did not answer.
type Failure struct {
	Node string
	Err  error
}

func (f Failure) String() string { return f.Node + ": " + f.Err.Error() }

// ErrNoNodes is returned when no node answered.
var ErrNoNodes = errors.New("fanout: no node answered")

// Search asks nodes for q and merges their best limit pages.
func Search(ctx context.Context, nodes []Node, q index.Query, limit int, opts Options) (Result, error) {
	if limit < 0 {
		return Result{}, fmt.Errorf("fanout: limit = %d: must be >= 0", limit)
	}
	if len(nodes) == 0 {
		return Result{}, ErrNoNodes
	}
	s := &search{opts: opts, live: slices.Clone(nodes)}
	sq := index.ShardQuery{Query: q, Limit: limit}
	if opts.Statistics == Global {
		gs, err := s.stats(ctx, q, nil)
		if err != nil {
			return s.res, err
		}
		sq.Stats = &gs
		if index.MatchFeedback(opts.Retrieval, len(gs.DF)) {
			if sq.Terms, err = s.expand(ctx, q, &gs); err != nil {
				return s.res, err
			}
		}
	}
	results := make([]index.ShardResult, len(s.live))
	err := s.round(ctx, func(ctx context.Context, i int, sh Shard) (err error) {
		results[i], err = sh.MatchShard(ctx, sq)
		return err
	})
	if err != nil {
		return s.res, err
	}
	var answered []index.ShardResult
	for i, n := range s.live {
		if n.Shard != nil {
			answered = append(answered, results[i])
		}
	}
	s.res.Ranked, s.res.Total = index.MergeShards(opts.Retrieval, answered, limit)
	return s.res, nil
}

// search is one query's state: the nodes still answering (a node that
// failed a round has a nil Shard and is asked nothing more).
type search struct {
	opts Options
	live []Node
	res  Result
}

// stats gathers and sums the nodes' statistics for q's words and words.
func (s *search) stats(ctx context.Context, q index.Query, words []string) (index.MatchStats, error) {
	parts := make([]index.MatchStats, len(s.live))
	err := s.round(ctx, func(ctx context.Context, i int, sh Shard) (err error) {
		parts[i], err = sh.Stats(ctx, q, words)
		return err
	})
	var gs index.MatchStats
	for i, n := range s.live {
		if n.Shard != nil {
			gs.Add(parts[i])
		}
	}
	return gs, err
}

// expand runs RM3 over the cluster: each node's best feedback_docs pages
// scored with gs, the relevance model of the best of all, the df of its
// words new to gs (added to gs), and the query it expands to. It returns
// nil when the searcher does not expand q.
func (s *search) expand(ctx context.Context, q index.Query, gs *index.MatchStats) ([]index.QueryTerm, error) {
	k := s.opts.Retrieval.FeedbackDocs
	parts := make([]index.Feedback, len(s.live))
	err := s.round(ctx, func(ctx context.Context, i int, sh Shard) (err error) {
		if parts[i], err = sh.Feedback(ctx, q, gs, k); err != nil {
			return err
		}
		return parts[i].Validate() // a node sending malformed pages is dropped as one that failed
	})
	if err != nil {
		return nil, err
	}
	var terms []index.QueryTerm
	var docs []index.FeedbackDoc
	for i, n := range s.live {
		if n.Shard == nil {
			continue
		}
		if !parts[i].Expand {
			return nil, nil
		}
		terms = parts[i].Terms
		docs = append(docs, parts[i].Docs...)
	}
	slices.SortFunc(docs, func(a, b index.FeedbackDoc) int {
		if c := cmp.Compare(b.Score, a.Score); c != 0 {
			return c
		}
		return cmp.Compare(a.URL, b.URL)
	})
	model := index.NewFeedbackModel(s.opts.Retrieval, docs)
	var added []string
	for _, w := range model.Words() {
		if _, ok := gs.DF[w]; !ok {
			added = append(added, w)
		}
	}
	if len(added) > 0 {
		more, err := s.stats(ctx, index.Query{}, added)
		if err != nil {
			return nil, err
		}
		for _, w := range added {
			gs.DF[w] = more.DF[w]
		}
	}
	terms = model.ExpandTerms(s.opts.Retrieval, terms, *gs)
	for i := range terms {
		terms[i].DF = gs.DF[terms[i].Word]
	}
	return terms, nil
}

// round calls ask on every live node at once, each under the per-node
// timeout; a node that fails is recorded in Missing and dropped. It
// fails only when no node is left, or with ctx's error.
func (s *search) round(ctx context.Context, ask func(ctx context.Context, i int, sh Shard) error) error {
	s.res.Rounds++
	errs := make([]error, len(s.live))
	var wg sync.WaitGroup
	for i, n := range s.live {
		if n.Shard == nil {
			continue
		}
		wg.Go(func() {
			nctx, cancel := ctx, context.CancelFunc(func() {})
			if s.opts.Timeout > 0 {
				nctx, cancel = context.WithTimeout(ctx, s.opts.Timeout)
			}
			defer cancel()
			errs[i] = ask(nctx, i, n.Shard)
		})
	}
	wg.Wait()
	if err := ctx.Err(); err != nil {
		return err
	}
	left := 0
	for i, err := range errs {
		if err != nil {
			var qe *index.QueryError
			if errors.As(err, &qe) {
				return err // the query itself is bad: every node says so
			}
			s.res.Missing = append(s.res.Missing, Failure{Node: s.live[i].Name, Err: err})
			s.live[i].Shard = nil
		}
		if s.live[i].Shard != nil {
			left++
		}
	}
	if left == 0 {
		return fmt.Errorf("%w: %v", ErrNoNodes, s.res.Missing)
	}
	return nil
}

// SameUpToTies reports whether a and b, two rankings of the same query,
// have the same scores rank by rank and the same pages, except pages tied
// at the last score: one index cuts such a tie by document number, which
// Bleve assigns within a batch in no fixed order and a merge cannot know.
func SameUpToTies(a, b []index.Ranked) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i].Score != b[i].Score {
			return false
		}
		if a[i].URL != b[i].URL && a[i].Score != a[len(a)-1].Score {
			return false
		}
	}
	return true
}
