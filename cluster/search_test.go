package cluster_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/nats-io/nats.go"

	"github.com/deltaq/deltaq/cluster"
	"github.com/deltaq/deltaq/cluster/clustertest"
	"github.com/deltaq/deltaq/cluster/natstest"
	"github.com/deltaq/deltaq/configs"
	"github.com/deltaq/deltaq/index"
	"github.com/deltaq/deltaq/index/fanout"
)

// emptyIndex is a node's index that holds no page.
type emptyIndex struct{}

func (emptyIndex) Stats(context.Context, index.Query, []string) (index.MatchStats, error) {
	return index.MatchStats{}, nil
}

func (emptyIndex) Feedback(context.Context, index.Query, *index.MatchStats, int) (index.Feedback, error) {
	return index.Feedback{}, nil
}

func (emptyIndex) MatchShard(context.Context, index.ShardQuery) (index.ShardResult, error) {
	return index.ShardResult{}, nil
}

func (emptyIndex) Shown(_ context.Context, _ index.Query, urls []string) ([]index.Hit, error) {
	return make([]index.Hit, len(urls)), nil
}

func (emptyIndex) Titles(_ context.Context, urls []string) ([]index.Hit, error) {
	return make([]index.Hit, len(urls)), nil
}

// searchCluster is a cluster of one NATS server, under the default
// configuration with one replica, whose search nodes serve empty indexes.
type searchCluster struct {
	t   *testing.T
	cfg *configs.Config
	URL string
	// Config is what join gives each node; a test may change it first.
	Config cluster.Config
}

func newSearchCluster(t *testing.T) *searchCluster {
	cfg, err := configs.Load(configs.Sources{Env: []string{}})
	if err != nil {
		t.Fatal(err)
	}
	sc := &searchCluster{t: t, cfg: cfg, URL: natstest.Start(t, 1).URL(), Config: cfg.Cluster}
	sc.Config.URL, sc.Config.Replicas = sc.URL, 1
	return sc
}

// join joins the search as node name until the test ends.
func (sc *searchCluster) join(name string) *cluster.SearchNode {
	sc.t.Helper()
	ccfg := sc.Config
	ccfg.Node = name
	n, err := cluster.JoinSearch(sc.t.Context(), ccfg, emptyIndex{}, cluster.SearchOptions{Limits: sc.cfg.Index.Limits(), Retrieval: sc.cfg.Index.Retrieval})
	if err != nil {
		sc.t.Fatal(err)
	}
	sc.t.Cleanup(n.Close)
	return n
}

// besidePeer joins node "a" beside a search node "peer" whose requests
// answer answers, here, by hand, and returns a, listing the peer.
func (sc *searchCluster) besidePeer(answer nats.MsgHandler) *cluster.SearchNode {
	t := sc.t
	t.Helper()
	ctx := t.Context()
	peer := sc.join("peer")
	if err := cluster.Beat(ctx, peer); err != nil {
		t.Fatal(err)
	}
	nc, err := nats.Connect(sc.URL)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(nc.Close)
	if _, err := nc.Subscribe(cluster.SearchSubject("peer"), answer); err != nil {
		t.Fatal(err)
	}
	// Subscribe only queues the subscription: without the round trip, a
	// request could reach the server first and find no one answering.
	if err := nc.Flush(); err != nil {
		t.Fatal(err)
	}
	a := sc.join("a")
	if err := cluster.Beat(ctx, a); err != nil {
		t.Fatal(err)
	}
	if nodes, _ := a.Nodes(); len(nodes) != 2 {
		t.Fatalf("nodes %v: the peer is not listed", nodes)
	}
	return a
}

// TestAPeersSnippetsAreCheckedBeforeUse: titles and snippets another node
// sends are taken for the pages asked only, and highlights that are not
// spans of the snippet's text (which the web layer would slice) are
// dropped, the page kept with its HTML snippet.
func TestAPeersSnippetsAreCheckedBeforeUse(t *testing.T) {
	good := index.Hit{URL: "http://a.test/good", Title: "Good", Snippet: "a <mark>budget</mark>", SnippetText: "a budget", Highlights: []index.Span{{Start: 2, End: 8}}}
	bad := index.Hit{URL: "http://a.test/bad", Title: "Bad", Snippet: "a <mark>budget</mark>", SnippetText: "a budget", Highlights: []index.Span{{Start: 2, End: 80}}}
	stray := index.Hit{URL: "http://a.test/not-asked", Title: "Stray"}
	a := newSearchCluster(t).besidePeer(func(m *nats.Msg) {
		b, _ := json.Marshal(fanout.Response{Shown: []index.Hit{good, bad, stray}})
		m.Respond(b)
	})
	shown, err := a.Shown(t.Context(), index.Query{Terms: []string{"budget"}}, []string{good.URL, bad.URL})
	if err != nil {
		t.Fatal(err)
	}
	if len(shown) != 2 || shown[0].URL != good.URL || shown[1].URL != bad.URL {
		t.Fatalf("shown %v: want the two pages asked, in their order", shown)
	}
	if h := shown[0]; h.SnippetText != good.SnippetText || len(h.Highlights) != 1 {
		t.Errorf("good hit: %+v, want it as sent", h)
	}
	if h := shown[1]; h.Title != bad.Title || h.Snippet != bad.Snippet || h.Highlights != nil || h.SnippetText != "" {
		t.Errorf("bad hit: %+v, want its title and HTML snippet without highlights", h)
	}
}

// TestAQueryAPeerRefusesIsRefusedWithItsLimit: a peer that refuses the
// query itself (bad_query) makes the search refuse it, as an
// *index.QueryError with the peer's message and limit, not as a node
// missing.
func TestAQueryAPeerRefusesIsRefusedWithItsLimit(t *testing.T) {
	a := newSearchCluster(t).besidePeer(func(m *nats.Msg) {
		b, _ := json.Marshal(fanout.Response{Error: `"?!" has no searchable words`, BadQuery: true, QueryLimit: "at least one word other than punctuation"})
		m.Respond(b)
	})
	_, _, missing, err := a.Retrieve(t.Context(), index.Query{Terms: []string{"?!"}}, 10)
	var qe *index.QueryError
	if !errors.As(err, &qe) || qe.Msg != `"?!" has no searchable words` || qe.Limit != "at least one word other than punctuation" || len(missing) != 0 {
		t.Errorf("Retrieve = %v (%#v), missing %v; want the peer's QueryError with its limit", err, qe, missing)
	}
}

// TestTitlesAskPeersForNoSnippet: Titles asks the other nodes for the
// titles alone (titles_only, no query), and takes what they send for
// the pages asked.
func TestTitlesAskPeersForNoSnippet(t *testing.T) {
	page := index.Hit{URL: "http://a.test/page", Title: "Page"}
	asked := make(chan fanout.Request, 1)
	a := newSearchCluster(t).besidePeer(func(m *nats.Msg) {
		var req fanout.Request
		json.Unmarshal(m.Data, &req)
		select {
		case asked <- req:
		default:
		}
		b, _ := json.Marshal(fanout.Response{Shown: []index.Hit{page}})
		m.Respond(b)
	})
	titled, err := a.Titles(t.Context(), []string{page.URL})
	if err != nil {
		t.Fatal(err)
	}
	if len(titled) != 1 || titled[0].URL != page.URL || titled[0].Title != page.Title {
		t.Errorf("titled %v: want the peer's page", titled)
	}
	select {
	case req := <-asked:
		if req.Op != fanout.OpShown || !req.TitlesOnly || req.Query != "" || !slices.Equal(req.URLs, []string{page.URL}) {
			t.Errorf("the peer was asked %+v: want shown, titles_only, no query, the page", req)
		}
	default:
		t.Fatal("the peer was not asked")
	}
}

// TestANodeThatStopsWithoutLeavingIsNamedMissing: a node serving search
// that stops without leaving (its connection cut, its heartbeat left to
// lapse) is named in every answer as missing, not silently left out; one
// that leaves is not; and one forgotten is no longer named.
func TestANodeThatStopsWithoutLeavingIsNamedMissing(t *testing.T) {
	sc := newSearchCluster(t)
	sc.Config.LeaseTTL, sc.Config.SearchTimeout = 2*time.Second, 2*time.Second
	ctx := t.Context()
	// run serves n until the returned stop, which waits for it to leave.
	run := func(n *cluster.SearchNode) (stop func()) {
		rctx, cancel := context.WithCancel(ctx)
		done := make(chan struct{})
		go func() {
			defer close(done)
			n.Run(rctx)
		}()
		return func() { cancel(); <-done }
	}
	a, b, c := sc.join("a"), sc.join("b"), sc.join("c")
	stopB, stopC := run(b), run(c)
	defer stopC()
	// Run subscribes, then beats, on one connection, which the server
	// reads in order: once the status lists b and c, both answer requests.
	// (Beating for them at once could list one before its subscription.)
	// Run's beat writes the heartbeat the status shows before the
	// membership, which may still be under way, so the test beats too:
	// b and c are then members, as the rest of the test needs.
	clustertest.Until(t, "b and c run", 20*time.Second, func() error {
		st, err := cluster.ReadStatus(ctx, sc.URL, 4)
		if err != nil || !maps.Equal(st.Search, map[string]bool{"b": true, "c": true}) {
			return fmt.Errorf("status %+v, %v; want both serving", st, err)
		}
		return nil
	})
	for _, n := range []*cluster.SearchNode{b, c, a} {
		if err := cluster.Beat(ctx, n); err != nil {
			t.Fatal(err)
		}
	}
	q := index.Query{Terms: []string{"budget"}}
	if _, _, missing, err := a.Retrieve(ctx, q, 10); err != nil || len(missing) != 0 {
		t.Fatalf("all serving: missing %v, err %v; want none", missing, err)
	}

	// b leaves; c is cut off and its heartbeat lapses.
	stopB()
	c.Close()
	clustertest.Until(t, "b left and c lapsed", 20*time.Second, func() error {
		if err := cluster.Beat(ctx, a); err != nil {
			t.Fatal(err)
		}
		if nodes, down := a.Nodes(); len(nodes) != 1 || !slices.Equal(down, []string{"c"}) {
			return fmt.Errorf("nodes %v, down %v; want a alone, c down", nodes, down)
		}
		return nil
	})
	if _, _, missing, err := a.Retrieve(ctx, q, 10); err != nil || !slices.Equal(missing, []string{"c"}) {
		t.Fatalf("c lapsed: missing %v, err %v; want [c]", missing, err)
	}
	// The cluster's status says so, with no crawl run.
	st, err := cluster.ReadStatus(ctx, sc.URL, 4)
	if err != nil {
		t.Fatal(err)
	}
	if !maps.Equal(st.Search, map[string]bool{"a": true, "c": false}) {
		t.Errorf("status: search nodes %v, want a serving and c not", st.Search)
	}
	var out strings.Builder
	if err := st.Write(&out); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(out.String(), "a            serving") || !strings.Contains(out.String(), "c            no heartbeat") {
		t.Errorf("status table lacks a serving and c without a heartbeat:\n%s", out.String())
	}

	if err := cluster.ForgetSearchNode(ctx, sc.URL, "a"); err == nil || !strings.Contains(err.Error(), "serving") {
		t.Errorf("forget a serving node: %v; want a refusal that says it is serving", err)
	}
	if err := cluster.ForgetSearchNode(ctx, sc.URL, "zz"); err == nil || !strings.Contains(err.Error(), `"zz" is not a member`) {
		t.Errorf("forget an unknown node: %v; want a refusal that names it", err)
	}
	for _, bad := range []string{"", "c.d", "c*", "c d"} {
		if err := cluster.ForgetSearchNode(ctx, sc.URL, bad); err == nil || !strings.Contains(err.Error(), fmt.Sprintf("%q: must be a non-empty name without dots", bad)) {
			t.Errorf("forget %q: %v; want a refusal that names it and the rule", bad, err)
		}
	}
	if err := cluster.ForgetSearchNode(ctx, sc.URL, "c"); err != nil {
		t.Fatal(err)
	}
	if err := cluster.Beat(ctx, a); err != nil {
		t.Fatal(err)
	}
	if _, _, missing, err := a.Retrieve(ctx, q, 10); err != nil || len(missing) != 0 {
		t.Fatalf("c forgotten: missing %v, err %v; want none", missing, err)
	}
	if st, err := cluster.ReadStatus(ctx, sc.URL, 4); err != nil || !maps.Equal(st.Search, map[string]bool{"a": true}) {
		t.Errorf("status once c is forgotten: %+v, %v; want a alone, serving", st, err)
	}
}
