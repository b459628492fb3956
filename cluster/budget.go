package cluster

import (
	"context"
	"encoding/json"
	"errors"
	"maps"
	"math/bits"
	"slices"
	"sync"
	"time"

	"github.com/nats-io/nats.go/jetstream"

	"github.com/deltaq/deltaq/frontier"
	"github.com/deltaq/deltaq/repo"
)

// The bucket holding the allocation of the latest period asked for, under
// one key: written once per period by the first node to ask, read by the
// others, so that all spend shares of one allocation. The key keeps the
// allocations of the last budgetHistory periods asked for, so that a node
// asking for a period after the next one's was stored (stalled on a
// loaded machine) still finds the one the others spent.
const (
	budgetBucket  = "deltaq_budget"
	budgetKey     = "allocation"
	budgetHistory = 16
)

// evenPart: of the budget for new URLs, one part in evenPart is split
// evenly among the nodes (at least one fetch each when there are as many
// as nodes), so that a node with no URL queued yet, whose shards receive
// URLs from the others during the period, can still start.
const evenPart = 8

// Allocate divides the cluster's budget of one period among the nodes
// alive. Each re-fetch class (recrawl, discovery, monitor) gives every
// node its demand if the nodes' demands fit in the class's budget, and
// shares in proportion to demand if they do not; what it leaves joins the
// budget for new URLs, as a single frontier lets unused shares flow to
// new URLs. That budget is split as an even floor (evenPart) and the rest
// in proportion to the nodes' new URLs queued (evenly if none has any).
// Proportions go by largest remainder, ties to the node whose name sorts
// first, so the shares sum to global.Total() exactly; the result depends
// only on its inputs, so every node computes the same shares from the
// same heartbeats.
func Allocate(global frontier.Quota, demand map[string]frontier.Demand) map[string]frontier.Quota {
	names := slices.Sorted(maps.Keys(demand))
	out := make(map[string]frontier.Quota, len(names))
	n := len(names)
	if n == 0 {
		return out
	}
	shares := make([]frontier.Quota, n)
	weights := make([]int, n)
	fresh := global[repo.ClassNew]
	for c := range repo.NumClasses {
		if c == int(repo.ClassNew) {
			continue
		}
		sum := 0
		for i, name := range names {
			weights[i] = max(0, demand[name][c])
			sum += weights[i]
		}
		if sum <= global[c] {
			for i, w := range weights {
				shares[i][c] = w
			}
			fresh += global[c] - sum
			continue
		}
		for i, v := range proportional(global[c], weights, sum) {
			shares[i][c] = v
		}
	}
	floor := 0
	if fresh >= n {
		floor = max(1, fresh/(evenPart*n))
	}
	sum := 0
	for i, name := range names {
		weights[i] = max(0, demand[name][repo.ClassNew])
		sum += weights[i]
	}
	if sum == 0 {
		for i := range weights {
			weights[i] = 1
		}
		sum = n
	}
	for i, v := range proportional(fresh-floor*n, weights, sum) {
		shares[i][repo.ClassNew] = floor + v
	}
	for i, name := range names {
		out[name] = shares[i]
	}
	return out
}

// proportional splits total in proportion to weights (summing to sum > 0)
// by largest remainder: the parts sum to total exactly.
func proportional(total int, weights []int, sum int) []int {
	parts := make([]int, len(weights))
	rems := make([]uint64, len(weights))
	left := total
	for i, w := range weights {
		// total·w may not fit in 64 bits for a large budget.
		hi, lo := bits.Mul64(uint64(total), uint64(w))
		q, r := bits.Div64(hi, lo, uint64(sum))
		parts[i], rems[i] = int(q), r
		left -= int(q)
	}
	order := make([]int, len(weights))
	for i := range order {
		order[i] = i
	}
	slices.SortStableFunc(order, func(a, b int) int {
		switch {
		case rems[a] > rems[b]:
			return -1
		case rems[a] < rems[b]:
			return 1
		}
		return 0
	})
	for _, i := range order[:left] {
		parts[i]++
	}
	return parts
}

// nodeBudget is this node's part in dividing the cluster's budget
// (Member.Budget): the demands its heartbeats publish and the share it
// took last.
type nodeBudget struct {
	allocs jetstream.KeyValue // budgetBucket
	global frontier.Quota
	period time.Duration
	// margin: a period is divided by the demands measured at least margin
	// before it began (demandFor).
	margin time.Duration
	// computing makes concurrent askers of one period wait for one
	// computation.
	computing sync.Mutex
	mu        sync.Mutex
	// beat holds the budget fields of the heartbeat: the last two
	// demands measured, the period of the last, and the demand that
	// period is divided by.
	beat  NodeStatus
	share frontier.Quota
	// shareFor is the period share was taken for; nodes is how many
	// nodes that period's allocation covered, which an even split falls
	// back to when the servers cannot be read. agreed is whether share
	// is of the period's stored allocation (shareOf).
	shareFor time.Time
	nodes    int
	agreed   bool
}

// Budget makes this node spend a share of the cluster's budget, cfg's
// frontier.budget.fetches split by frontier.split, and returns the
// frontier.Options.Quota that gives it. Each heartbeat then carries the
// node's demand (f.Demand) and share. It creates (or opens) the bucket of
// the periods' allocations. Call it before Run.
func (m *Member) Budget(ctx context.Context, cfg frontier.Config) (func(start time.Time) frontier.Quota, error) {
	b := &nodeBudget{global: frontier.QuotaOf(cfg), period: cfg.Budget.Period, margin: m.RouteWait() / 2, nodes: 1}
	var err error
	if b.allocs, err = createBucket(ctx, m.js, m.cfg, jetstream.KeyValueConfig{Bucket: budgetBucket, History: budgetHistory}); err != nil {
		return nil, err
	}
	m.budget = b
	return m.quota, nil
}

// measure records the demand d measured at now for the heartbeat: the
// first measurement in a period settles the period's demand (demandFor
// of the heartbeat before; the node's first measurement, if none was
// before).
func (b *nodeBudget) measure(now time.Time, d frontier.Demand, ns *NodeStatus) {
	b.mu.Lock()
	defer b.mu.Unlock()
	period := now.Truncate(b.period)
	if !period.Equal(b.beat.Period) {
		b.beat.Settled = d
		if !b.beat.Measured.IsZero() {
			b.beat.Settled = b.beat.demandFor(period, b.margin)
		}
		b.beat.Period = period
	}
	b.beat.Previous, b.beat.Demand, b.beat.Measured = b.beat.Demand, d, now
	ns.Demand, ns.Measured, ns.Previous = b.beat.Demand, b.beat.Measured, b.beat.Previous
	ns.Period, ns.Settled, ns.Share = b.beat.Period, b.beat.Settled, b.share
}

// demandFor is the demand a heartbeat gives for the period starting at
// start: the last measured more than margin before start, so that the
// heartbeat carrying it has been stored (the put takes less than margin)
// by the time any node asks. A heartbeat of start's period holds it as
// its Settled; one of an earlier period as its Demand, or its Previous if
// the Demand was measured within margin of start (heartbeats are a lease
// tick apart, twice margin). (A heartbeat of a later period, read by a
// node that asks late, gives its own period's Settled: the nearest it
// has.)
func (ns NodeStatus) demandFor(start time.Time, margin time.Duration) frontier.Demand {
	switch {
	case !ns.Period.Before(start):
		return ns.Settled
	case ns.Measured.Before(start.Add(-margin)):
		return ns.Demand
	default:
		return ns.Previous
	}
}

// quota is this node's share of the period starting at start (the
// frontier's Options.Quota, asked once per period under the frontier's
// lock), from the period's allocation (allocation). A node the allocation
// leaves out (it joined after the allocation was stored) gets nothing
// until the next period. If the servers cannot be read within a lease
// tick, it is an even split over the nodes of the last allocation.
func (m *Member) quota(start time.Time) frontier.Quota {
	share, _ := m.shareOf(start)
	return share
}

// shareOf is quota, and whether the share is of the period's stored
// allocation, the one every node spends (not an even split, nor an
// allocation of this node's own making).
func (m *Member) shareOf(start time.Time) (share frontier.Quota, agreed bool) {
	b := m.budget
	b.computing.Lock()
	defer b.computing.Unlock()
	b.mu.Lock()
	if b.shareFor.Equal(start) {
		defer b.mu.Unlock()
		return b.share, b.agreed
	}
	own := b.beat
	b.mu.Unlock()
	ctx, cancel := context.WithTimeout(context.Background(), m.RouteWait())
	defer cancel()
	shares, stored, err := m.allocation(ctx, start, own)
	b.mu.Lock()
	defer b.mu.Unlock()
	if err == nil {
		share, b.nodes = shares[m.cfg.Node], max(len(shares), 1)
		if stored {
			m.logger.Info("budget share", "period", start, "nodes", len(shares), "share", share)
		} else {
			m.logger.Warn("budget share: the period's allocation is no longer stored, an allocation of this node's own",
				"period", start, "nodes", len(shares), "share", share, "kept", budgetHistory)
		}
	} else {
		for c := range share {
			share[c] = b.global[c] / b.nodes
		}
		m.logger.Warn("budget share: allocation unreadable, an even split", "period", start, "nodes", b.nodes, "err", err)
	}
	b.share, b.shareFor, b.agreed = share, start, stored
	return share, stored
}

// storedAllocation is the value of budgetKey.
type storedAllocation struct {
	Period time.Time                 `json:"period"`
	Shares map[string]frontier.Quota `json:"shares"`
}

// allocation is the cluster's allocation of the period starting at start:
// the stored one if a node stored it already, otherwise the one this node
// computes (allocate) and stores first, compare-and-set on the key's
// revision, so that every node spends a share of the same allocation
// however late each heartbeat was stored. A node asking for a period
// older than the stored one (asking late) takes the period's from the
// key's history (earlier); one older than the history, or than the
// cluster (its clock behind), computes its own. The bool reports whether
// the shares are the stored ones (false with every error).
func (m *Member) allocation(ctx context.Context, start time.Time, own NodeStatus) (map[string]frontier.Quota, bool, error) {
	kv := m.budget.allocs
	for {
		var rev uint64
		e, err := kv.Get(ctx, budgetKey)
		switch {
		case errors.Is(err, jetstream.ErrKeyNotFound):
		case err != nil:
			return nil, false, err
		default:
			var a storedAllocation
			switch err := json.Unmarshal(e.Value(), &a); {
			case err != nil:
				m.logger.Warn("budget allocation undecodable: replaced", "bucket", budgetBucket, "err", err)
			case a.Period.Equal(start):
				return a.Shares, true, nil
			case a.Period.After(start):
				if shares, ok, err := m.earlier(ctx, start); err != nil || ok {
					return shares, ok, err
				}
				shares, err := m.allocate(ctx, start, own)
				return shares, false, err
			}
			rev = e.Revision()
		}
		shares, err := m.allocate(ctx, start, own)
		if err != nil {
			return nil, false, err
		}
		data, err := json.Marshal(storedAllocation{Period: start, Shares: shares})
		if err != nil {
			return nil, false, err
		}
		if rev == 0 {
			_, err = kv.Create(ctx, budgetKey, data)
		} else {
			_, err = kv.Update(ctx, budgetKey, data, rev)
		}
		switch {
		case err == nil:
			return shares, true, nil
		case errors.Is(err, jetstream.ErrKeyExists), errors.Is(err, jetstream.ErrKeyRevisionMismatch):
			// Another node stored the period's allocation first: read it.
		default:
			return nil, false, err
		}
	}
}

// earlier is the stored allocation of the period starting at start among
// the last budgetHistory stored; ok is false if it is not among them.
func (m *Member) earlier(ctx context.Context, start time.Time) (shares map[string]frontier.Quota, ok bool, err error) {
	history, err := m.budget.allocs.History(ctx, budgetKey)
	if err != nil {
		return nil, false, err
	}
	for _, e := range slices.Backward(history) {
		var a storedAllocation
		if json.Unmarshal(e.Value(), &a) == nil && a.Period.Equal(start) {
			return a.Shares, true, nil
		}
	}
	return nil, false, nil
}

// allocate divides the period starting at start by the demands of the
// nodes whose heartbeats are alive (Allocate), this node's own from
// memory.
func (m *Member) allocate(ctx context.Context, start time.Time, own NodeStatus) (map[string]frontier.Quota, error) {
	nodes, err := readNodes(ctx, m.leases.nodes)
	if err != nil {
		return nil, err
	}
	margin := m.budget.margin
	demand := map[string]frontier.Demand{m.cfg.Node: own.demandFor(start, margin)}
	for name, ns := range nodes {
		if name != m.cfg.Node {
			demand[name] = ns.demandFor(start, margin)
		}
	}
	return Allocate(m.budget.global, demand), nil
}
