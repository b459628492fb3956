package cluster

import (
	"context"
	"time"

	"github.com/deltaq/deltaq/crawler"
	"github.com/deltaq/deltaq/frontier"
)

// Heartbeats makes m's lease ticks carry c's and f's status, as Run does,
// for tests that tick by hand.
func Heartbeats(m *Member, c *crawler.Crawler, f *frontier.Frontier) {
	m.leases.status = m.statusOf(c, f)
}

// Share is m's share of the period starting at start, as its frontier
// gets it, and whether it is of the period's stored allocation, the one
// every node spends (false: an even split or an allocation of m's own,
// taken when the servers were slow to answer or m asked late).
func Share(m *Member, start time.Time) (q frontier.Quota, agreed bool) { return m.shareOf(start) }

// BudgetHistory is how many periods' allocations the budget bucket keeps.
const BudgetHistory = budgetHistory

// Beat renews s's search heartbeat and lists the others, as Run does
// every lease_ttl/3.
func Beat(ctx context.Context, s *SearchNode) error { return s.beat(ctx) }
