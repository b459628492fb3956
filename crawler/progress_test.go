package crawler

import (
	"strings"
	"testing"
	"time"

	"github.com/deltaq/deltaq/frontier"
	"github.com/deltaq/deltaq/repo"
)

func fetched(n int64) Summary {
	return Summary{Snapshot: Snapshot{New: n, Outcomes: map[string]int64{repo.OutcomeOK.String(): n}}}
}

func TestProgressLineRateIsOverActiveTimeWithQueueAndETA(t *testing.T) {
	var p progress
	tick := time.Second
	end := time.Date(2026, 1, 1, 13, 0, 0, 0, time.UTC)
	steps := []struct {
		fetched  int64
		stats    frontier.Stats
		deferred robotsWait
		want     []string
		not      []string
	}{
		{100, frontier.Stats{Queued: 300, BudgetLimit: 1000, BudgetUsed: 100, PeriodEnd: end}, robotsWait{},
			[]string{"100 fetched (100.0/s active)", "300 queued", "ETA 3s"}, []string{"waiting"}},
		{200, frontier.Stats{Queued: 1200, BudgetLimit: 250, BudgetUsed: 200, PeriodEnd: end}, robotsWait{},
			[]string{"200 fetched (100.0/s active)", "1200 queued", "ETA 12s (more than this period's budget left)"}, nil},
		// Budget spent: nothing fetched this tick. The rate holds and the
		// line says what the crawl waits for instead of an ETA.
		{200, frontier.Stats{Queued: 1200, BudgetLimit: 200, BudgetUsed: 200, PeriodEnd: end}, robotsWait{},
			[]string{"200 fetched (100.0/s active)", "waiting: budget of 200 spent until 13:00:00"}, []string{"ETA"}},
		{200, frontier.Stats{Queued: 1200, BudgetLimit: 1000, BudgetUsed: 200, PeriodEnd: end}, robotsWait{},
			[]string{"(100.0/s active)", "waiting for hosts' politeness or back-off"}, []string{"ETA", "robots.txt"}},
		// Hosts deferred for their robots.txt wait an hour, not a
		// politeness delay: the line names them and when the first goes on.
		{200, frontier.Stats{Queued: 1200, BudgetLimit: 1000, BudgetUsed: 200, PeriodEnd: end}, robotsWait{hosts: 1, until: end},
			[]string{"waiting for hosts' politeness or back-off; 1 host's robots.txt unreachable: deferred until 13:00:00 (crawler.robots.error_defer)"}, []string{"ETA"}},
		{200, frontier.Stats{Queued: 1200, BudgetLimit: 1000, BudgetUsed: 200, PeriodEnd: end}, robotsWait{hosts: 3, until: end},
			[]string{"; 3 hosts' robots.txt unreachable: deferred, the first until 13:00:00"}, []string{"ETA"}},
		{300, frontier.Stats{Queued: 100, BudgetLimit: 1000, BudgetUsed: 300, PeriodEnd: end}, robotsWait{hosts: 1, until: end},
			[]string{"300 fetched (100.0/s active)", "100 queued", "ETA 1s"}, []string{"waiting", "robots.txt"}},
		// Nothing queued: no host's politeness holds the crawl, which
		// waits for its last fetches, then for new URLs (a cluster node
		// for the other nodes' handoffs, a continuous crawl for seeds).
		{300, frontier.Stats{Queued: 0, InFlight: 2, BudgetLimit: 1000, BudgetUsed: 300, PeriodEnd: end}, robotsWait{},
			[]string{"0 queued, waiting for 2 requests in flight"}, []string{"politeness", "ETA"}},
		{300, frontier.Stats{Queued: 0, BudgetLimit: 1000, BudgetUsed: 300, PeriodEnd: end}, robotsWait{},
			[]string{"0 queued, waiting for new URLs"}, []string{"politeness", "ETA"}},
	}
	for i, s := range steps {
		line := p.line(fetched(s.fetched), s.stats, s.deferred, tick)
		for _, w := range s.want {
			if !strings.Contains(line, w) {
				t.Errorf("tick %d: %q lacks %q", i, line, w)
			}
		}
		for _, w := range s.not {
			if strings.Contains(line, w) {
				t.Errorf("tick %d: %q has %q", i, line, w)
			}
		}
	}
}
