package ireval

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"maps"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/deltaq/deltaq/eval/paired"
	"github.com/deltaq/deltaq/eval/report"
	"github.com/deltaq/deltaq/eval/trec"
	"github.com/deltaq/deltaq/index"
	"github.com/deltaq/deltaq/internal/atomicfile"
	"github.com/deltaq/deltaq/internal/progress"
	"github.com/deltaq/deltaq/ranking"
)

// Options are one evaluation's inputs.
type Options struct {
	// Retriever and Stats are what `deltaq serve` gives its
	// ranking.Searcher: the index behind the query syntax, and the
	// popularity statistics.
	Retriever ranking.Retriever
	Stats     ranking.StatsReader
	// Ranking is the configured ranking; the variants are derived from it.
	Ranking ranking.Config
	// Secret keys the promotion seeds (fixed, so a run is reproducible).
	Secret []byte
	Topics []trec.Topic
	Qrels  trec.Qrels
	// Depth is how many results are kept per topic (at least 100, for
	// R@100; at most ranking.candidates).
	Depth int
	// Users is how many simulated users ask each topic under promotion.
	Users int
	// Bare, if set, is evaluated too, as the baseline.
	Bare *Bare
	// Header opens report.md (what was evaluated, on which index).
	Header string
	Logger *slog.Logger
}

// Variant is one ranking evaluated.
type Variant struct {
	Name        string
	Description string
	Mean        trec.Measures
	// SD is the standard deviation of the means over the simulated users
	// (zero without promotion).
	SD trec.Measures
	// Topics are the measures of each judged topic, means over the
	// simulated users.
	Topics  map[string]trec.Measures
	Refused []string // topics the searcher refused, sorted
	// Unanswered are the topics asked and answered with no page (the first
	// user's), sorted: scored 0, they have no line in the run file, which
	// trec_eval then scores only under -c.
	Unanswered []string
}

// Summary is the evaluation's result.
type Summary struct {
	Variants []Variant // bare (if evaluated), relevance, blend, served
	Judged   int       // topics in the qrels (the means are over them)
	Partial  string    // why the report is partial; "" when complete
	Asked    int       // topics asked
	Took     time.Duration
}

// Variant names.
const (
	BareBM25  = "bare-bm25"
	Relevance = "relevance"
	Blend     = "blend"
	Served    = "served"
)

// MaxUsers bounds Options.Users: every topic is searched once per
// simulated user, and the mean's spread over users (the report's SD)
// shrinks as 1/√users, to about 3 % of one user's at 1,000.
const MaxUsers = 1000

// CheckUsers reports whether n simulated users are within [1, MaxUsers].
func CheckUsers(n int) error {
	if n < 1 || n > MaxUsers {
		return fmt.Errorf("users = %d: must be in [1, %d]", n, MaxUsers)
	}
	return nil
}

// Run evaluates the variants and writes the report into outDir; w shows
// each variant's progress (a *progress.Tracker, or any writer) and means.
func Run(ctx context.Context, opts Options, outDir string, w io.Writer) (*Summary, error) {
	e := &evaluation{opts: opts, outDir: outDir, start: time.Now(), track: progress.From(w)}
	if err := opts.check(); err != nil {
		return nil, err
	}
	if err := os.MkdirAll(outDir, 0o755); err != nil {
		return nil, fmt.Errorf("ireval: %w", err)
	}
	e.sum = &Summary{Judged: len(opts.Qrels), Asked: len(opts.Topics)}
	if opts.Bare != nil {
		if err := e.bare(ctx); err != nil {
			return nil, err
		}
	}
	for _, sp := range specs(opts) {
		partial, err := e.variant(ctx, sp)
		if partial {
			return e.sum, err
		}
		if err != nil {
			return nil, err
		}
	}
	e.sum.Took = time.Since(e.start)
	if err := write(e.sum, opts, outDir); err != nil {
		return nil, err
	}
	return e.sum, nil
}

// check reports the first of opts' inputs an evaluation cannot run on.
func (opts Options) check() error {
	if opts.Depth < 100 || opts.Depth > opts.Ranking.Candidates {
		return fmt.Errorf("ireval: depth = %d: must be in [100, ranking.candidates = %d] (R@100 needs 100)", opts.Depth, opts.Ranking.Candidates)
	}
	if err := CheckUsers(opts.Users); err != nil {
		return fmt.Errorf("ireval: %w", err)
	}
	if len(opts.Topics) == 0 {
		return errors.New("ireval: no topics")
	}
	if !slices.ContainsFunc(opts.Topics, func(t trec.Topic) bool { return opts.Qrels[t.ID] != nil }) {
		// Every mean would be over the qrels' topics, none of them asked:
		// a report of zeros that looks like a result.
		ids := slices.Sorted(maps.Keys(opts.Qrels))
		return fmt.Errorf("ireval: none of the %d topics (ids such as %q) has a judgment in the qrels (topics such as %q)",
			len(opts.Topics), opts.Topics[0].ID, ids[:min(3, len(ids))])
	}
	return nil
}

// spec is one searcher variant to evaluate: its ranking, how many
// simulated users ask each topic, and the run file it writes.
type spec struct {
	name, desc string
	cfg        ranking.Config
	users      int
	file       string
}

// specs are the searcher variants derived from opts.Ranking, in report
// order: relevance, blend, served. Without promotion every user would see
// the same list, so served is asked by one.
func specs(opts Options) []spec {
	relevance := opts.Ranking
	relevance.Order, relevance.BlendWeight, relevance.Promotion.Rule = ranking.OrderBlend, 0, ranking.RuleNone
	blend := opts.Ranking
	blend.Promotion.Rule = ranking.RuleNone
	sps := []spec{
		{Relevance, "best-match relevance alone (blend weight 0, promotion off)", relevance, 1, "run-relevance.txt"},
		{Blend, fmt.Sprintf("order %s, blend weight %g, %s popularity; promotion off", blend.Order, blend.BlendWeight, blend.Popularity), blend, 1, "run-blend.txt"},
		{Served, servedDescription(opts.Ranking), opts.Ranking, opts.Users, "run.txt"},
	}
	if opts.Ranking.Promotion.Rule == ranking.RuleNone {
		sps[2].users = 1
	}
	return sps
}

// evaluation is one Run's state shared by its steps: the inputs, the
// progress shown and the summary the variants are added to.
type evaluation struct {
	opts   Options
	outDir string
	start  time.Time
	track  *progress.Tracker
	sum    *Summary
}

// bare evaluates the bare-Bleve baseline, writes run-bare.txt and adds
// the variant to the summary.
func (e *evaluation) bare(ctx context.Context) error {
	opts := e.opts
	run := trec.Run{}
	e.track.Stage(BareBM25, len(opts.Topics), 1, "topic")
	for _, t := range opts.Topics {
		e.track.Step()
		e.track.RunDone()
		hits, err := opts.Bare.Search(ctx, t.Query, opts.Depth)
		if err != nil {
			return err
		}
		run[t.ID] = hits
	}
	res := trec.Evaluate(run, opts.Qrels)
	v := Variant{Name: BareBM25, Description: "bare Bleve 2.6.1: one field, Bleve's BM25, words ORed (the data README's anchor)", Mean: res.Mean, Topics: res.Topics,
		Unanswered: unanswered(run)}
	if err := atomicfile.Write(filepath.Join(e.outDir, "run-bare.txt"), func(w io.Writer) error { return run.Write(w, "bare-bm25") }); err != nil {
		return err
	}
	e.sum.Variants = append(e.sum.Variants, v)
	fmt.Fprintf(e.track, "%-9s %s\n", v.Name, v.Mean)
	return nil
}

// variant evaluates sp over its simulated users, writes the first user's
// run file and adds the variant to the summary. Interrupted, it writes the
// partial report and returns partial true with the error to return beside
// the summary.
func (e *evaluation) variant(ctx context.Context, sp spec) (partial bool, err error) {
	opts := e.opts
	s, err := ranking.NewSearcher(sp.cfg, opts.Retriever, opts.Stats, opts.Secret, opts.Logger)
	if err != nil {
		return false, err
	}
	v := Variant{Name: sp.name, Description: sp.desc}
	e.track.Stage("ir "+sp.name, sp.users*len(opts.Topics), 1, "topic")
	var perUser []trec.Measures
	var topics []map[string]trec.Measures // each user's
	for u := range sp.users {
		user := fmt.Sprintf("eval-%d", u+1)
		run, refused, searched, err := ask(ctx, s, user, opts.Topics, opts.Depth, e.track)
		if err != nil && ctx.Err() != nil {
			v.Refused = refused
			return e.interrupted(v, run, sp.name, u, searched, err)
		}
		if err != nil {
			return false, err
		}
		res := trec.Evaluate(run, opts.Qrels)
		perUser = append(perUser, res.Mean)
		topics = append(topics, res.Topics)
		if u == 0 {
			v.Refused, v.Unanswered = refused, unanswered(run)
			if err := atomicfile.Write(filepath.Join(e.outDir, sp.file), func(w io.Writer) error { return run.Write(w, "deltaq-"+sp.name) }); err != nil {
				return false, err
			}
		}
	}
	v.Mean, v.SD = meanSD(perUser)
	v.Topics = meanTopics(topics)
	e.sum.Variants = append(e.sum.Variants, v)
	fmt.Fprintf(e.track, "%-9s %s  (%d refused, %d users)\n", v.Name, v.Mean, len(v.Refused), sp.users)
	return false, nil
}

// interrupted scores the topics user u+1 searched of variant name before
// err stopped it, adds v with those measures to the summary and writes the
// partial report. It returns partial true and the error to return beside
// the summary, or false and the report's write error.
func (e *evaluation) interrupted(v Variant, run trec.Run, name string, u, searched int, err error) (bool, error) {
	opts := e.opts
	judged := trec.Qrels{}
	for _, t := range opts.Topics[:searched] {
		if q, ok := opts.Qrels[t.ID]; ok {
			judged[t.ID] = q
		}
	}
	res := trec.Evaluate(run, judged)
	v.Mean, v.Topics = res.Mean, res.Topics
	e.sum.Variants = append(e.sum.Variants, v)
	e.sum.Partial = fmt.Sprintf("**Partial: interrupted after %d of %d topics of variant %s (user %d); its means are over the topics searched; later variants did not run.**",
		searched, len(opts.Topics), name, u+1)
	e.sum.Took = time.Since(e.start)
	if werr := write(e.sum, opts, e.outDir); werr != nil {
		return false, werr
	}
	return true, fmt.Errorf("ireval: interrupted: %d of %d topics searched (variant %s), partial report in %s: %w",
		searched, len(opts.Topics), name, e.outDir, err)
}

// variant returns the variant named name.
func (s *Summary) variant(name string) Variant {
	for _, v := range s.Variants {
		if v.Name == name {
			return v
		}
	}
	return Variant{}
}

func servedDescription(c ranking.Config) string {
	if c.Promotion.Rule == ranking.RuleNone {
		return fmt.Sprintf("as configured: order %s, blend weight %g; promotion off", c.Order, c.BlendWeight)
	}
	return fmt.Sprintf("as configured: order %s, blend weight %g; promotion %s, k = %d, r = %g",
		c.Order, c.BlendWeight, c.Promotion.Rule, c.Promotion.K, c.Promotion.R)
}

// ask runs every topic for user and returns the run (score = depth+1−rank)
// and the topics refused. Interrupted, it returns what it has, the
// number of topics searched and ctx's error.
func ask(ctx context.Context, s *ranking.Searcher, user string, topics []trec.Topic, depth int, track *progress.Tracker) (trec.Run, []string, int, error) {
	run := trec.Run{}
	var refused []string
	for k, t := range topics {
		if err := ctx.Err(); err != nil {
			return run, refused, k, err
		}
		track.Step()
		track.RunDone()
		page, err := s.Search(ctx, user, t.Query, 1, depth)
		if err != nil {
			if ctx.Err() != nil {
				return run, refused, k, ctx.Err()
			}
			if refusal(err) {
				refused = append(refused, t.ID)
				continue
			}
			return nil, nil, k, fmt.Errorf("ireval: topic %s: %w", t.ID, err)
		}
		hits := make([]trec.Hit, len(page.Results))
		for i, r := range page.Results {
			hits[i] = trec.Hit{Doc: r.URL, Score: float64(depth + 1 - r.Rank)}
		}
		run[t.ID] = hits
	}
	slices.Sort(refused)
	return run, refused, len(topics), nil
}

// unanswered are run's topics with no page, sorted.
func unanswered(run trec.Run) []string {
	var out []string
	for id, hits := range run {
		if len(hits) == 0 {
			out = append(out, id)
		}
	}
	slices.Sort(out)
	return out
}

// refusal tells a refused query (the user's input) from a failure.
func refusal(err error) bool {
	var qe *index.QueryError
	return errors.Is(err, ranking.ErrBadRequest) || errors.As(err, &qe)
}

// fields are m's measures, to compute with each alike.
func fields(m *trec.Measures) []*float64 {
	return []*float64{&m.NDCG10, &m.MAP, &m.MRR, &m.P10, &m.R100, &m.Judged10}
}

// meanTopics is each topic's measures averaged over the users' maps, as
// the first user's plus the mean of each user's difference from it: users
// who all agree give that value exactly, so the pairing finds no
// difference where there is none.
func meanTopics(perUser []map[string]trec.Measures) map[string]trec.Measures {
	out := map[string]trec.Measures{}
	if len(perUser) == 0 {
		return out
	}
	n := float64(len(perUser))
	for id, first := range perUser[0] {
		var dev trec.Measures
		for _, topics := range perUser {
			m := topics[id]
			for k, p := range fields(&m) {
				*fields(&dev)[k] += *p - *fields(&first)[k]
			}
		}
		mean := first
		for k, p := range fields(&dev) {
			*fields(&mean)[k] += *p / n
		}
		out[id] = mean
	}
	return out
}

func meanSD(ms []trec.Measures) (mean, sd trec.Measures) {
	n := float64(len(ms))
	for i := range ms {
		for k, p := range fields(&ms[i]) {
			*fields(&mean)[k] += *p / n
		}
	}
	if len(ms) < 2 {
		return mean, sd
	}
	for i := range ms {
		for k, p := range fields(&ms[i]) {
			d := *p - *fields(&mean)[k]
			*fields(&sd)[k] += d * d / (n - 1)
		}
	}
	for _, p := range fields(&sd) {
		*p = math.Sqrt(*p)
	}
	return mean, sd
}

// write writes report.md, results.csv, topics.csv and the per-topic
// nDCG@10 plot.
func write(sum *Summary, opts Options, outDir string) error {
	tb := report.NewTable("Retrieval effectiveness (trec_eval 9 definitions, means over every judged topic)",
		"variant", "nDCG@10", "MAP", "MRR", "P@10", "R@100", "judged@10", "refused", "users")
	for _, v := range sum.Variants {
		users := 1
		if v.Name == Served && opts.Ranking.Promotion.Rule != ranking.RuleNone {
			users = opts.Users
		}
		tb.Add(v.Name, v.Mean.NDCG10, v.Mean.MAP, v.Mean.MRR, v.Mean.P10, v.Mean.R100, v.Mean.Judged10, len(v.Refused), users)
	}
	for _, v := range sum.Variants {
		tb.Note("%s: %s.", v.Name, v.Description)
	}
	blend, served := sum.variant(Blend), sum.variant(Served)
	if served.Name != "" {
		tb.Note("Promotion's cost (blend − served): nDCG@10 %.4f, MAP %.4f, P@10 %.4f; served's standard deviation over users: nDCG@10 %.4f, MAP %.4f.",
			blend.Mean.NDCG10-served.Mean.NDCG10, blend.Mean.MAP-served.Mean.MAP, blend.Mean.P10-served.Mean.P10, served.SD.NDCG10, served.SD.MAP)
	}
	tb.Note("judged@10: the share of the first 10 places holding a page the qrels judge. An unjudged page counts as not relevant, so a variant that places pages the judgements' pool did not hold is scored down by that alone: where two variants' judged@10 differ, their difference in the other measures is partly the pool's.")
	tb.Note("%d topics asked, %d judged; a refused or unanswered judged topic scores 0 (trec_eval -c). Refused: %v. Judged but not asked (scored 0): %v.",
		sum.Asked, sum.Judged, refusedList(sum.Variants[len(sum.Variants)-1].Refused), refusedList(notAsked(opts)))
	none := make([]string, len(sum.Variants))
	for i, v := range sum.Variants {
		none[i] = v.Name + " " + refusedList(v.Unanswered)
	}
	tb.Note("Answered with no page (scored 0; the run files have no line for them, so trec_eval counts them only with -c): %s.", strings.Join(none, ", "))
	tb.Note("Run files: run-bare.txt keeps Bleve's scores (ties: trec_eval orders them by URL descending); the others have score = depth+1−rank (depth %d), so trec_eval's order (score descending, ties by docno descending) is the served order, without ties; the searcher itself breaks equal scores by URL ascending.", opts.Depth)
	header := opts.Header
	if sum.Partial != "" {
		header += "\n\n" + sum.Partial
	}
	tables := []*report.Table{tb}
	if sum.Partial == "" { // a partial variant's topics are not all the others'
		tables = append(tables, pairedTable(sum))
	}
	if err := report.WriteMarkdown(filepath.Join(outDir, "report.md"), header, tables...); err != nil {
		return err
	}
	if err := tb.WriteCSV(filepath.Join(outDir, "results.csv")); err != nil {
		return err
	}
	if err := topicsTable(sum).WriteCSV(filepath.Join(outDir, "topics.csv")); err != nil {
		return err
	}
	return plotTopics(sum, filepath.Join(outDir, "ndcg"))
}

// signFlips is how many random sign assignments each p-value is estimated
// from: its sampling error is at most 0.005.
const signFlips = 10000

// comparisons are the variant pairs the report tells apart, each the
// step from the second to the first: what deltaq's retrieval adds to bare
// BM25, what popularity adds to it, what promotion costs.
var comparisons = [][2]string{{Relevance, BareBM25}, {Blend, Relevance}, {Served, Blend}}

// pairedTable is each comparison's difference topic by topic, in nDCG@10
// and MAP: whether a difference of means stands out from the topics'
// noise.
func pairedTable(sum *Summary) *report.Table {
	tb := report.NewTable("Paired differences over the judged topics",
		"comparison", "measure", "mean difference", "standard error", "difference / s.e.", "p (randomization)", "topics ahead", "topics behind", "topics")
	// One fixed stream: the same runs give the same p-values.
	rng := rand.New(rand.NewPCG(1, 1))
	for _, c := range comparisons {
		a, b := sum.variant(c[0]), sum.variant(c[1])
		if a.Name == "" || b.Name == "" {
			continue
		}
		ids := slices.Sorted(maps.Keys(a.Topics))
		for _, m := range []struct {
			name string
			of   func(trec.Measures) float64
		}{{"nDCG@10", func(m trec.Measures) float64 { return m.NDCG10 }}, {"MAP", func(m trec.Measures) float64 { return m.MAP }}} {
			x, y := make([]float64, len(ids)), make([]float64, len(ids))
			for i, id := range ids {
				x[i], y[i] = m.of(a.Topics[id]), m.of(b.Topics[id])
			}
			d := paired.Compare(x, y)
			p := paired.SignFlipP(x, y, signFlips, rng)
			tb.Add(a.Name+" − "+b.Name, m.name, fmt.Sprintf("%+.4f", d.Mean), fmt.Sprintf("%.4f", d.StdErr),
				fmt.Sprintf("%+.1f", d.Ratio()), fmt.Sprintf("%.4f", p), d.Ahead, d.Behind, d.N)
		}
	}
	tb.Note("Both variants answer the same topics, so their measures are paired topic by topic; the standard error is the per-topic differences' standard deviation over √topics. A difference within about two standard errors could be which topics were judged. p is two-sided, by a paired randomization test over %d random sign assignments of the per-topic differences (its floor is 1/%d). served's per-topic measures are the means over its users; topics.csv has every topic's measures.", signFlips, signFlips+1)
	return tb
}

// topicsTable is every variant's measures on every judged topic.
func topicsTable(sum *Summary) *report.Table {
	tb := report.NewTable("Measures per topic", "topic", "variant", "nDCG@10", "MAP", "MRR", "P@10", "R@100", "judged@10")
	var ids []string
	if len(sum.Variants) > 0 {
		ids = slices.Sorted(maps.Keys(sum.Variants[0].Topics))
	}
	for _, id := range ids {
		for _, v := range sum.Variants {
			if m, ok := v.Topics[id]; ok {
				tb.Add(id, v.Name, m.NDCG10, m.MAP, m.MRR, m.P10, m.R100, m.Judged10)
			}
		}
	}
	return tb
}

func refusedList(ids []string) string {
	if len(ids) == 0 {
		return "none"
	}
	return fmt.Sprint(ids)
}

// plotTopics draws each variant's per-topic nDCG@10, topics ordered by the
// relevance variant's value.
func plotTopics(sum *Summary, path string) error {
	rel := sum.variant(Relevance).Topics
	ids := make([]string, 0, len(rel))
	for id := range rel {
		ids = append(ids, id)
	}
	slices.SortFunc(ids, func(a, b string) int {
		if c := cmp.Compare(rel[b].NDCG10, rel[a].NDCG10); c != 0 {
			return c
		}
		return cmp.Compare(a, b)
	})
	p := report.Plot{Title: "nDCG@10 per topic", X: "topic (by relevance-only nDCG@10)", Y: "nDCG@10"}
	for _, v := range sum.Variants {
		s := report.Series{Name: v.Name, Style: report.Points}
		for i, id := range ids {
			s.Add(float64(i+1), v.Topics[id].NDCG10)
		}
		p.Series = append(p.Series, s)
	}
	return p.Write(path)
}

// notAsked are the qrels' topics that no topic of opts asks, sorted: each
// scores 0 in every mean.
func notAsked(opts Options) []string {
	asked := make(map[string]bool, len(opts.Topics))
	for _, t := range opts.Topics {
		asked[t.ID] = true
	}
	var out []string
	for id := range opts.Qrels {
		if !asked[id] {
			out = append(out, id)
		}
	}
	slices.Sort(out)
	return out
}
