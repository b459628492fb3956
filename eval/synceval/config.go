package synceval

import (
	"errors"
	"fmt"
	"math"
	"slices"
	"strings"

	"github.com/deltaq/deltaq/crawler"
	"github.com/deltaq/deltaq/discovery"
	"github.com/deltaq/deltaq/frontier"
	"github.com/deltaq/deltaq/index"
	"github.com/deltaq/deltaq/internal/bounds"
	"github.com/deltaq/deltaq/internal/querylog"
	"github.com/deltaq/deltaq/repo"
)

// Config holds the settings of the synchronization evaluation; the
// defaults live in configs/default.yaml under "eval.sync".
type Config struct {
	// Archive is the archive directory replayed (--archive).
	Archive string `mapstructure:"archive"`
	// Log is the query log Q (--log) and LogFormat its format
	// (querylog.ParseFormat: auto, counts, raw or topics).
	Log       string `mapstructure:"log"`
	LogFormat string `mapstructure:"log_format"`
	// Policies are the re-fetch policies compared (frontier.Policies()).
	Policies []string `mapstructure:"policies"`
	// Budgets are the values of B swept: re-downloads per week (§4.7).
	Budgets []int `mapstructure:"budgets"`
	// Taus are the shingle thresholds τ tried for SBR and EBR; the best
	// per budget is reported (§4.7.3: τ ∈ {0.1, …, 1.0}).
	Taus []float64 `mapstructure:"taus"`
	// Pages chooses the live web: "persistent" keeps only the pages that
	// exist in every week, as the thesis's data sets do (§4.7), so that Q
	// measures re-downloading alone; "all" replays every page, and pages
	// created after week 0 then count as missing (a discovery problem,
	// chapter 3, which a re-download budget cannot fix).
	Pages string `mapstructure:"pages"`
	// History is what the policies estimate their per-page parameters
	// (λ, d(p), ΔQ_A) from: "own", from the run's own re-downloads only,
	// as a deployed crawler must (pages not yet re-downloaded take the
	// policy's prior); "whole", hindsight as thesis §4.7.2 has it for
	// every policy, from the whole archive as seen by the run that
	// re-downloads every page every week.
	History string `mapstructure:"history"`
	// Semantics is what a workload query means, for A(q, ·) and S(·, q):
	// "searcher", what `deltaq serve` answers (index/match.go: best-match
	// BM25 over deltaq's own statistics); "thesis", the query's terms
	// ANDed and scored by Bleve, as §4.7 approximates a multi-term query
	// (the index's statistics are then those of it compacted, every week,
	// so that they do not depend on merge timing).
	Semantics string `mapstructure:"semantics"`
	// Rerank is "incremental": a query is re-ranked only when a batch
	// touched its terms or, under the searcher's semantics, its kept
	// answer fell out of order (own.go); or "all": every query every
	// week, the slow reference the incremental results must equal.
	Rerank string `mapstructure:"rerank"`
	// Filter is the workload's relevance filter (§4.7): "knee" keeps the
	// queries whose summed week-0 score reaches the knee of the sorted
	// scores (knee.go); "none" keeps every query that matches a week-0
	// page.
	Filter string `mapstructure:"filter"`
	// MaxQueries caps the filtered workload by a weighted sample without
	// replacement (probability ∝ f_q, seeded by Seed); 0 keeps all.
	MaxQueries int `mapstructure:"max_queries"`
	// Seed seeds the workload sample: the same configuration gives the
	// same results (doc.go).
	Seed uint64 `mapstructure:"seed"`
	// Seeds is how many times a policy whose plans draw at random (deltaq
	// under frontier.exploration thompson or untried) is run at each
	// budget, with frontier.seed, frontier.seed + 1, …: its reported mean
	// Q is their mean, and its margins count how far the seeds' results
	// spread (target.go).
	Seeds int `mapstructure:"seeds"`
	// Splits, when set, sweep the split of B between re-crawl and OD-WIN
	// discovery (split.go): each entry a fixed discovery share of B in
	// [0, 1] (the policy's re-crawl gets the rest) or "adaptive"
	// (frontier.split.adaptive, starting from frontier.split.discovery).
	// Empty: re-crawl only, the thesis's setting. Needs pages "all".
	Splits []string `mapstructure:"splits"`
	// Forecast adds the run that re-fetches every page every week (B =
	// every URL of the archive), for the forecastability plot of fig. 4.3
	// and as the upper bound Q = 1. History "whole" runs it in any case.
	Forecast bool `mapstructure:"forecast"`
	// Refetches writes refetches.csv: every page each run re-fetched,
	// week by week, and whether the fetch found it changed, so that what
	// two policies spent their budgets on can be compared page by page;
	// and report.md's table of the fetches by the pages' week-0 stake.
	Refetches bool `mapstructure:"refetches"`
	// Workers is how many runs go at once (each with its own repository,
	// index and replay server); 0 means GOMAXPROCS.
	Workers int `mapstructure:"workers"`
	// CrawlParallel is the fetches in flight within one run (the replay
	// host's politeness override: per_host and global).
	CrawlParallel int `mapstructure:"crawl_parallel"`
	// WorkDir holds the week-0 checkpoint and each run's repository and
	// index while it runs; "" means a temporary directory removed at the
	// end.
	WorkDir string `mapstructure:"work_dir"`

	// The components under test, as the binary configures them
	// (crawler.*, frontier.*, index.*, repo.*). The harness overrides only
	// what a replay needs: loopback resolution and no politeness delay for
	// the replay host; frontier.policy, tau, budget (B per week),
	// split.recrawl = 1, split.discovery = 0, spread off; index.batch_size
	// large enough for one batch per week. S() is index.scoring and c of
	// I(r) is index.inspection_c.
	Crawler  crawler.Config  `mapstructure:"-"`
	Frontier frontier.Config `mapstructure:"-"`
	Index    index.Config    `mapstructure:"-"`
	Repo     repo.Config     `mapstructure:"-"`
	// Discovery is OD-WIN's configuration (discovery.*), for Splits.
	Discovery discovery.Config `mapstructure:"-"`
	// Candidates is ranking.candidates: the results the searcher orders
	// and pages per query, no more. Under SemanticsSearcher A(q, ·) is
	// cut to it on both sides of eq. 4.5 (doc.go).
	Candidates int `mapstructure:"-"`
}

// filters and pageSets list the values of eval.sync.filter and
// eval.sync.pages.
var (
	filters  = []string{"knee", "none"}
	reranks  = []string{"incremental", "all"}
	pageSets = []string{"persistent", "all"}
	sources  = []string{"whole", "own"}
)

// Upper bounds of the eval.sync keys.
const (
	// maxWorkers bounds the runs evaluated at once: each holds its own
	// repository, index and replay in memory.
	maxWorkers = 256
	// maxCrawlParallel: crawl_parallel sets the replay host's
	// crawler.politeness.global and per_host, bounded by this.
	maxCrawlParallel = crawler.MaxFetches
	// maxMaxQueries is far above any query log's distinct queries; a cap
	// at or above the workload keeps every query, as 0 does.
	maxMaxQueries = 10_000_000
	// maxSeeds bounds eval.sync.seeds: each seed is a whole run per
	// budget, and a hundred already measure a policy's spread closely.
	maxSeeds = 100
)

// Validate reports every problem in c, each naming its key, the value and
// the limit, including those of the component configurations.
func (c Config) Validate() error {
	return errors.Join(c.ValidateOwn(), c.validateComponents())
}

// ValidateOwn checks the eval.sync keys alone (the components are
// validated in their own sections).
func (c Config) ValidateOwn() error {
	report := bounds.NewReport("eval.sync.")
	if strings.TrimSpace(c.Archive) == "" {
		report.Add("archive", `""`, "must name an archive directory")
	}
	if strings.TrimSpace(c.Log) == "" {
		report.Add("log", `""`, "must name a query log")
	}
	if _, err := querylog.ParseFormat(c.LogFormat); err != nil {
		report.Add("log_format", fmt.Sprintf("%q", c.LogFormat), err.Error())
	}
	if len(c.Policies) == 0 {
		report.Add("policies", "[]", "must list at least one policy")
	}
	for _, p := range c.Policies {
		if !slices.Contains(frontier.Policies(), p) {
			report.Add("policies", fmt.Sprintf("%q", p), fmt.Sprintf("must be one of %v", frontier.Policies()))
		}
	}
	if len(c.Budgets) == 0 {
		report.Add("budgets", "[]", "must list at least one budget")
	}
	// A budget is a run's frontier.budget.fetches, bounded as it is.
	for _, b := range c.Budgets {
		if b < 1 || b > frontier.MaxFetches {
			report.Add("budgets", b, fmt.Sprintf("every budget must be in [1, %d] fetches per week", frontier.MaxFetches))
		}
	}
	if len(c.Taus) == 0 && (slices.Contains(c.Policies, "sbr") || slices.Contains(c.Policies, "ebr")) {
		report.Add("taus", "[]", "must list at least one τ when sbr or ebr is compared")
	}
	for _, t := range c.Taus {
		if math.IsNaN(t) || t < 0 || t > 1 {
			report.Add("taus", t, "every τ must be in [0, 1]")
		}
	}
	bounds.Distinct(report, "policies", c.Policies)
	bounds.Distinct(report, "budgets", c.Budgets)
	bounds.Distinct(report, "taus", c.Taus)
	bounds.Distinct(report, "splits", c.Splits)
	if !slices.Contains(pageSets, c.Pages) {
		report.Add("pages", fmt.Sprintf("%q", c.Pages), fmt.Sprintf("must be one of %v", pageSets))
	}
	if !slices.Contains(sources, c.History) {
		report.Add("history", fmt.Sprintf("%q", c.History), fmt.Sprintf("must be one of %v", sources))
	}
	if !slices.Contains(reranks, c.Rerank) {
		report.Add("rerank", fmt.Sprintf("%q", c.Rerank), fmt.Sprintf("must be one of %v", reranks))
	}
	if !slices.Contains(semanticsValues, c.Semantics) {
		report.Add("semantics", fmt.Sprintf("%q", c.Semantics), fmt.Sprintf("must be one of %v", semanticsValues))
	}
	if !slices.Contains(filters, c.Filter) {
		report.Add("filter", fmt.Sprintf("%q", c.Filter), fmt.Sprintf("must be one of %v", filters))
	}
	report.Add("seeds", c.Seeds, bounds.Within(c.Seeds, 1, maxSeeds))
	report.Add("max_queries", c.MaxQueries, bounds.Note(bounds.Within(c.MaxQueries, 0, maxMaxQueries), "(0: no cap)"))
	report.Include(validateSplits(c.Splits, c.Pages))
	report.Add("workers", c.Workers, bounds.Note(bounds.Within(c.Workers, 0, maxWorkers), "(0: GOMAXPROCS)"))
	report.Add("crawl_parallel", c.CrawlParallel, bounds.Within(c.CrawlParallel, 1, maxCrawlParallel))
	return report.Err()
}

func (c Config) validateComponents() error {
	report := bounds.NewReport("")
	report.Include(c.Crawler.Validate(), c.Index.Validate(), c.Repo.Validate())
	if c.Semantics == SemanticsSearcher {
		// S(W[p], q) is computed from the archive's analysed text, which
		// has neither titles apart nor positions (searcher.go).
		r := c.Index.Retrieval
		if r.TitleWeight != 0 {
			report.Include(fmt.Errorf("index.retrieval.title_weight = %v: must be 0 under eval.sync.semantics %q (the live scores have no title field)", r.TitleWeight, c.Semantics))
		}
		if r.ProximityWeight != 0 {
			report.Include(fmt.Errorf("index.retrieval.proximity_weight = %v: must be 0 under eval.sync.semantics %q (the live scores have no positions)", r.ProximityWeight, c.Semantics))
		}
		if c.Candidates < 1 {
			report.Include(fmt.Errorf("ranking.candidates = %d: must be >= 1 under eval.sync.semantics %q (the results a user sees)", c.Candidates, c.Semantics))
		}
	}
	// The frontier is validated with the harness's overrides (policy and
	// budget come from the sweep).
	f := c.Frontier
	f.Policy = frontier.Policies()[0]
	f.Budget.Fetches = 1
	f.Split = frontier.SplitConfig{Recrawl: 1}
	f.Tau = 0
	if slices.Contains(c.Splits, splitAdaptive) {
		f.Split = adaptiveSplit(c.Frontier.Split)
	}
	report.Include(f.Validate(frontier.Policies()))
	if len(c.Splits) > 0 {
		report.Include(c.Discovery.Validate())
	}
	return report.Err()
}
