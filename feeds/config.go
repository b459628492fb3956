package feeds

import (
	"fmt"
	"time"

	"github.com/deltaq/deltaq/internal/bounds"
)

// Config is the feeds section of configs/default.yaml; the defaults and
// their reasons live there.
type Config struct {
	Step               time.Duration   `mapstructure:"step"`
	Starts             int             `mapstructure:"starts"`
	MinInterval        time.Duration   `mapstructure:"min_interval"`
	MaxInterval        time.Duration   `mapstructure:"max_interval"`
	Clusters           int             `mapstructure:"clusters"`
	ClusterMinPostings int             `mapstructure:"cluster_min_postings"`
	ClusterIterations  int             `mapstructure:"cluster_iterations"`
	PriorWeight        float64         `mapstructure:"prior_weight"`
	Floor              float64         `mapstructure:"floor"`
	RateCount          float64         `mapstructure:"rate_count"`
	SeenKept           int             `mapstructure:"seen_kept"`
	HistoryKept        int             `mapstructure:"history_kept"`
	MaxItems           int             `mapstructure:"max_items"`
	MaxBytes           int64           `mapstructure:"max_bytes"`
	ClockSkew          time.Duration   `mapstructure:"clock_skew"`
	LearnWindow        time.Duration   `mapstructure:"learn_window"`
	PollsPerDay        float64         `mapstructure:"polls_per_day"`
	RateHalfLives      []time.Duration `mapstructure:"rate_half_lives"`
	RateHoldoutWeeks   int             `mapstructure:"rate_holdout_weeks"`
	// RatePriors are candidate exposures a feed's rate is shrunk towards
	// the pooled rate by (RateRule.Prior; 0, no shrinkage, is always one).
	RatePriors []time.Duration `mapstructure:"rate_priors"`
	// Profile choices (ChooseProfiling): candidate windows (none: the
	// learn window alone) and bin-level weights (BinProfiles; 0, the daily ×
	// weekly shape, is always a candidate), chosen on the last holdout weeks.
	ProfileWindows []time.Duration `mapstructure:"profile_windows"`
	BinWeights     []float64       `mapstructure:"bin_weights"`
	// PriorWeights are candidate weights of a feed's cluster and weekday
	// prior (none: PriorWeight alone), chosen with the window and bin weight.
	PriorWeights        []float64 `mapstructure:"prior_weights"`
	ProfileHoldoutWeeks int       `mapstructure:"profile_holdout_weeks"`
}

// profilings is every candidate of a profile window, a bin weight and a
// prior weight.
func (c Config) profilings() []Profiling {
	windows := c.ProfileWindows
	if len(windows) == 0 {
		windows = []time.Duration{c.LearnWindow}
	}
	priors := c.PriorWeights
	if len(priors) == 0 {
		priors = []float64{c.PriorWeight}
	}
	var out []Profiling
	for _, w := range windows {
		for _, v := range append([]float64{0}, c.BinWeights...) {
			for _, p := range priors {
				out = append(out, Profiling{Window: w, Weight: v, Prior: p})
			}
		}
	}
	return out
}

// Upper bounds of the settings, far beyond any sensible use: each is a
// loop count, a length of a feed's record or a body held in memory.
const (
	// Each start refines every placement once more; a week has 10,080
	// slots at a 1m step, and more starts than slots between two polls
	// only repeat phases.
	maxStarts = 10000
	// Seeding k-means++ costs O(feeds·k²); the paper finds six patterns.
	maxClusters = 1000
	// Each Lloyd iteration is O(feeds·k·24).
	maxClusterIterations = 100000
	// Item keys live in the feed's record, read and rewritten whole on
	// each poll, and as many items stay stored per feed.
	maxSeenKept = 100000
	// Posting times live in the feed's record too; a million is one a
	// minute over the longest profile window, a year.
	maxHistoryKept = 1000000
	// A feed needing more postings than a feed keeps would never be
	// clustered.
	maxClusterMinPostings = maxHistoryKept
	// A feed body is held in memory whole.
	maxFeedBytes = 1 << 30
	// One poll a second; WeeklyPolls turns it, times 7 and the feeds,
	// into an int.
	maxPollsPerDay = 86400
	// Holdout week k starts k·Period back, a time.Duration that overflows
	// past 15,250 weeks, and each week learns every candidate anew.
	maxHoldoutWeeks = 1000
)

// Validate names every bad key, its value and the limit.
func (c Config) Validate() error {
	report := bounds.NewReport("feeds.")
	c.validatePlanning(report)
	c.validateClustering(report)
	c.validateRates(report)
	c.validateProfiles(report)
	c.validateStorage(report)
	return report.Err()
}

// atLeastOne reports a count under 1 with a message of its own and one
// over its upper bound hi with the range: bounds.Limit(v, 1, hi), worded
// with the ≥ of this package's other messages.
func atLeastOne[T int | int64](report *bounds.Report, key string, v, hi T) {
	if v < 1 {
		report.Add(key, v, "must be ≥ 1")
	}
	report.Add(key, v, bounds.Over(v, 1, hi))
}

// validatePlanning checks the keys of the polls' allocation and placement.
func (c Config) validatePlanning(report *bounds.Report) {
	if c.Step <= 0 || Period%c.Step != 0 {
		report.Add("step", c.Step, "must be > 0 and divide one week")
	}
	atLeastOne(report, "starts", c.Starts, maxStarts)
	if c.MinInterval <= 0 {
		report.Add("min_interval", c.MinInterval, "must be > 0")
	}
	if c.MaxInterval < c.MinInterval {
		report.Add("max_interval", c.MaxInterval, "must be ≥ min_interval")
	}
	if !(c.PollsPerDay > 0) {
		report.Add("polls_per_day", c.PollsPerDay, "must be > 0")
	}
	if c.PollsPerDay > maxPollsPerDay {
		report.Add("polls_per_day", c.PollsPerDay, fmt.Sprintf("must be in (0, %d]", maxPollsPerDay))
	}
}

// validateClustering checks the keys of the sparse feeds' shared profiles.
func (c Config) validateClustering(report *bounds.Report) {
	atLeastOne(report, "clusters", c.Clusters, maxClusters)
	atLeastOne(report, "cluster_min_postings", c.ClusterMinPostings, maxClusterMinPostings)
	atLeastOne(report, "cluster_iterations", c.ClusterIterations, maxClusterIterations)
}

// validateRates checks the keys of a feed's posting rate estimate.
func (c Config) validateRates(report *bounds.Report) {
	// More pseudo-postings than a feed keeps postings would drown every
	// feed's own count: a rate of no feed at all.
	if c.RateCount < 0 || c.RateCount > maxHistoryKept {
		report.Add("rate_count", c.RateCount, fmt.Sprintf("must be in [0, %d]", maxHistoryKept))
	}
	if c.LearnWindow < 24*time.Hour {
		report.Add("learn_window", c.LearnWindow, "must be ≥ 24h")
	}
	for _, h := range c.RateHalfLives {
		if h < time.Hour {
			report.Add("rate_half_lives", h, "must each be ≥ 1h")
		}
	}
	for _, p := range c.RatePriors {
		if p <= 0 {
			report.Add("rate_priors", p, "must each be > 0")
		}
	}
	if (len(c.RateHalfLives) > 1 || len(c.RatePriors) > 0) && c.RateHoldoutWeeks < 1 {
		report.Add("rate_holdout_weeks", c.RateHoldoutWeeks, "must be ≥ 1 to choose among several rate_half_lives or rate_priors")
	}
	report.Add("rate_holdout_weeks", c.RateHoldoutWeeks, bounds.Over(c.RateHoldoutWeeks, 0, maxHoldoutWeeks))
}

// validateProfiles checks the keys of a feed's periodic profile estimate.
func (c Config) validateProfiles(report *bounds.Report) {
	if c.PriorWeight < 0 {
		report.Add("prior_weight", c.PriorWeight, "must be ≥ 0")
	}
	for _, w := range c.PriorWeights {
		if !(w >= 0) {
			report.Add("prior_weights", w, "must each be ≥ 0")
		}
	}
	if c.Floor < 0 || c.Floor >= 1 {
		report.Add("floor", c.Floor, "must be in [0, 1)")
	}
	for _, w := range c.ProfileWindows {
		if w < 24*time.Hour {
			report.Add("profile_windows", w, "must each be ≥ 24h")
		}
	}
	for _, v := range c.BinWeights {
		if !(v > 0) {
			report.Add("bin_weights", v, "must each be > 0")
		}
	}
	if len(c.profilings()) > 1 && c.ProfileHoldoutWeeks < 1 {
		report.Add("profile_holdout_weeks", c.ProfileHoldoutWeeks, "must be ≥ 1 to choose among several profile_windows, bin_weights and prior_weights")
	}
	report.Add("profile_holdout_weeks", c.ProfileHoldoutWeeks, bounds.Over(c.ProfileHoldoutWeeks, 0, maxHoldoutWeeks))
}

// validateStorage checks the keys that bound what a poll reads and what
// a feed's record keeps.
func (c Config) validateStorage(report *bounds.Report) {
	atLeastOne(report, "seen_kept", c.SeenKept, maxSeenKept)
	atLeastOne(report, "history_kept", c.HistoryKept, maxHistoryKept)
	if c.MaxItems < 1 {
		report.Add("max_items", c.MaxItems, "must be ≥ 1")
	}
	if c.MaxItems > c.SeenKept {
		report.Add("max_items", c.MaxItems, fmt.Sprintf("must be ≤ feeds.seen_kept (%d), or items read but forgotten would come back as new", c.SeenKept))
	}
	atLeastOne(report, "max_bytes", c.MaxBytes, maxFeedBytes)
	if c.ClockSkew < 0 {
		report.Add("clock_skew", c.ClockSkew, "must be ≥ 0")
	}
}
