package fanout_test

import (
	"context"
	"errors"
	"fmt"
	"math"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/deltaq/deltaq/crawler/extract"
	"github.com/deltaq/deltaq/eval/archive"
	"github.com/deltaq/deltaq/eval/fanouteval"
	"github.com/deltaq/deltaq/index"
	"github.com/deltaq/deltaq/index/fanout"
	"github.com/deltaq/deltaq/index/indextest"
	"github.com/deltaq/deltaq/internal/datasets"
	"github.com/deltaq/deltaq/internal/querylog"
	"github.com/deltaq/deltaq/repo"
)

// digitalgov returns the first n pages of week 0 of digitalgov-2023.
func digitalgov(tb testing.TB, n int) []fanouteval.Page {
	tb.Helper()
	a, err := archive.Open(datasets.Path(tb, "archives", "digitalgov-2023"))
	if err != nil {
		tb.Fatal(err)
	}
	pages, err := fanouteval.ExtractWeek([]*archive.Archive{a}, 0, extract.Limits{MaxLinks: 1000, MaxTextBytes: 1 << 20, MaxDepth: 512, MaxNodes: 200000})
	if err != nil {
		tb.Fatal(err)
	}
	return pages[:min(n, len(pages))]
}

// openIndex indexes pages in a fresh repository and index under dir.
func openIndex(tb testing.TB, dir string, cfg index.Config, pages []fanouteval.Page) *index.Index {
	tb.Helper()
	ix, close, err := fanouteval.Build(context.Background(), dir, cfg, repo.Config{VersionsKept: 3, FetchLogKept: 4, StatsKept: 16, CacheBytes: 8 << 20},
		pages, time.Date(2023, 1, 30, 12, 0, 0, 0, time.UTC), nil)
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { close() })
	return ix
}

// cluster3 is one index over pages and three over a split of them by URL
// (every shard a sample of the host: the statistics differ most).
func cluster3(tb testing.TB, cfg index.Config, pages []fanouteval.Page) (*index.Index, []fanout.Node) {
	tb.Helper()
	dir := tb.TempDir()
	single := openIndex(tb, filepath.Join(dir, "single"), cfg, pages)
	split := make([][]fanouteval.Page, 3)
	for _, p := range pages {
		s := fanouteval.ByURL.NodeOf(p, 3, 0)
		split[s] = append(split[s], p)
	}
	var nodes []fanout.Node
	for s, part := range split {
		if len(part) == 0 {
			tb.Fatalf("shard %d got no page", s)
		}
		nodes = append(nodes, fanout.Node{Name: fmt.Sprint("n", s), Shard: openIndex(tb, filepath.Join(dir, fmt.Sprint(s)), cfg, part)})
	}
	return single, nodes
}

// queries are trec-mq queries of every kind the searcher treats apart:
// short (AND with the OR fallback), long (RM3), and the syntax's
// phrases, exclusions, site: and stop words alone.
func queries(tb testing.TB, n int) []string {
	tb.Helper()
	qs, err := querylog.Load(datasets.Path(tb, "querylogs", "trec-mq.tsv"), querylog.FormatTopics)
	if err != nil {
		tb.Fatal(err)
	}
	var out []string
	long := 0
	for _, q := range qs {
		if len(out) == n {
			break
		}
		if len(strings.Fields(q.Text)) > 4 {
			long++
		} else if long < len(out)/3 {
			continue // keep a third of long ones
		}
		out = append(out, q.Text)
	}
	return append(out, `"plain language" guidelines`, `accessibility -section`, `search site:digitalgov-2023.test`,
		`the who`, `federal web design standards usability testing accessibility`)
}

func TestFanOutWithGlobalStatisticsIsOneIndex(t *testing.T) {
	pages := digitalgov(t, 900)
	for _, c := range []struct {
		name string
		edit func(*index.RetrievalConfig)
	}{
		{"with the default retrieval", func(*index.RetrievalConfig) {}},
		{"with the title and proximity components and RM3", func(r *index.RetrievalConfig) {
			r.TitleWeight, r.ProximityWeight, r.ProximityDepth = 0.5, 0.5, 20
			r.FeedbackDocs, r.FeedbackTerms, r.FeedbackWeight = 5, 20, 0.5
		}},
	} {
		t.Run(c.name, func(t *testing.T) {
			cfg := indextest.Config()
			cfg.Retrieval.MinResults = 10
			cfg.Retrieval.FeedbackDocs, cfg.Retrieval.FeedbackTerms, cfg.Retrieval.FeedbackWeight = 5, 20, 0.5
			// As the default: the expansion leaves out the words most
			// pages hold, by the cluster's df of the model's words.
			cfg.Retrieval.FeedbackMaxDF = 0.2
			c.edit(&cfg.Retrieval)
			single, nodes := cluster3(t, cfg, pages)
			ctx := t.Context()
			differLocal := 0
			qs := queries(t, 120)
			for _, text := range qs {
				q, err := index.ParseQuery(text, cfg.Limits())
				if err != nil {
					t.Fatal(err)
				}
				want, total, err := single.Retrieve(ctx, q, 10)
				if err != nil {
					t.Fatalf("%q: %v", text, err)
				}
				got, err := fanout.Search(ctx, nodes, q, 10, fanout.Options{Retrieval: cfg.Retrieval})
				if err != nil {
					t.Fatalf("%q: %v", text, err)
				}
				if got.Partial() {
					t.Fatalf("%q: partial: %v", text, got.Missing)
				}
				if got.Total != int(total) {
					t.Errorf("%q: total %d, one index %d", text, got.Total, total)
				}
				wantRanked := make([]index.Ranked, len(want))
				for i, h := range want {
					wantRanked[i] = index.Ranked{URL: h.URL, Score: h.Score}
				}
				if !fanout.SameUpToTies(got.Ranked, wantRanked) {
					t.Errorf("%q:\n fan-out %v\n one index %v", text, got.Ranked, wantRanked)
				}
				local, err := fanout.Search(ctx, nodes, q, 10, fanout.Options{Retrieval: cfg.Retrieval, Statistics: fanout.Local})
				if err != nil {
					t.Fatalf("%q: local: %v", text, err)
				}
				if !fanout.SameUpToTies(local.Ranked, wantRanked) {
					differLocal++
				}
			}
			// The statistics are what makes the difference: with each
			// shard's own, the merge is not one index's.
			if differLocal == 0 {
				t.Errorf("local statistics gave one index's ranking for all %d queries", len(qs))
			}
			t.Logf("%d queries; with local statistics %d rankings differ", len(qs), differLocal)
		})
	}
}

// silent is a node that never answers until its caller gives up.
type silent struct{}

func (silent) Stats(ctx context.Context, _ index.Query, _ []string) (index.MatchStats, error) {
	<-ctx.Done()
	return index.MatchStats{}, ctx.Err()
}

func (silent) Feedback(ctx context.Context, _ index.Query, _ *index.MatchStats, _ int) (index.Feedback, error) {
	<-ctx.Done()
	return index.Feedback{}, ctx.Err()
}

func (silent) MatchShard(ctx context.Context, _ index.ShardQuery) (index.ShardResult, error) {
	<-ctx.Done()
	return index.ShardResult{}, ctx.Err()
}

func TestANodeThatDoesNotAnswerGivesAPartialResult(t *testing.T) {
	cfg := indextest.Config()
	_, nodes := cluster3(t, cfg, digitalgov(t, 200))
	nodes = append(nodes, fanout.Node{Name: "mute", Shard: silent{}})
	q, err := index.ParseQuery("digital services", cfg.Limits())
	if err != nil {
		t.Fatal(err)
	}
	// The first search on a snapshot reads its postings: done before the
	// timed ones, whose bound is for the mute node.
	if _, err := fanout.Search(t.Context(), nodes[:3], q, 10, fanout.Options{Retrieval: cfg.Retrieval}); err != nil {
		t.Fatal(err)
	}
	for _, st := range []fanout.Statistics{fanout.Global, fanout.Local} {
		res, err := fanout.Search(t.Context(), nodes, q, 10, fanout.Options{Retrieval: cfg.Retrieval, Statistics: st, Timeout: 2 * time.Second})
		if err != nil {
			t.Fatalf("%s: %v", st, err)
		}
		if len(res.Missing) != 1 || res.Missing[0].Node != "mute" || !errors.Is(res.Missing[0].Err, context.DeadlineExceeded) {
			t.Fatalf("%s: missing %v, want the mute node, timed out", st, res.Missing)
		}
		if len(res.Ranked) == 0 {
			t.Errorf("%s: no results from the nodes that answered", st)
		}
	}
	// All nodes silent: an error, not a hang.
	_, err = fanout.Search(t.Context(), []fanout.Node{{Name: "mute", Shard: silent{}}}, q, 10, fanout.Options{Retrieval: cfg.Retrieval, Timeout: 10 * time.Millisecond})
	if !errors.Is(err, fanout.ErrNoNodes) {
		t.Fatalf("err = %v, want ErrNoNodes", err)
	}
}

func TestBadQueriesAreRefusedByTheShards(t *testing.T) {
	cfg := indextest.Config()
	_, nodes := cluster3(t, cfg, digitalgov(t, 100))
	_, err := fanout.Search(t.Context(), nodes, index.Query{Terms: []string{"..."}}, 10, fanout.Options{Retrieval: cfg.Retrieval})
	var qe *index.QueryError
	if !errors.As(err, &qe) {
		t.Fatalf("err = %v, want a *index.QueryError", err)
	}
	if _, err := fanout.Search(t.Context(), nodes, index.Query{Terms: []string{"web"}}, -1, fanout.Options{}); err == nil || !strings.Contains(err.Error(), "limit = -1") {
		t.Fatalf("err = %v, want limit = -1 refused", err)
	}
}

// garbled is a node whose feedback pages are garbled by edit.
type garbled struct {
	fanout.Shard
	edit func(*index.FeedbackDoc)
}

func (g garbled) Feedback(ctx context.Context, q index.Query, gs *index.MatchStats, k int) (index.Feedback, error) {
	fb, err := g.Shard.Feedback(ctx, q, gs, k)
	for i := range fb.Docs {
		g.edit(&fb.Docs[i])
	}
	return fb, err
}

// TestANodeSendingMalformedFeedbackIsDropped: a node whose RM3 feedback
// pages could not be modelled (a count missing, counts beyond the page's
// length, an absurd length, words out of order, a NaN score) is dropped
// as a node that failed, with the field named, and the others answer.
func TestANodeSendingMalformedFeedbackIsDropped(t *testing.T) {
	cfg := indextest.Config()
	cfg.Retrieval.FeedbackDocs, cfg.Retrieval.FeedbackTerms, cfg.Retrieval.FeedbackWeight = 5, 20, 0.5
	_, nodes := cluster3(t, cfg, digitalgov(t, 300))
	q, err := index.ParseQuery("federal web design standards usability testing accessibility", cfg.Limits())
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name, want string
		edit       func(*index.FeedbackDoc)
	}{
		{"a count missing", "counts (tfs)", func(d *index.FeedbackDoc) { d.TFs = d.TFs[:len(d.TFs)-1] }},
		{"a count of 4e9", "counts sum to", func(d *index.FeedbackDoc) { d.TFs[0] = 4e9 }},
		{"a length of 4e9", "len = 4000000000", func(d *index.FeedbackDoc) { d.Length, d.TFs[0] = 4e9, 4e9-d.Length }},
		{"words out of order", "must ascend", func(d *index.FeedbackDoc) { d.Words[0], d.Words[1] = d.Words[1], d.Words[0] }},
		{"a NaN score", "score = NaN", func(d *index.FeedbackDoc) { d.Score = math.NaN() }},
	} {
		t.Run(c.name, func(t *testing.T) {
			bad := slices.Clone(nodes)
			bad[1].Shard = garbled{Shard: nodes[1].Shard, edit: c.edit}
			res, err := fanout.Search(t.Context(), bad, q, 10, fanout.Options{Retrieval: cfg.Retrieval})
			if err != nil {
				t.Fatal(err)
			}
			if len(res.Missing) != 1 || res.Missing[0].Node != bad[1].Name || !strings.Contains(res.Missing[0].Err.Error(), c.want) {
				t.Fatalf("missing %v, want node %s refused with %q", res.Missing, bad[1].Name, c.want)
			}
			if len(res.Ranked) == 0 {
				t.Error("no results from the nodes that answered")
			}
		})
	}
}
