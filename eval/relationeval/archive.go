package relationeval

import (
	"context"
	"fmt"
	"net"
	"net/http"
	"path"
	"slices"
	"strings"
	"time"

	"github.com/deltaq/deltaq/eval/archive"
	"github.com/deltaq/deltaq/eval/replay"
	"github.com/deltaq/deltaq/internal/querylog"
	"github.com/deltaq/deltaq/internal/words"
	"github.com/deltaq/deltaq/relation"
)

// world is the archive, the replay server with its added search, and the
// relation tracked through it.
type world struct {
	arch    *archive.Archive
	srv     *replay.Server
	client  *relation.Client
	ids     []string  // tuple i's ID: the page path
	weights []float64 // install counts, scaled to mean 1
	counts  []float64 // install counts as logged
	logged  int       // distinct commands in the log
	index   map[string]int
	sample  *relation.ScaledSample
	iface   relation.Interface
	// initial is every tuple's record and keywords at week 0, read by ID.
	initial  []relation.Record
	keywords [][]string
	changes  [][]int // changes[w]: tuples whose page changed between w−1 and w
	close    func()
}

// sourceFor is the relation's source over the replay's added search: the
// CSS selectors of its HTML result page and of the archived item pages.
func sourceFor(host string, iface relation.Interface) relation.Source {
	return relation.Source{
		Search:     "http://" + host + "/search?q={q}&page={page}",
		Item:       "http://" + host + "{id}",
		PageSize:   iface.PageSize,
		MaxResults: iface.MaxResults,
		Hit:        "li.hit",
		ID:         "css:@data-id",
		Total:      "css:.total@data-total",
		Fields: []string{
			"title=css:a.title|css:title",
			"description=css:p.description|css:meta[name=description]@content",
			"version=css:@data-version|header:ETag",
		},
		Keywords: []string{"title", "description"},
	}
}

// openWorld opens the archive, picks the tracked pages, serves the replay
// with its search on loopback and reads week 0 by ID.
func openWorld(ctx context.Context, c ArchiveConfig) (*world, error) {
	arch, err := archive.Open(c.Archive)
	if err != nil {
		return nil, fmt.Errorf("relationeval: --archive %s: %w", c.Archive, err)
	}
	queries, err := querylog.Load(c.Log, querylog.FormatCounts)
	if err != nil {
		return nil, fmt.Errorf("relationeval: --log %s: %w", c.Log, err)
	}
	installs := map[string]float64{}
	for _, q := range queries {
		installs[strings.TrimSpace(q.Text)] += q.Count
	}
	w := &world{arch: arch, index: map[string]int{}, logged: len(installs), iface: relation.Interface{PageSize: c.PageSize, MaxResults: c.MaxResults}}
	// The relation: every page /<platform>/<command>.html of a logged
	// command present in every week (a tuple the whole run can track).
	var sampleDocs [][]string
	for p := range arch.Pages(0) {
		_, _, kws := replay.PageKeywords(p.Body)
		sampleDocs = append(sampleDocs, kws)
		cmd := strings.TrimSuffix(path.Base(p.URL), ".html")
		n, ok := installs[cmd]
		if !ok || !strings.HasSuffix(p.URL, ".html") || strings.Count(p.URL, "/") != 2 || !persistent(arch, p.URL) {
			continue
		}
		w.index[p.URL] = len(w.ids)
		w.ids = append(w.ids, p.URL)
		w.counts = append(w.counts, n)
	}
	if len(w.ids) == 0 {
		return nil, fmt.Errorf("relationeval: no page of %s is named by a command of %s", c.Archive, c.Log)
	}
	mean := 0.0
	for _, n := range w.counts {
		mean += n / float64(len(w.counts))
	}
	for _, n := range w.counts {
		w.weights = append(w.weights, n/mean)
	}
	// |R_S(q)| from the week-0 snapshot, the "similar downloadable
	// source" of §4.1; c starts at 1 and is recalibrated from the counts
	// the search reports.
	w.sample = relation.NewScaledSample(sampleDocs, 1)
	w.changes = make([][]int, arch.Weeks())
	for wk := 1; wk < arch.Weeks(); wk++ {
		for _, u := range arch.Changed(wk) {
			if i, ok := w.index[u]; ok {
				w.changes[wk] = append(w.changes[wk], i)
			}
		}
	}

	srv, err := replay.New([]*archive.Archive{arch}, replay.Options{Search: replay.SearchOptions{Enabled: true, PageSize: c.PageSize, MaxResults: c.MaxResults}})
	if err != nil {
		return nil, err
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, fmt.Errorf("relationeval: listen: %w", err)
	}
	hs := &http.Server{Handler: srv, ReadHeaderTimeout: 10 * time.Second}
	go hs.Serve(ln) //nolint:errcheck // ends with Close
	w.close = func() { hs.Close() }
	addr := ln.Addr().String()
	dial := &net.Dialer{Timeout: 5 * time.Second}
	// Every <name>.test host is the replay on loopback.
	transport := &http.Transport{DialContext: func(ctx context.Context, network, _ string) (net.Conn, error) {
		return dial.DialContext(ctx, network, addr)
	}, MaxIdleConnsPerHost: 4}
	w.srv = srv
	w.client, err = relation.NewClient(sourceFor(srv.Hosts()[0], w.iface), relation.ClientOptions{
		HTTP: &http.Client{Transport: transport, Timeout: 30 * time.Second}, UserAgent: "deltaq-relation-eval", MaxBytes: 4 << 20,
	})
	if err != nil {
		w.close()
		return nil, err
	}
	// Week 0: the local relation is loaded by ID (not counted).
	for _, id := range w.ids {
		rec, _, err := w.client.Item(ctx, id)
		if err != nil {
			w.close()
			return nil, fmt.Errorf("relationeval: initial load: %w", err)
		}
		w.initial = append(w.initial, rec)
		w.keywords = append(w.keywords, words.Distinct(rec.Fields["title"]+" "+rec.Fields["description"]))
	}
	return w, nil
}

// persistent reports whether url exists in every week of the archive.
func persistent(a *archive.Archive, url string) bool {
	ivs := a.Intervals(url)
	if len(ivs) == 0 || ivs[0].First != 0 || ivs[len(ivs)-1].Last != a.Weeks()-1 {
		return false
	}
	for i := 1; i < len(ivs); i++ {
		if ivs[i].First != ivs[i-1].Last+1 {
			return false
		}
	}
	return true
}

// Method names of the archive run, in report order.
const (
	methodNaive1 = "Naive 1"
	methodNaive2 = "Naive 2"
	methodGreedy = "Greedy"
)

var archiveMethods = []string{methodNaive1, methodNaive2, methodGreedy}

// tracked is one method's local copy of the relation under one budget.
type tracked struct {
	method   string
	budget   int
	w        *world
	cfg      ArchiveConfig
	version  []string // the local copy's record version
	lastSync []float64
	obs      []relation.RateObservation
	tracker  *relation.Tracker
	naive    *relation.IDRoundRobin
	naiveSet []int
	reported relation.ReportedHits // totals the search reported, for c
	sample   *relation.ScaledSample

	weekly     []float64 // mean F(L;t) within each week
	atSync     []float64 // F(L;t) at the end of each week's loop
	requests   int
	viaSearch  int // syncs by a search hit
	viaID      int // syncs by an ID fetch
	probes     int
	lastProbes []relation.Probe
}

func newTracked(w *world, cfg ArchiveConfig, method string, budget int) *tracked {
	t := &tracked{method: method, budget: budget, w: w, cfg: cfg, reported: relation.ReportedHits{},
		version: make([]string, len(w.ids)), lastSync: make([]float64, len(w.ids)), obs: make([]relation.RateObservation, len(w.ids)),
		tracker: relation.NewTracker(w.weights, 0), sample: w.sample}
	for i, rec := range w.initial {
		t.version[i] = rec.Version()
	}
	if method == methodNaive1 {
		t.naive = relation.NewNaive1(len(w.ids))
	}
	return t
}

// tuples is the planning view of the local copy at the current rates.
func (t *tracked) tuples() []relation.Tuple {
	out := make([]relation.Tuple, len(t.w.ids))
	for i := range out {
		out[i] = relation.Tuple{ID: t.w.ids[i], Keywords: t.w.keywords[i], Weight: t.w.weights[i], Rate: t.obs[i].Rate(t.cfg.RatePrior, t.cfg.RatePriorWeight), LastSync: t.lastSync[i]}
	}
	return out
}

// synced records that tuple i's record was read from the source at time at.
func (t *tracked) synced(i int, at float64, rec relation.Record) error {
	v := rec.Version()
	t.obs[i].Observe(at-t.lastSync[i], v != t.version[i], 0, false)
	t.version[i], t.lastSync[i] = v, at
	_, err := t.tracker.Sync(i, at)
	return err
}

// week spends the budget of week wk: request j at time wk + (j+1)/B.
func (t *tracked) week(ctx context.Context, wk int) error {
	slot := 0
	at := func() float64 { return float64(wk) + float64(slot+1)/float64(t.budget) }
	byID := func(i int) error {
		rec, n, err := t.w.client.Item(ctx, t.w.ids[i])
		if err != nil {
			return err
		}
		if err := t.synced(i, at(), rec); err != nil {
			return err
		}
		slot += n
		t.requests += n
		t.viaID++
		return nil
	}
	switch t.method {
	case methodNaive1:
		for _, i := range t.naive.Next(t.budget) {
			if err := byID(i); err != nil {
				return err
			}
		}
	case methodNaive2:
		tuples := t.tuples()
		set := relation.NewNaive2(tuples, t.cfg.Naive2MaxRate)
		ids := set.Next(set.Len())
		if t.naive == nil || !slices.Equal(ids, t.naiveSet) {
			t.naive, t.naiveSet = set, ids // the λ̂ < threshold set changed: a new cycle
		}
		for _, i := range t.naive.Next(t.budget) {
			if err := byID(i); err != nil {
				return err
			}
		}
	case methodGreedy:
		if err := t.greedyWeek(ctx, wk, &slot, byID); err != nil {
			return err
		}
	}
	return nil
}

// greedyWeek sends GreedyProbes' queries in the ascending-a_i order of
// §4.3, one request per slot, and spends what the plan leaves on ID
// fetches of the stalest tuples no probe reached.
func (t *tracked) greedyWeek(ctx context.Context, wk int, slot *int, byID func(int) error) error {
	tuples := t.tuples()
	if c, err := t.sample.CalibrateScale(t.reported); err == nil {
		t.sample = relation.NewScaledSampleFrom(t.sample, c)
	}
	plan, err := relation.GreedyProbes(tuples, float64(wk), t.sample, relation.ProbeOptions{
		Interface: t.w.iface, Method: relation.AllPages, Cost: relation.PerRequest, MaxKeywords: t.cfg.MaxKeywords, Pool: t.cfg.Pool, MaxRequests: t.budget})
	if err != nil {
		return err
	}
	t.lastProbes = plan.Probes
	order := relation.AscendingOrder(relation.GroupCosts(tuples, plan.Probes, 1/float64(t.budget)))
	reached := make([]bool, len(tuples))
	for _, pi := range order {
		p := plan.Probes[pi]
		t.probes++
		for page := 1; page <= p.Requests && *slot < t.budget && !relation.GroupRead(p.Tuples, reached); page++ {
			res, err := t.w.client.Search(ctx, p.Keywords, page)
			*slot += res.Requests
			t.requests += res.Requests
			if err != nil {
				return err
			}
			t.reported[relation.QueryKey(p.Keywords)] = float64(res.Total)
			for _, h := range res.Hits {
				if i, ok := t.w.index[h.ID]; ok && !reached[i] {
					reached[i] = true
					t.viaSearch++
					if err := t.synced(i, float64(wk)+float64(*slot)/float64(t.budget), h); err != nil {
						return err
					}
				}
			}
			if len(res.Hits) < t.w.iface.PageSize || page*t.w.iface.PageSize >= min(res.Total, t.w.iface.MaxResults) {
				break
			}
		}
	}
	// Leftover requests: ID fetches of the unreached tuples with the
	// largest w·F̂.
	var rest []int
	for i := range tuples {
		if !reached[i] {
			rest = append(rest, i)
		}
	}
	now := float64(wk)
	slices.SortStableFunc(rest, func(a, b int) int {
		pa, pb := tuples[a].Priority(now), tuples[b].Priority(now)
		switch {
		case pa > pb:
			return -1
		case pa < pb:
			return 1
		}
		return 0
	})
	for _, i := range rest {
		if *slot >= t.budget {
			break
		}
		if err := byID(i); err != nil {
			return err
		}
	}
	return nil
}
