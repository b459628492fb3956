package frontier

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/deltaq/deltaq/repo"
)

// policyKey is the metadata name under which New records the policy it
// schedules re-fetches with, so that `page explain` names the policy the
// repository was crawled under rather than the one a later command line
// happens to configure.
const policyKey = "frontier.policy"

// Explanation is what the recrawl policy thinks of one page now (thesis
// §4.7.1): its δQ_A estimate, how it was obtained and the priority it
// gives the page.
type Explanation struct {
	URL string
	// Policy is the re-fetch policy the repository was last crawled under;
	// PolicyFromRepository is false when no crawl recorded one and Policy
	// is the configured frontier.policy.
	Policy               string
	PolicyFromRepository bool
	Period               time.Duration // the budget period δQ_A is a rate per
	Window               int           // frontier.window: re-downloads averaged at most
	Now                  time.Time
	Estimate             // δQ_A, samples, last fetch
	// Priority is P(p, t) = δQ_A(p)·(t − LR(p, t)); zero unless
	// Estimate.Measured.
	Priority float64
	// Posterior is what the deltaq policy ranks the page by now; nil under
	// another policy or when the page is no candidate for a re-fetch.
	Posterior *Posterior
	Why       string // where the numbers come from
}

// ExplainPage reads a page's fetch log and ΔQ_A measurements and the
// policy recorded by the last crawl, and explains the page's recrawl
// priority at now. Under the deltaq policy it also fits the plan's priors
// over every candidate, as a plan does (a pass over all pages' fetch
// logs), with importance as the pages' stakes (nil: every page 1).
func ExplainPage(ctx context.Context, db *repo.DB, cfg Config, url string, now time.Time, importance Importance) (Explanation, error) {
	log, err := db.FetchLog(ctx, url)
	if err != nil {
		return Explanation{}, fmt.Errorf("frontier: explain %s: %w", url, err)
	}
	ms, err := db.DeltaQs(ctx, url)
	if err != nil {
		return Explanation{}, fmt.Errorf("frontier: explain %s: %w", url, err)
	}
	policy, recorded, err := RecordedPolicy(db)
	if err != nil {
		return Explanation{}, err
	}
	if !recorded {
		policy = cfg.Policy
	}
	e := Explain(cfg, policy, log, ms, now)
	e.URL, e.PolicyFromRepository = url, recorded
	if rule, ok := baselineRules[policy]; ok {
		e.Why = rule + " The thesis estimate, shown for comparison: " + e.Why
		return e, nil
	}
	pol, err := NewPolicy(policy, cfg, importance)
	if err != nil {
		return Explanation{}, err
	}
	plan := Plan{Now: now, Period: cfg.Budget.Period, N: cfg.Budget.Fetches}
	post, ok, err := pol.(*DeltaQ).Explain(ctx, plan, candidates{db: db}, url)
	if err != nil {
		return Explanation{}, fmt.Errorf("frontier: explain %s: %w", url, err)
	}
	if !ok {
		e.Why = "not a candidate for a re-fetch now (never fetched, queued already, or a sitemap or feed, which are re-read by age); " + e.Why
		return e, nil
	}
	e.Posterior = &post
	e.Why = posteriorWhy(cfg, post)
	if importance == nil {
		e.Why += " No index is open here, so every page's stake counts as 1."
	}
	e.Why += " The thesis estimate above (δQ_A from the page's own re-downloads) is shown for comparison; the policy does not rank by it."
	return e, nil
}

// baselineRules say in a sentence how each policy but deltaq picks its
// re-fetches: none of them ranks by δQ_A.
var baselineRules = map[string]string{
	"uniform":     "uniform re-fetches, each period, the pages fetched longest ago, whatever their changes or stakes.",
	"sbr":         "sbr spreads the budget by the freshness-optimal allocation over each page's change rate, estimated from its own fetches (a change: shingles differing by at least frontier.tau), the most overdue first.",
	"ebr":         "ebr spreads the budget by the freshness-optimal allocation weighted by each page's stake in the query workload and the share of its changes that reach frontier.tau (embarrassment).",
	"lambdacrawl": "lambdacrawl re-fetches each page at the rate the harmonic-staleness optimum gives its change rate and its stake in the query workload.",
}

// posteriorWhy says in a sentence how the deltaq score of a page is made.
func posteriorWhy(cfg Config, p Posterior) string {
	var changes string
	switch {
	case p.KnownChange:
		changes = "a sitemap shows a change since the last fetch"
	case cfg.Changes == "overwrite":
		changes = fmt.Sprintf("P(changed since the last fetch) = %.3g", p.Changes)
	default:
		changes = fmt.Sprintf("E[changes since the last fetch] = %.3g", p.Changes)
	}
	why := fmt.Sprintf("deltaq expects a re-fetch now to gain E[ΔQ_A] = %.4g: %s (change rate %.3g per period, its posterior pooled with the page's host, stake class and directory, over %.3g periods no sitemap speaks for) × E[ΔQ_A of one change] = %.4g (stake %.4g in the workload, and the ΔQ_A measured on past changes). It ranks the page by that gain × those %.3g periods = %.4g, the loss its copy has accrued.",
		p.Score, changes, p.Rate, p.Open, p.Impact, p.Stake, p.Open, p.Priority)
	if p.Impact <= minPriorImpact {
		why += " With no stake, and no ΔQ_A above 0 measured on any page yet, its impact is the least there is: it goes after every page with a stake, by its chance of change."
	}
	if p.Overdue {
		why += " Not re-fetched for frontier.max_interval: it goes first whatever its score."
	}
	if p.Drawn {
		why += " Each period's plan ranks by one draw of the change rate from its posterior (Thompson sampling), so a page whose rate is uncertain is sometimes picked above its mean."
	}
	return why
}

// RecordedPolicy returns the re-fetch policy the repository was last
// crawled under; ok is false if no crawl recorded one.
func RecordedPolicy(db *repo.DB) (name string, ok bool, err error) {
	v, err := db.Meta(policyKey)
	if errors.Is(err, repo.ErrNotFound) {
		return "", false, nil
	}
	if err != nil {
		return "", false, fmt.Errorf("frontier: recorded policy: %w", err)
	}
	return string(v), true, nil
}

// recordPolicy stores the policy name if it differs from the recorded one.
func recordPolicy(ctx context.Context, db *repo.DB, name string) error {
	old, ok, err := RecordedPolicy(db)
	if err != nil || (ok && old == name) {
		return err
	}
	b := db.NewBatch(ctx)
	defer b.Close()
	if err := b.PutMeta(policyKey, []byte(name)); err != nil {
		return err
	}
	if err := b.Commit(); err != nil {
		return fmt.Errorf("frontier: record policy: %w", err)
	}
	return nil
}

// Explain is ExplainPage on a fetch log and ΔQ_A measurements already
// read, under the named policy.
func Explain(cfg Config, policy string, log []repo.FetchRecord, ms []repo.DeltaQ, now time.Time) Explanation {
	plan := Plan{Now: now, Period: cfg.Budget.Period}
	est, measured := EstimateOf(log, ms, cfg.Window, cfg.Budget.Period)
	e := Explanation{Policy: policy, Period: cfg.Budget.Period, Window: cfg.Window, Now: now, Estimate: est}
	if measured {
		e.Priority = est.Priority(plan)
		e.Why = fmt.Sprintf("δQ_A = %.4g per period, the mean of ΔQ_A/(t − LR) over the last %d re-downloads; priority δQ_A·(t − LR) = %.4g",
			est.Rate, est.Samples, e.Priority)
	} else {
		e.Why = "no re-download yet: the deltaq policy uses the mean δQ_A of the page's host as a prior, and exploration re-fetches it in time (thesis §7.2)"
	}
	return e
}
