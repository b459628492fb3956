package frontier

import (
	"context"
	"fmt"
	"iter"
	"time"

	"github.com/deltaq/deltaq/crawler/repo"
)

// A Policy chooses which known pages to re-fetch to keep the repository
// synchronized (thesis ch. 4). The frontier asks it once per budget period
// for up to n pages and queues them; politeness then decides when each is
// fetched.
type Policy interface {
	// Name is the policy's key in frontier.policy and in reports.
	Name() string
	// Select returns up to n URLs from pages, most valuable first.
	Select(ctx context.Context, now time.Time, n int, pages Pages) ([]string, error)
}

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
func Policies() []string { return []string{Uniform{}.Name()} }

// NewPolicy returns the policy named by frontier.policy.
func NewPolicy(name string) (Policy, error) {
	switch name {
	case Uniform{}.Name():
		return Uniform{}, nil
	}
	return nil, fmt.Errorf("frontier.policy = %q: must be one of %v", name, Policies())
}
