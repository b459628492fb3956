package frontier

import (
	"context"
	"fmt"
	"iter"
	"time"

	"github.com/deltaq/deltaq/repo"
)

// A Policy chooses which known pages to re-fetch to keep the repository
// synchronized (thesis ch. 4). The frontier asks it once per budget period
// for up to Plan.N pages and queues them; politeness then decides when each
// is fetched.
type Policy interface {
	// Name is the policy's key in frontier.policy and in reports.
	Name() string
	// Select returns up to plan.N URLs from pages, most valuable first.
	Select(ctx context.Context, plan Plan, pages Pages) ([]string, error)
}

// Plan is one period's request to a policy.
type Plan struct {
	Now    time.Time
	N      int           // pages to choose
	Period time.Duration // the budget period; policies express rates per period
}

// periods is the time since t in periods.
func (p Plan) periods(t time.Time) float64 {
	if t.IsZero() {
		return 0
	}
	return p.Now.Sub(t).Seconds() / p.Period.Seconds()
}

// Importance weighs a page by how much users would see it under the query
// workload (EBR and LambdaCrawl's μ). Nil means every page weighs 1.
type Importance func(url string) float64

// Pages is what policies read about the pages they may choose from. The
// repository provides it; the frontier narrows Candidates to pages that have
// been fetched and are not already queued for a re-fetch.
type Pages interface {
	// Candidates yields the pages a policy may choose.
	Candidates(ctx context.Context) iter.Seq2[repo.Page, error]
	// FetchLog returns a page's fetch history, oldest first.
	FetchLog(ctx context.Context, url string) ([]repo.FetchRecord, error)
	// DeltaQs returns a page's ΔQ_A measurements, oldest first.
	DeltaQs(ctx context.Context, url string) ([]repo.DeltaQ, error)
}

// Policies lists the names frontier.policy accepts.
func Policies() []string {
	return []string{"uniform", "sbr", "ebr", "lambdacrawl", "deltaq"}
}

// NewPolicy returns the policy named name, with the parameters of cfg.
// importance may be nil.
func NewPolicy(name string, cfg Config, importance Importance) (Policy, error) {
	switch name {
	case "uniform":
		return Uniform{}, nil
	case "sbr":
		return &SBR{Tau: cfg.Tau}, nil
	case "ebr":
		return &EBR{Tau: cfg.Tau, Importance: importance}, nil
	case "lambdacrawl":
		return &LambdaCrawl{Importance: importance}, nil
	case "deltaq":
		return &DeltaQ{Window: cfg.Window, Changes: cfg.Changes, Exploration: cfg.Exploration, MaxInterval: cfg.MaxInterval, Seed: cfg.Seed, SitemapLastMod: cfg.SitemapLastMod, Importance: importance}, nil
	}
	return nil, fmt.Errorf("frontier.policy = %q: must be one of %v", name, Policies())
}
