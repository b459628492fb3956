package cluster

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"maps"
	"slices"
	"strconv"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/nats-io/nats.go/jetstream"

	"github.com/deltaq/deltaq/crawler"
	"github.com/deltaq/deltaq/frontier"
	"github.com/deltaq/deltaq/repo"
)

// NodeStatus is what a node says of itself in its heartbeat, every lease
// tick: enough for `deltaq cluster status` and for every node to tell
// when the whole crawl is over.
type NodeStatus struct {
	Fetched   int64   `json:"fetched"`   // pages fetched since the node started
	Rate      float64 `json:"rate"`      // pages per second over the last tick
	Published int64   `json:"published"` // handoffs sent to other shards
	Received  int64   `json:"received"`  // handoffs taken from its shards
	Idle      bool    `json:"idle"`      // frontier drained, no handoff of its own pending
	Crawling  bool    `json:"crawling"`  // past WaitNodes: the crawl has begun
	// The budget (Member.Budget; budget.go): the demand measured at this
	// heartbeat and when, the one measured at the heartbeat before, the
	// budget period this heartbeat is in, the demand that period is
	// divided by, and the node's share of the last period it asked for.
	Demand   frontier.Demand `json:"demand"`
	Measured time.Time       `json:"measured"`
	Previous frontier.Demand `json:"previous"`
	Period   time.Time       `json:"period"`
	Settled  frontier.Demand `json:"settled"`
	Share    frontier.Quota  `json:"share"`
}

// Status is the cluster as its buckets and stream show it.
type Status struct {
	Shards []ShardStatus
	Nodes  map[string]NodeStatus // alive nodes by name
	// Search holds the nodes serving search and the members whose
	// heartbeat lapsed, which every answer names missing: name → serving.
	Search map[string]bool
}

// ShardStatus is one shard: its owner ("" if none) and its lag, the
// handed-over URLs waiting in its subject for the owner to commit them.
type ShardStatus struct {
	Shard int
	Owner string
	Lag   uint64
}

// ReadStatus connects to url and reads the cluster's state, its crawl's
// and its search's, whichever has run. It shows the cluster's shard count,
// as its first crawl node stored it; shards (cluster.shards) where it
// stored none.
func ReadStatus(ctx context.Context, url string, shards int) (*Status, error) {
	nc, js, err := connect(url, "deltaq-status")
	if err != nil {
		return nil, err
	}
	defer nc.Close()
	st := &Status{Nodes: map[string]NodeStatus{}}
	if st.Search, err = readSearch(ctx, js); err != nil {
		return nil, err
	}
	shardKV, err := js.KeyValue(ctx, shardBucket)
	if errors.Is(err, jetstream.ErrBucketNotFound) && st.Search != nil {
		return st, nil // a cluster that serves search and has not crawled
	}
	if err != nil {
		return nil, fmt.Errorf("cluster: bucket %s (has a node joined?): %w", shardBucket, err)
	}
	nodeKV, err := js.KeyValue(ctx, nodeBucket)
	if err != nil {
		return nil, fmt.Errorf("cluster: bucket %s: %w", nodeBucket, err)
	}
	if st.Nodes, err = readNodes(ctx, nodeKV); err != nil {
		return nil, err
	}
	owners, err := readOwners(ctx, shardKV)
	if err != nil {
		return nil, err
	}
	lags, err := shardLags(ctx, js)
	if err != nil {
		return nil, err
	}
	if kv, err := js.KeyValue(ctx, settingsBucket); err == nil {
		stored, err := readSettings(ctx, kv)
		switch {
		case err == nil:
			shards = stored.Shards
		case !errors.Is(err, jetstream.ErrKeyNotFound):
			return nil, err
		}
	} else if !errors.Is(err, jetstream.ErrBucketNotFound) {
		return nil, fmt.Errorf("cluster: bucket %s: %w", settingsBucket, err)
	}
	for s := range shards {
		st.Shards = append(st.Shards, ShardStatus{Shard: s, Owner: owners[s], Lag: lags[s]})
	}
	return st, nil
}

// readNodes reads every live heartbeat.
func readNodes(ctx context.Context, kv jetstream.KeyValue) (map[string]NodeStatus, error) {
	out := map[string]NodeStatus{}
	keys, err := listKeys(ctx, kv)
	if err != nil {
		return nil, fmt.Errorf("cluster: list nodes: %w", err)
	}
	for _, k := range keys {
		e, err := kv.Get(ctx, k)
		if errors.Is(err, jetstream.ErrKeyNotFound) {
			continue // expired since listed
		}
		if err != nil {
			return nil, fmt.Errorf("cluster: node %s: %w", k, err)
		}
		var ns NodeStatus
		if len(e.Value()) > 0 {
			if err := json.Unmarshal(e.Value(), &ns); err != nil {
				return nil, fmt.Errorf("cluster: heartbeat of node %s: %w", k, err)
			}
		}
		out[k] = ns
	}
	return out, nil
}

// readSearch reads the search's members and heartbeats: name → serving;
// nil when no node has served search.
func readSearch(ctx context.Context, js jetstream.JetStream) (map[string]bool, error) {
	members, beats, err := openSearch(ctx, js)
	if errors.Is(err, jetstream.ErrBucketNotFound) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	serving, lapsed, err := listSearch(ctx, members, beats)
	if err != nil {
		return nil, err
	}
	out := map[string]bool{}
	for _, n := range lapsed {
		out[n] = false
	}
	for _, n := range serving {
		out[n] = true
	}
	return out, nil
}

// readOwners maps each leased shard to its owner.
func readOwners(ctx context.Context, kv jetstream.KeyValue) (map[int]string, error) {
	out := map[int]string{}
	keys, err := listKeys(ctx, kv)
	if err != nil {
		return nil, fmt.Errorf("cluster: list leases: %w", err)
	}
	for _, k := range keys {
		s, err := strconv.Atoi(strings.TrimPrefix(k, "s"))
		if err != nil {
			continue // not a lease key
		}
		e, err := kv.Get(ctx, k)
		if errors.Is(err, jetstream.ErrKeyNotFound) {
			continue
		}
		if err != nil {
			return nil, fmt.Errorf("cluster: lease %s: %w", k, err)
		}
		out[s] = string(e.Value())
	}
	return out, nil
}

// shardLags counts the messages waiting in each shard's subject.
func shardLags(ctx context.Context, js jetstream.JetStream) (map[int]uint64, error) {
	st, err := js.Stream(ctx, linkStream)
	if err != nil {
		return nil, fmt.Errorf("cluster: stream %s: %w", linkStream, err)
	}
	info, err := st.Info(ctx, jetstream.WithSubjectFilter(linkSubject+"*"))
	if err != nil {
		return nil, fmt.Errorf("cluster: stream %s: %w", linkStream, err)
	}
	out := map[int]uint64{}
	for subj, n := range info.State.Subjects {
		if s, err := strconv.Atoi(strings.TrimPrefix(subj, linkSubject)); err == nil {
			out[s] = n
		}
	}
	return out, nil
}

// Write prints the status as tables: the crawl's nodes, then its shards
// (when the cluster has crawled), then the search's nodes (when it has
// served search).
func (st *Status) Write(w io.Writer) error {
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	if len(st.Shards) == 0 && st.Search != nil {
		writeSearch(tw, st.Search)
		return tw.Flush()
	}
	fmt.Fprintln(tw, "NODE\tSHARDS\tFETCHED\tPAGES/S\tHANDOFFS OUT\tIN\tIDLE\tDEMAND N/R/D/M\tSHARE N/R/D/M")
	names := make([]string, 0, len(st.Nodes))
	for n := range st.Nodes {
		names = append(names, n)
	}
	slices.Sort(names)
	for _, n := range names {
		ns, owned := st.Nodes[n], 0
		for _, s := range st.Shards {
			if s.Owner == n {
				owned++
			}
		}
		fmt.Fprintf(tw, "%s\t%d\t%d\t%.1f\t%d\t%d\t%v\t%s\t%s\n", n, owned, ns.Fetched, ns.Rate, ns.Published, ns.Received, ns.Idle,
			perClass(ns.Settled), perClass(ns.Share))
	}
	fmt.Fprintln(tw)
	fmt.Fprintln(tw, "SHARD\tOWNER\tLAG")
	for _, s := range st.Shards {
		owner := s.Owner
		if owner == "" {
			owner = "-"
		}
		fmt.Fprintf(tw, "%d\t%s\t%d\n", s.Shard, owner, s.Lag)
	}
	if st.Search != nil {
		fmt.Fprintln(tw)
		writeSearch(tw, st.Search)
	}
	return tw.Flush()
}

// writeSearch prints the search's nodes, by name.
func writeSearch(w io.Writer, search map[string]bool) {
	fmt.Fprintln(w, "SEARCH NODE\tSTATE")
	names := slices.Sorted(maps.Keys(search))
	for _, n := range names {
		state := "serving"
		if !search[n] {
			state = "no heartbeat: named missing in every answer (deltaq cluster forget " + n + " if it will not come back)"
		}
		fmt.Fprintf(w, "%s\t%s\n", n, state)
	}
}

// perClass shows a demand or share as new/recrawl/discovery/monitor.
func perClass[T ~[repo.NumClasses]int](v T) string {
	parts := make([]string, len(v))
	for c, n := range v {
		parts[c] = strconv.Itoa(n)
	}
	return strings.Join(parts, "/")
}

// idle reports whether the whole cluster has nothing left to do as far as
// the heartbeats and the stream show: every shard leased, every live node
// idle, no handoff waiting. mark sums the nodes' counters, which must not
// move between two idle observations for the crawl to be over.
func (m *Member) idle(ctx context.Context) (ok bool, mark int64, err error) {
	nodes, err := readNodes(ctx, m.leases.nodes)
	if err != nil {
		return false, 0, err
	}
	owners, err := readOwners(ctx, m.leases.shards)
	if err != nil {
		return false, 0, err
	}
	pending, err := m.Pending(ctx)
	if err != nil {
		return false, 0, err
	}
	ok = len(owners) == m.cfg.Shards && pending == 0 && len(nodes) > 0
	for _, ns := range nodes {
		ok = ok && ns.Idle
		mark += ns.Fetched + ns.Published + ns.Received
	}
	return ok, mark, nil
}

// Quiesce returns once the whole cluster has been idle (see idle) at two
// lease ticks in a row with no node's counters moving between: the end of
// a one-pass crawl over several nodes. It returns ctx's error if ctx ends
// first.
func (m *Member) Quiesce(ctx context.Context) error {
	calm, last := 0, int64(-1)
	for calm < 2 {
		if err := m.leases.clock.WaitUntil(ctx, m.leases.clock.Now().Add(m.RouteWait())); err != nil {
			return err
		}
		lctx, cancel := context.WithTimeout(ctx, m.RouteWait())
		ok, mark, err := m.idle(lctx)
		cancel()
		if err != nil {
			if ctx.Err() != nil {
				return ctx.Err()
			}
			// A server lost or the client reconnecting: not known to be idle.
			m.logger.Warn("reading the cluster's state", "err", err)
			ok = false
		}
		if ok && mark == last {
			calm++
		} else {
			calm = 0
		}
		last = mark
	}
	return nil
}

// WaitNodes returns once n nodes are alive, or a node alive has begun
// crawling, and every shard is leased to one of them in fair shares, so
// that a crawl starting then does not see shards change hands; it
// returns ctx's error if ctx ends first. A node coming to a crawl that
// has begun joins it: the nodes it waits for may have died since they
// began, and it would wait for them forever. A reading that fails as
// requests do while a server is lost is taken again at the next look, as
// the member's other loops do.
//
// Each look gets half a lease tick: a request lost while a bucket elects
// a leader would otherwise wait for the client's timeout (a minute), and
// a node that waited so missed the moment the others began, then waited
// for a node that had died meanwhile.
func (m *Member) WaitNodes(ctx context.Context, n int) error {
	for {
		lctx, cancel := context.WithTimeout(ctx, m.RouteWait()/2)
		fair, err := m.fairlyLeased(lctx, n)
		cancel()
		switch {
		case err == nil && fair:
			m.crawling.Store(true)
			return nil
		case err != nil && (ctx.Err() != nil || !isTransient(err) && !errors.Is(err, errListCut)):
			return err
		case err != nil:
			m.logger.Warn("waiting for nodes", "err", err)
		}
		if err := m.leases.clock.WaitUntil(ctx, m.leases.clock.Now().Add(m.RouteWait()/2)); err != nil {
			return err
		}
	}
}

// fairlyLeased reports whether this node is alive with n nodes, or with
// a node that has begun crawling, and every shard is leased to one of
// them in fair shares.
func (m *Member) fairlyLeased(ctx context.Context, n int) (bool, error) {
	nodes, err := readNodes(ctx, m.leases.nodes)
	if err != nil {
		return false, err
	}
	owners, err := readOwners(ctx, m.leases.shards)
	if err != nil {
		return false, err
	}
	_, alive := nodes[m.cfg.Node]
	begun := false
	for _, ns := range nodes {
		begun = begun || ns.Crawling
	}
	share := (m.cfg.Shards + max(len(nodes), 1) - 1) / max(len(nodes), 1)
	fair := alive && (len(nodes) >= n || begun) && len(owners) == m.cfg.Shards
	count := map[string]int{}
	for _, o := range owners {
		count[o]++
	}
	for name := range nodes {
		fair = fair && count[name] >= m.cfg.Shards/len(nodes) && count[name] <= share
	}
	return fair, nil
}

// fetchedElsewhere reports whether host's shard is not this node's now.
// A URL this node holds queued for such a host is not its work to wait
// for: its message stays in the stream until the shard's owner, whose
// consumer delivers it again on taking the shard, fetches it (Pending
// counts it meanwhile). A node waiting for it instead would never be idle
// once a lease moved mid-crawl, and the crawl would never end.
func (m *Member) fetchedElsewhere(host string) bool {
	return !m.leases.Owns(ShardOf(host, m.cfg.Shards))
}

// statusOf builds the heartbeat of a node crawling with c and f: its
// counters, its rate since the previous heartbeat, and whether it is idle.
func (m *Member) statusOf(c *crawler.Crawler, f *frontier.Frontier) func() []byte {
	var lastFetched int64
	var lastAt time.Time
	return func() []byte {
		now := m.leases.clock.Now()
		ns := NodeStatus{
			Fetched: c.Counters().Snapshot().Fetched(), Published: m.stats.Published.Load(),
			Received: m.stats.Received.Load(),
			Idle:     f.DrainedExcept(m.drainHorizon, m.fetchedElsewhere) && len(m.out) == 0 && m.busy.Load() == 0,
			Crawling: m.crawling.Load(),
		}
		if m.budget != nil {
			d := f.Demand() // may wait for the frontier's lock: timed after
			m.budget.measure(m.leases.clock.Now(), d, &ns)
		}
		if !lastAt.IsZero() && now.After(lastAt) {
			ns.Rate = float64(ns.Fetched-lastFetched) / now.Sub(lastAt).Seconds()
		}
		lastFetched, lastAt = ns.Fetched, now
		data, err := json.Marshal(ns)
		if err != nil {
			m.logger.Error("encode heartbeat", "err", err)
			return nil
		}
		return data
	}
}
