package relationeval

import (
	"errors"
	"fmt"

	"github.com/deltaq/deltaq/internal/bounds"
	"github.com/deltaq/deltaq/relation"
)

// Config holds the evaluation's settings; defaults live in
// configs/default.yaml under "eval.relation".
type Config struct {
	Synth   SynthConfig   `mapstructure:"synth"`
	Archive ArchiveConfig `mapstructure:"archive"`
}

// SynthConfig is the paper's Fig. 2 experiment (§5.2), SYNTHETIC as in the
// paper.
type SynthConfig struct {
	Papers         int     `mapstructure:"papers"`           // 1,000
	Groups         int     `mapstructure:"groups"`           // 200
	MaxGroup       int     `mapstructure:"max_group"`        // at most 10 papers per group
	QueriesPerUnit int     `mapstructure:"queries_per_unit"` // 10
	Units          int     `mapstructure:"units"`            // 500
	Seeds          int     `mapstructure:"seeds"`            // 10
	Seed           uint64  `mapstructure:"seed"`             // the first seed
	Attachment     float64 `mapstructure:"attachment"`       // λ = attachment × initial citations; 0.25
	Naive2MaxRate  float64 `mapstructure:"naive2_max_rate"`  // Naive 2 fetches tuples with λ below this; 1
}

// ArchiveConfig is the real-pages run: a replayed archive with the added
// search interface, the query log's commands as the relation.
type ArchiveConfig struct {
	Archive       string  `mapstructure:"archive"`
	Log           string  `mapstructure:"log"`
	Budgets       []int   `mapstructure:"budgets"`         // requests per week
	PageSize      int     `mapstructure:"page_size"`       // p of the added search
	MaxResults    int     `mapstructure:"max_results"`     // K of the added search
	MaxKeywords   int     `mapstructure:"max_keywords"`    // subsets up to this size
	Pool          int     `mapstructure:"pool"`            // keyword pool of GreedyProbes
	Pools         []int   `mapstructure:"pools"`           // keyword-set sizes k of the Fig. 3 analogue
	Naive2MaxRate float64 `mapstructure:"naive2_max_rate"` // λ̂ per week below which Naive 2 fetches
	RatePrior     float64 `mapstructure:"rate_prior"`      // λ̂ per week before any observation
	// RatePriorWeight is how many weeks of observation the prior counts as.
	RatePriorWeight float64 `mapstructure:"rate_prior_weight"`
}

// Validate reports every problem, each naming its key, value and limit.
func (c Config) Validate() error {
	report := bounds.NewReport("eval.relation.")
	s := c.Synth
	// The sizes the runs hold in memory or loop over are bounded far
	// beyond the paper's (its defaults in the comments of SynthConfig).
	const maxPapers = 10_000_000
	report.Add("synth.papers", s.Papers, bounds.Within(s.Papers, 1, maxPapers))
	report.Add("synth.groups", s.Groups, bounds.Within(s.Groups, 1, maxPapers))
	report.Add("synth.max_group", s.MaxGroup, bounds.Within(s.MaxGroup, 1, maxPapers))
	report.Add("synth.queries_per_unit", s.QueriesPerUnit, bounds.Within(s.QueriesPerUnit, 1, 1_000_000))
	report.Add("synth.units", s.Units, bounds.Within(s.Units, 1, 1_000_000))
	report.Add("synth.seeds", s.Seeds, bounds.Within(s.Seeds, 1, 1000))
	inBounds := func(v int) bool { return v >= 1 && v <= maxPapers } // then the product cannot overflow
	if inBounds(s.Groups) && inBounds(s.MaxGroup) && s.Groups*s.MaxGroup < s.Papers {
		report.Add("synth.groups × max_group", s.Groups*s.MaxGroup, fmt.Sprintf("must be >= papers (%d)", s.Papers))
	}
	// The simulated updates grow with attachment (λ = attachment × a
	// paper's citations, per unit); a paper gaining a thousand times its
	// citations a unit is past any literature, and 1e300 never ends.
	const maxAttachment = 1000
	if !(s.Attachment > 0 && s.Attachment <= maxAttachment) {
		report.Add("synth.attachment", s.Attachment, fmt.Sprintf("must be in (0, %d]", maxAttachment))
	}
	a := c.Archive
	if len(a.Budgets) == 0 {
		report.Include(errors.New("eval.relation.archive.budgets: at least one budget is required"))
	}
	bounds.Distinct(report, "archive.budgets", a.Budgets)
	for i, b := range a.Budgets {
		report.Add(fmt.Sprintf("archive.budgets[%d]", i), b, bounds.Within(b, 1, 1_000_000))
	}
	report.Add("archive.page_size", a.PageSize, bounds.Within(a.PageSize, 1, 10_000))
	if a.MaxResults < a.PageSize || a.MaxResults > 1_000_000 {
		report.Add("archive.max_results", a.MaxResults, fmt.Sprintf("must be in [page_size (%d), 1000000]", a.PageSize))
	}
	if a.MaxKeywords < 1 || a.MaxKeywords > 2 {
		report.Add("archive.max_keywords", a.MaxKeywords, "must be 1 or 2")
	}
	report.Add("archive.pool", a.Pool, bounds.Within(a.Pool, 1, 100_000))
	for i, k := range a.Pools {
		report.Add(fmt.Sprintf("archive.pools[%d]", i), k, bounds.Within(k, 1, 100_000))
	}
	if a.RatePriorWeight < 0 {
		report.Add("archive.rate_prior_weight", a.RatePriorWeight, "must be >= 0")
	}
	report.Add("archive.rate_prior", a.RatePrior, bounds.Within(a.RatePrior, 0, relation.MaxRatePrior))
	return report.Err()
}
