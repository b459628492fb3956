package ranking

import (
	"fmt"
	"time"

	"github.com/deltaq/deltaq/internal/bounds"
)

// Result orders (ranking.order).
const (
	// OrderPopularity is the thesis's order (§5.4, §5.5): relevant pages by
	// popularity alone, ties by relevance.
	OrderPopularity = "popularity"
	// OrderBlend mixes normalized relevance with log-scaled popularity rank;
	// see Blend.
	OrderBlend = "blend"
)

// Popularity sources (ranking.popularity).
const (
	SourcePageRank = "pagerank" // link-based: PageRank over the crawled graph
	SourceInLinks  = "inlinks"  // link-based: distinct in-linking pages
	SourceClicks   = "clicks"   // click-based: clicks through the signed redirect
)

// Promotion pool rules (ranking.promotion.rule), thesis §5.5.
const (
	// RuleSelective pools the candidates no monitored user has clicked
	// (awareness A(p,t) = 0).
	RuleSelective = "selective"
	// RuleUniform pools every candidate independently with probability r.
	RuleUniform = "uniform"
	// RuleNone turns promotion off: the result list is L_d.
	RuleNone = "none"
)

// Config holds the searcher's settings; defaults live in
// configs/default.yaml under "ranking".
type Config struct {
	// Order is OrderBlend or OrderPopularity.
	Order string `mapstructure:"order"`
	// BlendWeight is w in Blend: the weight of popularity, in [0, 1].
	BlendWeight float64 `mapstructure:"blend_weight"`
	// Popularity is the source of P(p,t): SourcePageRank, SourceInLinks or
	// SourceClicks.
	Popularity string `mapstructure:"popularity"`
	// Promotion configures randomized rank promotion (§5.5).
	Promotion PromotionConfig `mapstructure:"promotion"`
	// MonitoredFraction is m/u (§5.4.1): the share of users whose clicks
	// count towards awareness. Users are assigned by a hash of their id.
	MonitoredFraction float64 `mapstructure:"monitored_fraction"`
	// PageRank configures the power iteration and its schedule.
	PageRank PageRankConfig `mapstructure:"pagerank"`
	// Candidates is how many relevant pages are retrieved, ordered and
	// promoted per query; pagination never goes past it.
	Candidates int `mapstructure:"candidates"`
	// Secret keys the click-redirect HMAC and the promotion seeds. Empty
	// means: generate one on first start and keep it in the repository.
	Secret string `mapstructure:"secret"`
}

// PromotionConfig is the §5.5 configuration: pool rule, starting point k and
// degree of randomization r.
type PromotionConfig struct {
	Rule string  `mapstructure:"rule"`
	K    int     `mapstructure:"k"`
	R    float64 `mapstructure:"r"`
}

// PageRankConfig configures PageRank.
type PageRankConfig struct {
	// Damping is the probability of following a link rather than jumping.
	Damping float64 `mapstructure:"damping"`
	// Tolerance stops the iteration once the L1 change of the vector is
	// below it.
	Tolerance float64 `mapstructure:"tolerance"`
	// MaxIterations caps the iteration when it converges slowly.
	MaxIterations int `mapstructure:"max_iterations"`
	// Interval is how often RunPageRank recomputes.
	Interval time.Duration `mapstructure:"interval"`
}

// MinSecretLen is the shortest configured secret accepted, in bytes.
const MinSecretLen = 32

// MaxCandidates bounds ranking.candidates: every query reads this many
// pages' statistics.
const MaxCandidates = 100000

// maxIterations bounds pagerank.max_iterations, each a pass over every
// link: far more than even a damping near 1 needs to converge.
const maxIterations = 100_000

// Validate reports every problem in c, each naming its key.
func (c Config) Validate() error {
	report := bounds.NewReport("ranking.")
	switch c.Order {
	case OrderBlend, OrderPopularity:
	default:
		report.Add("order", fmt.Sprintf("%q", c.Order), "must be blend or popularity")
	}
	if !(c.BlendWeight >= 0 && c.BlendWeight <= 1) {
		report.Add("blend_weight", c.BlendWeight, "must be in [0, 1]")
	}
	switch c.Popularity {
	case SourcePageRank, SourceInLinks, SourceClicks:
	default:
		report.Add("popularity", fmt.Sprintf("%q", c.Popularity), "must be pagerank, inlinks or clicks")
	}
	switch c.Promotion.Rule {
	case RuleSelective, RuleUniform, RuleNone:
	default:
		report.Add("promotion.rule", fmt.Sprintf("%q", c.Promotion.Rule), "must be selective, uniform or none")
	}
	// k−1 results are never displaced: past the most candidates a
	// query has, k would turn promotion off.
	report.Add("promotion.k", c.Promotion.K, bounds.Limit(c.Promotion.K, 1, MaxCandidates))
	if !(c.Promotion.R >= 0 && c.Promotion.R <= 1) {
		report.Add("promotion.r", c.Promotion.R, "must be in [0, 1]")
	}
	if !(c.MonitoredFraction >= 0 && c.MonitoredFraction <= 1) {
		report.Add("monitored_fraction", c.MonitoredFraction, "must be in [0, 1]")
	}
	if !(c.PageRank.Damping > 0 && c.PageRank.Damping < 1) {
		report.Add("pagerank.damping", c.PageRank.Damping, "must be in (0, 1)")
	}
	if !(c.PageRank.Tolerance > 0 && c.PageRank.Tolerance < 1) {
		report.Add("pagerank.tolerance", c.PageRank.Tolerance, "must be in (0, 1)")
	}
	report.Add("pagerank.max_iterations", c.PageRank.MaxIterations, bounds.Limit(c.PageRank.MaxIterations, 1, maxIterations))
	if c.PageRank.Interval < time.Minute {
		report.Add("pagerank.interval", c.PageRank.Interval, "must be >= 1m")
	}
	if c.Candidates < 1 || c.Candidates > MaxCandidates {
		report.Add("candidates", c.Candidates, fmt.Sprintf("must be in [1, %d]", MaxCandidates))
	}
	if c.Secret != "" && len(c.Secret) < MinSecretLen {
		report.Add("secret", fmt.Sprintf("(%d bytes)", len(c.Secret)), fmt.Sprintf("must be empty or at least %d bytes", MinSecretLen))
	}
	return report.Err()
}
