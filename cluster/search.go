package cluster

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"runtime"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"

	"github.com/deltaq/deltaq/index"
	"github.com/deltaq/deltaq/index/fanout"
	"github.com/deltaq/deltaq/internal/clock"
)

// Search across nodes: each node serving search (`deltaq serve --cluster`)
// answers its index's part of every search on its own subject and fans
// its own users' searches out to the nodes alive.
const (
	// searchBucket: node name → "", a heartbeat with cluster lease_ttl,
	// the nodes serving search now. Not deltaq_nodes: a crawl node's
	// heartbeat ends with its crawl, while its index serves on.
	searchBucket = "deltaq_searchers"
	// searchMemberBucket: node → "", without a TTL, the nodes that serve
	// search and have not left (Run's end). A member without a heartbeat
	// in searchBucket stopped without leaving (killed, stalled, cut off):
	// its pages are missing from every answer, which names it, until it
	// beats again or is forgotten (ForgetSearchNode).
	searchMemberBucket = "deltaq_search_members"
	// searchSubject + node: requests to the node's index (request/reply).
	searchSubject = "deltaq.search."
)

// SearchSubject is the subject node answers search requests on
// (fanout.Request in JSON, request/reply).
func SearchSubject(node string) string { return searchSubject + node }

// Bounds of a request a node answers; beyond them the request is refused
// with an error naming the field, the value and the bound.
const (
	maxShardLimit = 10_000 // pages asked of one node
	maxFeedback   = 100    // RM3 feedback pages asked of one node
	maxWords      = 256    // words whose statistics are asked
	maxShownURLs  = 1_000  // pages whose titles and snippets are asked
)

// SearchIndex is what a node serves of its index: its part of a
// fanned-out search and the titles and snippets of its pages.
type SearchIndex interface {
	fanout.Shard
	Shown(ctx context.Context, q index.Query, urls []string) ([]index.Hit, error)
	Titles(ctx context.Context, urls []string) ([]index.Hit, error)
}

// SearchOptions are the non-configuration inputs of JoinSearch.
type SearchOptions struct {
	Clock     clock.Clock // nil means the wall clock
	Logger    *slog.Logger
	Limits    index.Limits          // the query syntax's (index.Config.Limits)
	Retrieval index.RetrievalConfig // the same on every node
}

// SearchNode is one node's part in the cluster's search: it answers the
// other nodes' requests to its index and fans its own searches out.
type SearchNode struct {
	cfg     Config
	opts    SearchOptions
	nc      *nats.Conn
	kv      jetstream.KeyValue // heartbeats
	members jetstream.KeyValue
	ix      SearchIndex
	logger  *slog.Logger
	nodes   atomic.Pointer[[]string] // the other nodes serving search, as last listed
	lapsed  atomic.Pointer[[]string] // the members without a heartbeat, as last listed
	clock   clock.Clock
	// down holds the nodes that failed a search, until a time: searches
	// until then do not wait for them again (each would cost
	// search_timeout) and report them missing. At most one entry per
	// node listed.
	down sync.Map // node name → time.Time
	// Stats count coordination traffic; they only grow.
	Stats SearchStats
}

// SearchStats count a node's search coordination.
type SearchStats struct {
	Requests atomic.Int64 // requests sent to other nodes
	Bytes    atomic.Int64 // their payloads and the answers'
	Served   atomic.Int64 // requests answered for other nodes
	Refused  atomic.Int64 // of those, refused as bad
}

// JoinSearch connects to the cluster's NATS servers as node cfg.Node
// serving ix. Run serves it; Close disconnects.
func JoinSearch(ctx context.Context, cfg Config, ix SearchIndex, opts SearchOptions) (*SearchNode, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	if cfg.SearchTimeout <= 0 {
		return nil, fmt.Errorf("cluster.search_timeout = %v: must be in (0, 1m]", cfg.SearchTimeout)
	}
	logger := opts.Logger
	if logger == nil {
		logger = slog.New(slog.DiscardHandler)
	}
	nc, js, err := connect(cfg.URL, "deltaq-search-"+cfg.Node, nats.MaxReconnects(-1))
	if err != nil {
		return nil, err
	}
	s := &SearchNode{cfg: cfg, opts: opts, nc: nc, ix: ix, clock: opts.Clock, logger: logger.With("component", "cluster-search", "node", cfg.Node)}
	if s.clock == nil {
		s.clock = clock.Real{}
	}
	if s.kv, err = createBucket(ctx, js, cfg, jetstream.KeyValueConfig{Bucket: searchBucket, TTL: cfg.LeaseTTL}); err != nil {
		nc.Close()
		return nil, err
	}
	if s.members, err = createBucket(ctx, js, cfg, jetstream.KeyValueConfig{Bucket: searchMemberBucket}); err != nil {
		nc.Close()
		return nil, err
	}
	s.nodes.Store(&[]string{})
	s.lapsed.Store(&[]string{})
	return s, nil
}

// Close disconnects from the servers.
func (s *SearchNode) Close() { s.nc.Close() }

// Run answers requests to this node's index and keeps its heartbeat and
// its list of the other nodes fresh (every lease_ttl/3) until ctx ends.
func (s *SearchNode) Run(ctx context.Context) error {
	// NATS delivers a subscription's messages one at a time: each is
	// answered on its own goroutine, at most one per core at once (the
	// subscription waits beyond), so one slow search does not hold the
	// others up. One still running when Run returns ends with ctx.
	slots := make(chan struct{}, runtime.GOMAXPROCS(0))
	sub, err := s.nc.Subscribe(SearchSubject(s.cfg.Node), func(m *nats.Msg) {
		slots <- struct{}{}
		go func() {
			defer func() { <-slots }()
			b, err := json.Marshal(s.answer(ctx, m.Data))
			if err != nil {
				b, _ = json.Marshal(fanout.Response{Error: "encode answer: " + err.Error()})
			}
			if err := m.Respond(b); err != nil {
				s.logger.Warn("answer a search request", "err", err)
			}
		}()
	})
	if err != nil {
		return fmt.Errorf("cluster: subscribe %s: %w", SearchSubject(s.cfg.Node), err)
	}
	defer sub.Unsubscribe()
	tick := time.NewTicker(s.cfg.LeaseTTL / 3)
	defer tick.Stop()
	for {
		// A heartbeat gets one period, as a lease tick does: a request
		// lost while a bucket elects a leader would otherwise wait for the
		// client's timeout (a minute), long enough for this node's
		// heartbeat to lapse and every answer to name it missing.
		bctx, cancel := context.WithTimeout(ctx, s.cfg.LeaseTTL/3)
		err := s.beat(bctx)
		cancel()
		if err != nil && ctx.Err() == nil {
			s.logger.Warn("search heartbeat", "err", err)
		}
		select {
		case <-ctx.Done():
			// Leave: no longer a member, and no heartbeat (at once, rather
			// than when its TTL runs out). A node listing both in between
			// may name this one missing until its next heartbeat.
			dctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), time.Second)
			s.members.Delete(dctx, s.cfg.Node)
			s.kv.Delete(dctx, s.cfg.Node)
			cancel()
			return ctx.Err()
		case <-tick.C:
		}
	}
}

// ForgetSearchNode removes node from the members of the cluster's search
// (at url), so that answers no longer name it missing: for a node that
// stopped without leaving and will not come back. A node with a heartbeat
// is serving, and is not forgotten.
func ForgetSearchNode(ctx context.Context, url, node string) error {
	if !validNode(node) {
		return fmt.Errorf("cluster: node %q: %s, as cluster.node", node, nodeRule)
	}
	nc, js, err := connect(url, "deltaq-forget")
	if err != nil {
		return err
	}
	defer nc.Close()
	members, beats, err := openSearch(ctx, js)
	if err != nil {
		return err
	}
	if _, err := members.Get(ctx, node); errors.Is(err, jetstream.ErrKeyNotFound) {
		return fmt.Errorf("cluster: node %q is not a member of the search", node)
	} else if err != nil {
		return fmt.Errorf("cluster: search member %q: %w", node, err)
	}
	if _, err := beats.Get(ctx, node); err == nil {
		return fmt.Errorf("cluster: node %q is serving search (its heartbeat is alive); stop it, and it leaves by itself", node)
	} else if !errors.Is(err, jetstream.ErrKeyNotFound) {
		return fmt.Errorf("cluster: search heartbeat of %q: %w", node, err)
	}
	if err := members.Delete(ctx, node); err != nil {
		return fmt.Errorf("cluster: forget %q: %w", node, err)
	}
	return nil
}

// beat renews this node's heartbeat and membership, and lists the others
// and the members whose heartbeat lapsed.
func (s *SearchNode) beat(ctx context.Context) error {
	// The heartbeat before the membership, as listSearch counts on.
	if _, err := s.kv.Put(ctx, s.cfg.Node, nil); err != nil {
		return fmt.Errorf("cluster: search heartbeat: %w", err)
	}
	if _, err := s.members.Put(ctx, s.cfg.Node, nil); err != nil {
		return fmt.Errorf("cluster: search membership: %w", err)
	}
	serving, lapsed, err := listSearch(ctx, s.members, s.kv)
	if err != nil {
		return err
	}
	self := func(k string) bool { return k == s.cfg.Node }
	others := slices.DeleteFunc(serving, self) // sorted, as listed
	lapsed = slices.DeleteFunc(lapsed, self)
	s.nodes.Store(&others)
	s.lapsed.Store(&lapsed)
	return nil
}

// openSearch opens the search's buckets: its members and its heartbeats.
// The error wraps jetstream.ErrBucketNotFound when no node has served
// search (JoinSearch creates the heartbeats' bucket first).
func openSearch(ctx context.Context, js jetstream.JetStream) (members, beats jetstream.KeyValue, err error) {
	if members, err = js.KeyValue(ctx, searchMemberBucket); err != nil {
		return nil, nil, fmt.Errorf("cluster: bucket %s (has a node served search?): %w", searchMemberBucket, err)
	}
	if beats, err = js.KeyValue(ctx, searchBucket); err != nil {
		return nil, nil, fmt.Errorf("cluster: bucket %s: %w", searchBucket, err)
	}
	return members, beats, nil
}

// listSearch lists the nodes with a heartbeat, and the members without
// one (lapsed), each sorted. The members are listed first: a node beats
// before it becomes a member, so one listed as a member without a
// heartbeat has not just joined (it lapsed, or is leaving).
func listSearch(ctx context.Context, members, beats jetstream.KeyValue) (serving, lapsed []string, err error) {
	names, err := listKeys(ctx, members)
	if err != nil {
		return nil, nil, fmt.Errorf("cluster: search members: %w", err)
	}
	if serving, err = listKeys(ctx, beats); err != nil {
		return nil, nil, fmt.Errorf("cluster: search nodes: %w", err)
	}
	lapsed = slices.DeleteFunc(names, func(n string) bool {
		_, alive := slices.BinarySearch(serving, n)
		return alive
	})
	return serving, lapsed, nil
}

// Nodes are this node and the others serving search, as last listed,
// and the nodes left out: those that failed a recent search, and the
// members whose heartbeat had lapsed.
func (s *SearchNode) Nodes() (nodes []fanout.Node, down []string) {
	nodes = []fanout.Node{{Name: s.cfg.Node, Shard: s.ix}}
	down = slices.Clone(*s.lapsed.Load())
	for _, n := range *s.nodes.Load() {
		if s.isDown(n) {
			down = append(down, n)
			continue
		}
		nodes = append(nodes, fanout.Node{Name: n, Shard: &remote{s: s, node: n}})
	}
	return nodes, down
}

// isDown reports whether node failed a search less than a heartbeat ago.
func (s *SearchNode) isDown(node string) bool {
	v, ok := s.down.Load(node)
	if !ok {
		return false
	}
	if s.clock.Now().Before(v.(time.Time)) {
		return true
	}
	s.down.CompareAndDelete(node, v)
	return false
}

// Retrieve fans q out to the nodes serving search and merges their best
// limit pages; missing names the nodes whose pages are absent: those that
// did not answer in cluster.search_timeout, now or in a search less than
// lease_ttl/3 ago, and the members without a heartbeat.
func (s *SearchNode) Retrieve(ctx context.Context, q index.Query, limit int) (hits []index.Hit, total uint64, missing []string, err error) {
	nodes, missing := s.Nodes()
	res, err := fanout.Search(ctx, nodes, q, limit, fanout.Options{Retrieval: s.opts.Retrieval, Timeout: s.cfg.SearchTimeout})
	for _, f := range res.Missing {
		s.logger.Warn("search: a node did not answer", "peer", f.Node, "err", f.Err)
		if f.Node != s.cfg.Node {
			s.down.Store(f.Node, s.clock.Now().Add(s.cfg.LeaseTTL/3))
		}
		missing = append(missing, f.Node)
	}
	slices.Sort(missing)
	if err != nil {
		return nil, 0, missing, err
	}
	hits = make([]index.Hit, len(res.Ranked))
	for i, r := range res.Ranked {
		hits[i] = index.Hit{URL: r.URL, Score: r.Score}
	}
	return hits, uint64(res.Total), missing, nil
}

// Shown returns the titles and snippets of urls, one for each in its
// place: this node's pages from its index, the others' from the nodes
// alive (a page no node answers for has the zero Hit).
func (s *SearchNode) Shown(ctx context.Context, q index.Query, urls []string) ([]index.Hit, error) {
	return s.shown(ctx, &q, urls)
}

// Titles is Shown without the snippets, which no node cuts.
func (s *SearchNode) Titles(ctx context.Context, urls []string) ([]index.Hit, error) {
	return s.shown(ctx, nil, urls)
}

// shown is Shown for q, Titles for a nil q.
func (s *SearchNode) shown(ctx context.Context, q *index.Query, urls []string) ([]index.Hit, error) {
	out, err := s.local(ctx, q, urls)
	if err != nil {
		return nil, err
	}
	var rest []string
	asked := map[string]bool{}
	for i, u := range urls {
		if out[i].URL == "" && !asked[u] {
			rest = append(rest, u)
			asked[u] = true
		}
	}
	if len(rest) == 0 {
		return out, nil
	}
	got := make(map[string]index.Hit, len(rest))
	var mu sync.Mutex
	var wg sync.WaitGroup
	nodes, _ := s.Nodes()
	for _, n := range nodes[1:] {
		wg.Go(func() {
			r := &remote{s: s, node: n.Name}
			req := fanout.Request{Op: fanout.OpShown, URLs: rest, TitlesOnly: q == nil}
			if q != nil {
				req.Query = q.String()
			}
			resp, err := r.call(ctx, req)
			if err != nil {
				s.logger.Warn("search: titles and snippets", "peer", n.Name, "err", err)
				return
			}
			mu.Lock()
			defer mu.Unlock()
			for _, h := range resp.Shown {
				if !asked[h.URL] {
					continue // not a page this search shows
				}
				if err := h.CheckHighlights(); err != nil {
					// The page is shown; its highlights are read from
					// the HTML snippet instead.
					s.logger.Warn("search: snippet highlights refused", "peer", n.Name, "err", err)
					h.SnippetText, h.Highlights = "", nil
				}
				got[h.URL] = h
			}
		})
	}
	wg.Wait()
	for i, u := range urls {
		if h, ok := got[u]; ok && out[i].URL == "" {
			out[i] = h
		}
	}
	return out, nil
}

// local is this node's pages of urls from its index, with snippets for
// q, titles alone for a nil q.
func (s *SearchNode) local(ctx context.Context, q *index.Query, urls []string) ([]index.Hit, error) {
	if q == nil {
		return s.ix.Titles(ctx, urls)
	}
	return s.ix.Shown(ctx, *q, urls)
}

// answer serves one request of another node.
func (s *SearchNode) answer(ctx context.Context, data []byte) (resp fanout.Response) {
	s.Stats.Served.Add(1)
	defer func() {
		if resp.Error != "" {
			s.Stats.Refused.Add(1)
		}
	}()
	if s.cfg.SearchTimeout > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, s.cfg.SearchTimeout)
		defer cancel()
	}
	var req fanout.Request
	if err := json.Unmarshal(data, &req); err != nil {
		return fanout.Response{Error: fmt.Sprintf("request of %d bytes: not a search request: %v", len(data), err)}
	}
	if err := checkRequest(req); err != nil {
		return fanout.Response{Error: err.Error()}
	}
	// Statistics may be asked without a query, and titles need none.
	var q index.Query
	if needsQuery := req.Op != fanout.OpStats && !req.TitlesOnly; req.Query != "" || needsQuery {
		var err error
		if q, err = index.ParseQuery(req.Query, s.opts.Limits); err != nil {
			return errorResponse(err)
		}
	}
	switch req.Op {
	case fanout.OpStats:
		st, err := s.ix.Stats(ctx, q, req.Words)
		if err != nil {
			return errorResponse(err)
		}
		return fanout.Response{Stats: &st}
	case fanout.OpFeedback:
		fb, err := s.ix.Feedback(ctx, q, req.Stats, req.K)
		if err != nil {
			return errorResponse(err)
		}
		return fanout.Response{Feedback: &fb}
	case fanout.OpMatch:
		res, err := s.ix.MatchShard(ctx, index.ShardQuery{Query: q, Stats: req.Stats, Terms: req.Terms, Limit: req.Limit})
		if err != nil {
			return errorResponse(err)
		}
		return fanout.Response{Match: &res}
	default: // fanout.OpShown (checkRequest knows no other)
		snippetsFor := &q
		if req.TitlesOnly {
			snippetsFor = nil
		}
		shown, err := s.local(ctx, snippetsFor, req.URLs)
		if err != nil {
			return errorResponse(err)
		}
		resp := fanout.Response{Shown: make([]index.Hit, 0, len(shown))}
		for _, h := range shown {
			if h.URL != "" { // a page this node holds
				resp.Shown = append(resp.Shown, h)
			}
		}
		return resp
	}
}

// checkRequest refuses a request outside the bounds a node answers.
func checkRequest(r fanout.Request) error {
	var errs []error
	bad := func(field string, v any, limit string) {
		errs = append(errs, fmt.Errorf("%s = %v: %s", field, v, limit))
	}
	switch r.Op {
	case fanout.OpStats, fanout.OpFeedback, fanout.OpMatch, fanout.OpShown:
	default:
		bad("op", fmt.Sprintf("%q", r.Op), "must be stats, feedback, match or shown")
	}
	if r.Limit < 0 || r.Limit > maxShardLimit {
		bad("limit", r.Limit, fmt.Sprintf("must be in [0, %d]", maxShardLimit))
	}
	if r.K < 0 || r.K > maxFeedback {
		bad("k", r.K, fmt.Sprintf("must be in [0, %d]", maxFeedback))
	}
	if r.TitlesOnly && r.Op != fanout.OpShown {
		bad("titles_only", true, "only for op shown")
	}
	if len(r.URLs) > maxShownURLs {
		bad("urls", fmt.Sprintf("%d URLs", len(r.URLs)), fmt.Sprintf("at most %d", maxShownURLs))
	}
	if len(r.Words) > maxWords {
		bad("words", fmt.Sprintf("%d words", len(r.Words)), fmt.Sprintf("at most %d", maxWords))
	}
	if len(r.Terms) > index.MaxMatchTerms {
		bad("terms", fmt.Sprintf("%d terms", len(r.Terms)), fmt.Sprintf("at most %d", index.MaxMatchTerms))
	}
	if r.Op == fanout.OpStats && r.Query == "" && len(r.Words) == 0 {
		bad("q", `""`, "a statistics request needs a query or words")
	}
	return errors.Join(errs...)
}

// errorResponse is a failed call's answer; a refused query is marked so
// that the asking node refuses it too.
func errorResponse(err error) fanout.Response {
	var qe *index.QueryError
	if errors.As(err, &qe) {
		return fanout.Response{Error: qe.Msg, BadQuery: true, QueryLimit: qe.Limit}
	}
	return fanout.Response{Error: err.Error()}
}

// remote is another node's index, asked over NATS.
type remote struct {
	s    *SearchNode
	node string
}

// call sends req to the node and decodes its answer.
func (r *remote) call(ctx context.Context, req fanout.Request) (fanout.Response, error) {
	b, err := json.Marshal(req)
	if err != nil {
		return fanout.Response{}, fmt.Errorf("node %s: encode request: %w", r.node, err)
	}
	if r.s.cfg.SearchTimeout > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, r.s.cfg.SearchTimeout)
		defer cancel()
	}
	msg, err := r.s.nc.RequestWithContext(ctx, SearchSubject(r.node), b)
	r.s.Stats.Requests.Add(1)
	if err != nil {
		return fanout.Response{}, fmt.Errorf("node %s: %w", r.node, err)
	}
	r.s.Stats.Bytes.Add(int64(len(b) + len(msg.Data)))
	var resp fanout.Response
	if err := json.Unmarshal(msg.Data, &resp); err != nil {
		return fanout.Response{}, fmt.Errorf("node %s: answer of %d bytes: %w", r.node, len(msg.Data), err)
	}
	if resp.BadQuery {
		return resp, &index.QueryError{Msg: resp.Error, Limit: resp.QueryLimit}
	}
	if resp.Error != "" {
		return resp, fmt.Errorf("node %s: %s", r.node, resp.Error)
	}
	return resp, nil
}

// Stats implements fanout.Shard.
func (r *remote) Stats(ctx context.Context, q index.Query, words []string) (index.MatchStats, error) {
	resp, err := r.call(ctx, fanout.Request{Op: fanout.OpStats, Query: q.String(), Words: words})
	if err == nil && resp.Stats == nil {
		err = fmt.Errorf("node %s: answer without statistics", r.node)
	}
	if err != nil {
		return index.MatchStats{}, err
	}
	return *resp.Stats, nil
}

// Feedback implements fanout.Shard.
func (r *remote) Feedback(ctx context.Context, q index.Query, gs *index.MatchStats, k int) (index.Feedback, error) {
	resp, err := r.call(ctx, fanout.Request{Op: fanout.OpFeedback, Query: q.String(), Stats: gs, K: k})
	if err == nil && resp.Feedback == nil {
		err = fmt.Errorf("node %s: answer without feedback", r.node)
	}
	if err != nil {
		return index.Feedback{}, err
	}
	return *resp.Feedback, nil
}

// MatchShard implements fanout.Shard.
func (r *remote) MatchShard(ctx context.Context, sq index.ShardQuery) (index.ShardResult, error) {
	resp, err := r.call(ctx, fanout.Request{Op: fanout.OpMatch, Query: sq.Query.String(), Stats: sq.Stats, Terms: sq.Terms, Limit: sq.Limit})
	if err == nil && resp.Match == nil {
		err = fmt.Errorf("node %s: answer without a match", r.node)
	}
	if err != nil {
		return index.ShardResult{}, err
	}
	return *resp.Match, nil
}
