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
// gets it.
func Share(m *Member, start time.Time) frontier.Quota { return m.quota(start) }

// Beat renews s's search heartbeat and lists the others, as Run does
// every lease_ttl/3.
func Beat(ctx context.Context, s *SearchNode) error { return s.beat(ctx) }
