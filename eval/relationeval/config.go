package relationeval

import (
	"errors"
	"fmt"

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
	var errs []error
	s := c.Synth
	// within bounds a size the runs hold in memory or loop over, far
	// beyond the paper's (its defaults in the comments of SynthConfig).
	within := func(key string, v, most int) {
		if v < 1 || v > most {
			errs = append(errs, fmt.Errorf("eval.relation.%s = %d: must be in [1, %d]", key, v, most))
		}
	}
	const maxPapers = 10_000_000
	within("synth.papers", s.Papers, maxPapers)
	within("synth.groups", s.Groups, maxPapers)
	within("synth.max_group", s.MaxGroup, maxPapers)
	within("synth.queries_per_unit", s.QueriesPerUnit, 1_000_000)
	within("synth.units", s.Units, 1_000_000)
	within("synth.seeds", s.Seeds, 1000)
	inBounds := func(v int) bool { return v >= 1 && v <= maxPapers } // then the product cannot overflow
	if inBounds(s.Groups) && inBounds(s.MaxGroup) && s.Groups*s.MaxGroup < s.Papers {
		errs = append(errs, fmt.Errorf("eval.relation.synth.groups × max_group = %d: must be >= papers (%d)", s.Groups*s.MaxGroup, s.Papers))
	}
	// The simulated updates grow with attachment (λ = attachment × a
	// paper's citations, per unit); a paper gaining a thousand times its
	// citations a unit is past any literature, and 1e300 never ends.
	const maxAttachment = 1000
	if !(s.Attachment > 0 && s.Attachment <= maxAttachment) {
		errs = append(errs, fmt.Errorf("eval.relation.synth.attachment = %v: must be in (0, %d]", s.Attachment, maxAttachment))
	}
	a := c.Archive
	if len(a.Budgets) == 0 {
		errs = append(errs, errors.New("eval.relation.archive.budgets: at least one budget is required"))
	}
	for i, b := range a.Budgets {
		within(fmt.Sprintf("archive.budgets[%d]", i), b, 1_000_000)
	}
	within("archive.page_size", a.PageSize, 10_000)
	if a.MaxResults < a.PageSize || a.MaxResults > 1_000_000 {
		errs = append(errs, fmt.Errorf("eval.relation.archive.max_results = %d: must be in [page_size (%d), 1000000]", a.MaxResults, a.PageSize))
	}
	if a.MaxKeywords < 1 || a.MaxKeywords > 2 {
		errs = append(errs, fmt.Errorf("eval.relation.archive.max_keywords = %d: must be 1 or 2", a.MaxKeywords))
	}
	within("archive.pool", a.Pool, 100_000)
	for i, k := range a.Pools {
		within(fmt.Sprintf("archive.pools[%d]", i), k, 100_000)
	}
	if a.RatePriorWeight < 0 {
		errs = append(errs, fmt.Errorf("eval.relation.archive.rate_prior_weight = %v: must be >= 0", a.RatePriorWeight))
	}
	if !(a.RatePrior >= 0 && a.RatePrior <= relation.MaxRatePrior) {
		errs = append(errs, fmt.Errorf("eval.relation.archive.rate_prior = %v: must be in [0, %g]", a.RatePrior, relation.MaxRatePrior))
	}
	return errors.Join(errs...)
}
