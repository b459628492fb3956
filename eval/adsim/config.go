package adsim

import (
	"fmt"
	"slices"

	"github.com/deltaq/deltaq/ads"
	"github.com/deltaq/deltaq/internal/bounds"
)

// Config holds the simulation's settings; the defaults live in
// configs/default.yaml under "eval.ads". Tests build it explicitly.
type Config struct {
	// Log is the query log giving phrases and their frequencies (the
	// command's --log flag). Formats: query<TAB>count, Excite
	// user<TAB>time<TAB>query (Latin-1), TREC qid<TAB>query.
	Log string `mapstructure:"log"`
	// CTRFile is the real CTR distribution, ads/obd-item-ctr.tsv.
	CTRFile string `mapstructure:"ctr_file"`
	// Seed makes the world (ads, bids, budgets, true CTRs) and every
	// query order and click reproducible.
	Seed uint64 `mapstructure:"seed"`
	// Days is the horizon of figs. 6.3–6.5 (the thesis: 10).
	Days int `mapstructure:"days"`
	// Repetitions is the number of random query orders (and click coin
	// flips) each point is averaged over.
	Repetitions int `mapstructure:"repetitions"`
	// QueriesPerDay rescales the log's frequencies to this many query
	// instances per day; 0 keeps the log's counts as one day.
	QueriesPerDay int `mapstructure:"queries_per_day"`
	// AdsPerPhrase is the mean number of ads per phrase; with
	// PhrasesPerAdvertiser it sets the number of advertisers.
	AdsPerPhrase float64 `mapstructure:"ads_per_phrase"`
	// PhrasesPerAdvertiser is the mean number of phrases an advertiser
	// targets (1 + Poisson).
	PhrasesPerAdvertiser float64 `mapstructure:"phrases_per_advertiser"`
	// PopularityExponent γ: an advertiser picks phrase j with weight
	// f_j^γ, so popular phrases draw more advertisers.
	PopularityExponent float64 `mapstructure:"popularity_exponent"`
	// BidMedian and BidSigma: bids are log-normal, in currency units.
	BidMedian float64 `mapstructure:"bid_median"`
	BidSigma  float64 `mapstructure:"bid_sigma"`
	// BudgetedFraction of advertisers have a daily budget (the thesis's
	// data: about 60 %).
	BudgetedFraction float64 `mapstructure:"budgeted_fraction"`
	// BudgetFactorMin and BudgetFactorMax bound the log-uniform factor
	// that scales an advertiser's fair-share daily spend into its budget.
	BudgetFactorMin float64 `mapstructure:"budget_factor_min"`
	BudgetFactorMax float64 `mapstructure:"budget_factor_max"`
	// CTRPriorStrength is α0 + β0 of the Beta prior (mean: the pooled
	// CTR of the file) that smooths each item's clicks/impressions.
	CTRPriorStrength float64 `mapstructure:"ctr_prior_strength"`
	// QueryCount is ads.query_count: what n_j counts ("day" or "total").
	QueryCount string `mapstructure:"query_count"`
	// Policies are compared in figs. 6.3 and 6.4.
	Policies []string `mapstructure:"policies"`
	// PerQuery lists the values of C of fig. 6.4.
	PerQuery []int `mapstructure:"per_query"`
	// ExtensionPolicies are compared in figs. 6.5 and 6.6.
	ExtensionPolicies []string `mapstructure:"extension_policies"`
	// PriorFractions (p) and PriorAccuracies (v) span fig. 6.5.
	PriorFractions  []float64 `mapstructure:"prior_fractions"`
	PriorAccuracies []float64 `mapstructure:"prior_accuracies"`
	// Lifetimes lists the mean ad lifetimes λ of fig. 6.6, in days.
	Lifetimes []float64 `mapstructure:"lifetimes"`
	// LifetimeDays is the horizon of fig. 6.6 (the thesis: 100) and
	// SteadyFrom the first day averaged as steady state.
	LifetimeDays int `mapstructure:"lifetime_days"`
	SteadyFrom   int `mapstructure:"steady_from"`
	// SensitivityQueriesPerDay and SensitivityCTRScales span a grid of
	// worlds with more or less traffic and with every true CTR multiplied
	// by a factor (capped at 1), on which ExtensionPolicies run at C = 1:
	// how much traffic and how high CTRs exploration needs to pay off.
	SensitivityQueriesPerDay []int     `mapstructure:"sensitivity_queries_per_day"`
	SensitivityCTRScales     []float64 `mapstructure:"sensitivity_ctr_scales"`
	// Workers run simulations in parallel; 0 means GOMAXPROCS.
	Workers int `mapstructure:"workers"`
}

// Upper bounds, far beyond the thesis's settings (configs/default.yaml),
// on what the simulation allocates, loops over or multiplies.
const (
	// maxDays bounds days and lifetime_days: every simulation keeps two
	// numbers per day and replays a day's queries each day.
	maxDays = 10_000
	// maxRepetitions bounds the simulations of each point.
	maxRepetitions = 10_000
	// maxQueriesPerDay bounds a day's query instances: the world and every
	// running simulation hold one int32 each (400 MB apiece at the bound).
	maxQueriesPerDay = 100_000_000
	// maxAdsPerPhrase bounds the advertisers drawn, P·ads_per_phrase /
	// phrases_per_advertiser for P phrases, and the ads ranked per query.
	maxAdsPerPhrase = 1000
	// maxPhrasesPerAdvertiser bounds the Poisson draw of an advertiser's
	// phrases, whose cost grows with its mean.
	maxPhrasesPerAdvertiser = 10_000
	// maxBudgetFactor keeps a budget, factor × fair-share spend, within the
	// int64 micros of ads.Money, past which it would come out as one click.
	maxBudgetFactor = 10_000
	// maxWorkers bounds the simulation goroutines.
	maxWorkers = 256
)

// Validate reports every problem in c, each naming its key under eval.ads.
func (c Config) Validate() error {
	report := bounds.NewReport("eval.ads.")
	if c.Log == "" {
		report.Add("log", `""`, "must name a query log")
	}
	if c.CTRFile == "" {
		report.Add("ctr_file", `""`, "must name the CTR distribution file")
	}
	report.Add("days", c.Days, bounds.Within(c.Days, 1, maxDays))
	report.Add("repetitions", c.Repetitions, bounds.Within(c.Repetitions, 1, maxRepetitions))
	report.Add("queries_per_day", c.QueriesPerDay, bounds.Note(bounds.Within(c.QueriesPerDay, 0, maxQueriesPerDay), "(0: the log's counts)"))
	if !(c.AdsPerPhrase > 0 && c.AdsPerPhrase <= maxAdsPerPhrase) {
		report.Add("ads_per_phrase", c.AdsPerPhrase, fmt.Sprintf("must be in (0, %d]", maxAdsPerPhrase))
	}
	if !(c.PhrasesPerAdvertiser >= 1 && c.PhrasesPerAdvertiser <= maxPhrasesPerAdvertiser) {
		report.Add("phrases_per_advertiser", c.PhrasesPerAdvertiser, fmt.Sprintf("must be in [1, %d]", maxPhrasesPerAdvertiser))
	}
	if c.PopularityExponent < 0 || c.PopularityExponent > 2 {
		report.Add("popularity_exponent", c.PopularityExponent, "must be in [0, 2]")
	}
	if !(c.BidMedian > 0 && c.BidMedian <= ads.MaxMoneyUnits) {
		report.Add("bid_median", c.BidMedian, fmt.Sprintf("must be in (0, %g]", float64(ads.MaxMoneyUnits)))
	}
	if c.BidSigma < 0 || c.BidSigma > 3 {
		report.Add("bid_sigma", c.BidSigma, "must be in [0, 3]")
	}
	if c.BudgetedFraction < 0 || c.BudgetedFraction > 1 {
		report.Add("budgeted_fraction", c.BudgetedFraction, "must be in [0, 1]")
	}
	if c.BudgetFactorMin <= 0 {
		report.Add("budget_factor_min", c.BudgetFactorMin, "must be > 0")
	}
	if !(c.BudgetFactorMax >= c.BudgetFactorMin && c.BudgetFactorMax <= maxBudgetFactor) {
		report.Add("budget_factor_max", c.BudgetFactorMax, fmt.Sprintf("must be in [eval.ads.budget_factor_min, %d]", maxBudgetFactor))
	}
	if c.CTRPriorStrength <= 0 {
		report.Add("ctr_prior_strength", c.CTRPriorStrength, "must be > 0")
	}
	if c.QueryCount != ads.QueryCountDay && c.QueryCount != ads.QueryCountTotal {
		report.Add("query_count", fmt.Sprintf("%q", c.QueryCount), "must be day or total")
	}
	checkPolicies := func(key string, names []string) {
		if len(names) == 0 {
			report.Add(key, "[]", "must list at least one policy")
		}
		for i, n := range names {
			if _, err := ads.PolicyByName(n); err != nil {
				report.Add(fmt.Sprintf("%s[%d]", key, i), fmt.Sprintf("%q", n), "must be one of greedy, mix, bmix, bmix-e, bmix-t, bmix-et")
			}
		}
	}
	checkPolicies("policies", c.Policies)
	checkPolicies("extension_policies", c.ExtensionPolicies)
	bounds.Distinct(report, "policies", c.Policies)
	bounds.Distinct(report, "extension_policies", c.ExtensionPolicies)
	bounds.Distinct(report, "per_query", c.PerQuery)
	bounds.Distinct(report, "prior_fractions", c.PriorFractions)
	bounds.Distinct(report, "prior_accuracies", c.PriorAccuracies)
	bounds.Distinct(report, "lifetimes", c.Lifetimes)
	bounds.Distinct(report, "sensitivity_queries_per_day", c.SensitivityQueriesPerDay)
	bounds.Distinct(report, "sensitivity_ctr_scales", c.SensitivityCTRScales)
	if len(c.PerQuery) == 0 || !slices.Contains(c.PerQuery, 1) {
		report.Add("per_query", c.PerQuery, "must list the values of C, including 1")
	}
	for i, v := range c.PerQuery {
		if v < 1 || v > ads.MaxPerQuery {
			report.Add(fmt.Sprintf("per_query[%d]", i), v, fmt.Sprintf("must be in [1, %d]", ads.MaxPerQuery))
		}
	}
	for i, p := range c.PriorFractions {
		if p < 0 || p > 1 {
			report.Add(fmt.Sprintf("prior_fractions[%d]", i), p, "must be in [0, 1]")
		}
	}
	for i, v := range c.PriorAccuracies {
		if v <= 0 || v >= 1 {
			report.Add(fmt.Sprintf("prior_accuracies[%d]", i), v, "must be in (0, 1)")
		}
	}
	// A lifetime past the longest run is an ad that lives forever; more
	// would overflow the query index it ends at.
	for i, l := range c.Lifetimes {
		if !(l > 0 && l <= maxDays) {
			report.Add(fmt.Sprintf("lifetimes[%d]", i), l, fmt.Sprintf("must be in (0, %d] days", maxDays))
		}
	}
	if len(c.Lifetimes) > 0 {
		report.Add("lifetime_days", c.LifetimeDays, bounds.Within(c.LifetimeDays, 2, maxDays))
		if c.SteadyFrom < 0 || c.SteadyFrom >= c.LifetimeDays {
			report.Add("steady_from", c.SteadyFrom, "must be in [0, eval.ads.lifetime_days)")
		}
	}
	for i, q := range c.SensitivityQueriesPerDay {
		report.Add(fmt.Sprintf("sensitivity_queries_per_day[%d]", i), q, bounds.Within(q, 1, maxQueriesPerDay))
	}
	// No upper bound: a CTR drawn is held at 1 whatever the scale.
	for i, k := range c.SensitivityCTRScales {
		if k <= 0 {
			report.Add(fmt.Sprintf("sensitivity_ctr_scales[%d]", i), k, "must be > 0")
		}
	}
	report.Add("workers", c.Workers, bounds.Note(bounds.Within(c.Workers, 0, maxWorkers), "(0: GOMAXPROCS)"))
	return report.Err()
}
