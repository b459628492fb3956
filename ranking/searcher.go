package ranking

import (
	"context"
	"errors"
	"fmt"
	"hash/maphash"
	"log/slog"
	"math"
	"math/rand/v2"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"
)

// Retriever finds the pages relevant to a query: up to limit candidates,
// best first, and the total number of matches. The index provides it.
type Retriever interface {
	Retrieve(ctx context.Context, query string, limit int) ([]Candidate, int, error)
}

// StatsReader returns the popularity statistics of pages; *Store
// implements it.
type StatsReader interface {
	Lookup(ctx context.Context, urls []string) ([]PageStats, error)
}

// ErrBadRequest is returned by Search for a request outside its limits,
// as a *RequestError.
var ErrBadRequest = errors.New("ranking: bad request")

// RequestError is a request outside the searcher's limits: the parameter,
// its value and the limit, so a server can name them to its client. It
// wraps ErrBadRequest.
type RequestError struct {
	Field string // query, user, page or size
	Value string // for the query and the user id, their length
	Limit string // what Value must be
}

func (e *RequestError) Error() string {
	return fmt.Sprintf("%v: %s = %s: must be %s", ErrBadRequest, e.Field, e.Value, e.Limit)
}

func (e *RequestError) Unwrap() error { return ErrBadRequest }

// Result is one entry of a result page.
type Result struct {
	// Rank is the 1-based position in the user's merged list L.
	Rank  int
	URL   string
	Title string
	// ClickURL is the signed redirect link (under RedirectPath) to show
	// instead of URL, so the click is counted.
	ClickURL string
	// Promoted marks a result taken from the shuffled promotion pool (§5.5).
	Promoted   bool
	Relevance  float64
	Popularity float64
	FetchedAt  time.Time
}

// Page is one page of results.
type Page struct {
	Query string
	Page  int
	Size  int
	// Total is how many pages match the query in the index; Candidates is
	// how many of them were ordered (at most ranking.candidates), so the
	// last page is ceil(Candidates/Size).
	Total      int
	Candidates int
	Results    []Result
}

// Searcher answers queries: relevant candidates from the Retriever, ordered
// by popularity (or the blend), merged with the promotion pool by §5.5,
// paginated, with signed click links. It is safe for concurrent use.
type Searcher struct {
	cfg       Config
	retriever Retriever
	stats     StatsReader
	signer    *Signer
	seeds     *keyedMAC // PromotionSeed's MAC under the secret
	urlSeed   maphash.Seed
	scratch   sync.Pool // *orderScratch
	rows      statsRows
	logs      []float64 // lnOnePlus(cfg.Candidates), for Blend
	logger    *slog.Logger
}

// maxStatsKeys bounds the keys statsRows holds rows for (256 MB of
// them); pages of larger keys are looked up by URL.
const maxStatsKeys = 1 << 26

// statsRows remembers, for the pages of one key space (Candidate.Space),
// by key, the row of the Store's column that holds each page's
// statistics, so that when the searcher's stats are a *Store they are
// read by row, with no URL hashed: 4 bytes per key up to the largest
// seen.
type statsRows struct {
	mu    sync.Mutex
	space uint64
	n     int     // the column's length when the −1 entries were found
	row   []int32 // by key: 0 not yet known, −1 no statistics, r+1 row r
}

// NewSearcher returns a Searcher. secret keys the click signatures and the
// promotion seeds (Store.Secret provides it).
func NewSearcher(cfg Config, retriever Retriever, stats StatsReader, secret []byte, logger *slog.Logger) (*Searcher, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	signer, err := NewSigner(secret)
	if err != nil {
		return nil, err
	}
	if logger == nil {
		logger = slog.New(slog.DiscardHandler)
	}
	return &Searcher{
		cfg: cfg, retriever: retriever, stats: stats, signer: signer,
		seeds: newKeyedMAC(secret), urlSeed: maphash.MakeSeed(), logs: lnOnePlus(cfg.Candidates), logger: logger.With("component", "ranking"),
	}, nil
}

// Signer returns the signer of the searcher's click links, for the
// redirect handler.
func (s *Searcher) Signer() *Signer { return s.signer }

// Search returns page (1-based) of size results for user's query. The
// whole candidate list is ordered (sorted where the merge reads it) and
// merged (up to the page's end), with the promotion shuffle seeded by
// (secret, user, normalized query), and then cut, so one user's pages 1,
// 2, 3 are consecutive slices of one list as long as the candidates and
// their awareness do not change in between.
func (s *Searcher) Search(ctx context.Context, user, query string, page, size int) (Page, error) {
	query = strings.TrimSpace(query)
	if err := s.check(user, query, page, size); err != nil {
		return Page{}, err
	}
	cands, total, err := s.retriever.Retrieve(ctx, query, s.cfg.Candidates)
	if err != nil {
		return Page{}, fmt.Errorf("ranking: retrieve %q: %w", query, err)
	}
	return s.order(ctx, user, query, dedupe(cands, s.cfg.Candidates, s.urlSeed), total, page, size)
}

// Order is Search for a caller that retrieved the candidates itself (up to
// Candidates of them, in any order, and the total number of matches), for
// instance from a query it has already parsed.
func (s *Searcher) Order(ctx context.Context, user, query string, cands []Candidate, total, page, size int) (Page, error) {
	return s.orderChecked(ctx, user, query, cands, false, total, page, size)
}

// OrderDistinct is Order for candidates whose URLs are known to be
// distinct, as one index's are (a page is one document): they are not
// searched for duplicates.
func (s *Searcher) OrderDistinct(ctx context.Context, user, query string, cands []Candidate, total, page, size int) (Page, error) {
	return s.orderChecked(ctx, user, query, cands, true, total, page, size)
}

func (s *Searcher) orderChecked(ctx context.Context, user, query string, cands []Candidate, distinct bool, total, page, size int) (Page, error) {
	query = strings.TrimSpace(query)
	if err := s.check(user, query, page, size); err != nil {
		return Page{}, err
	}
	if distinct {
		cands = cands[:min(len(cands), s.cfg.Candidates)]
	} else {
		cands = dedupe(cands, s.cfg.Candidates, s.urlSeed)
	}
	return s.order(ctx, user, query, cands, total, page, size)
}

// Candidates is how many candidates a search orders (ranking.candidates).
func (s *Searcher) Candidates() int { return s.cfg.Candidates }

// check validates a request against the searcher's limits.
func (s *Searcher) check(user, query string, page, size int) error {
	switch {
	case query == "" || len(query) > MaxQueryLen:
		return &RequestError{"query", fmt.Sprintf("%d bytes", len(query)), fmt.Sprintf("1 to %d bytes", MaxQueryLen)}
	case user == "" || len(user) > MaxUserIDLen:
		return &RequestError{"user", fmt.Sprintf("%d bytes", len(user)), fmt.Sprintf("1 to %d bytes", MaxUserIDLen)}
	case size < 1 || size > s.cfg.Candidates:
		return &RequestError{"size", strconv.Itoa(size), s.inRange()}
	case page < 1 || page > s.cfg.Candidates:
		return &RequestError{"page", strconv.Itoa(page), s.inRange()}
	}
	return nil
}

// inRange is the limit of page and size: written only for a refusal, as
// every search is checked.
func (s *Searcher) inRange() string { return fmt.Sprintf("in [1, %d]", s.cfg.Candidates) }

// order orders, merges and cuts the distinct candidates of a checked
// request.
func (s *Searcher) order(ctx context.Context, user, query string, cands []Candidate, total, page, size int) (Page, error) {
	// The ordered list lives in pooled buffers until the page is copied out.
	sc, _ := s.scratch.Get().(*orderScratch)
	if sc == nil {
		sc = new(orderScratch)
	}
	defer s.scratch.Put(sc)
	defer sc.clear()
	items, err := s.score(ctx, cands, sc)
	if err != nil {
		return Page{}, err
	}
	// Only the list up to the page's end is merged: a position depends
	// on the ones before it alone. L_d is sorted as far as that reads it
	// when the promotion pool does not depend on the order (partialOrder),
	// else in full.
	m := min(page*size, len(items))
	var ld partialOrder
	if s.cfg.Order == OrderBlend && s.poolIgnoresOrder(items) {
		ld = newPartialOrder(items, m, s.cfg.BlendWeight, s.logs, sc)
	} else {
		orderScored(items, s.cfg.Order, s.cfg.BlendWeight, s.logs, sc)
	}
	list, err := s.merge(ctx, user, query, items, m, &sc.promote)
	if err != nil {
		return Page{}, err
	}
	ld.place(list, m)
	out := Page{Query: query, Page: page, Size: size, Total: total, Candidates: len(items)}
	lo, hi := (page-1)*size, min(len(list), page*size)
	if lo >= hi {
		return out, nil
	}
	out.Results = make([]Result, 0, hi-lo)
	// The page's links are written into one buffer, made one string that
	// each link is a part of; they share the user and the query, escaped
	// once.
	esc := appendQueryEscape(sc.esc[:0], user)
	userEsc := len(esc)
	esc = appendQueryEscape(esc, query)
	links, ends := sc.links[:0], sc.ends[:0]
	for i := lo; i < hi; i++ {
		it := &items[ld.at(list[i].Index)]
		links, sc.msg = s.signer.appendLink(links, Click{Target: it.URL, Query: query, Rank: i + 1, User: user}, esc[:userEsc], esc[userEsc:], sc.msg)
		ends = append(ends, len(links))
	}
	all := string(links)
	sc.esc, sc.links, sc.ends = esc, links, ends
	for i := lo; i < hi; i++ {
		it := &items[ld.at(list[i].Index)]
		start := 0
		if i > lo {
			start = ends[i-lo-1]
		}
		out.Results = append(out.Results, Result{
			Rank:       i + 1,
			URL:        it.URL,
			Title:      it.Title,
			ClickURL:   all[start:ends[i-lo]],
			Promoted:   list[i].Promoted,
			Relevance:  it.Relevance,
			Popularity: it.Popularity,
			FetchedAt:  it.FetchedAt,
		})
	}
	return out, nil
}

// dedupe keeps the first of candidates sharing a URL, at most limit. A
// retriever's list usually has no duplicate: it is then returned as is,
// found so by an open-addressing set of URL hashes on the stack, cheaper
// than a map of a few hundred strings.
func dedupe(cands []Candidate, limit int, seed maphash.Seed) []Candidate {
	size := 16
	for size < 2*len(cands) {
		size <<= 1
	}
	var small [512]int32 // 1 + index into cands; 0: free
	var slots []int32
	if size <= len(small) {
		slots = small[:size]
	} else {
		slots = make([]int32, size)
	}
	mask := uint64(size - 1)
	for i, c := range cands {
		for j := maphash.String(seed, c.URL) & mask; ; j = (j + 1) & mask {
			k := slots[j]
			if k == 0 {
				slots[j] = int32(i + 1)
				break
			}
			if cands[k-1].URL == c.URL {
				return dedupeFrom(cands, i, limit)
			}
		}
	}
	return cands[:min(limit, len(cands))]
}

// dedupeFrom is dedupe from the first duplicate, cands[i], on: cands[:i]
// are distinct.
func dedupeFrom(cands []Candidate, i int, limit int) []Candidate {
	seen := make(map[string]struct{}, len(cands))
	out := make([]Candidate, 0, min(limit, len(cands)))
	for _, c := range cands[:i] {
		seen[c.URL] = struct{}{}
		if len(out) < limit {
			out = append(out, c)
		}
	}
	for _, c := range cands[i:] {
		if _, dup := seen[c.URL]; dup || len(out) == limit {
			continue
		}
		seen[c.URL] = struct{}{}
		out = append(out, c)
	}
	return out
}

// orderScratch holds one search's candidate URLs, statistics rows and
// statistics, its scored list, the blend's scores and sort keys, the
// promotion's buffers and the page's click links.
type orderScratch struct {
	urls    []string
	rows    []int32
	stats   []PageStats
	items   []Scored
	score   []float64
	pops    []uint64
	keys    []orderKey
	promote promoteScratch
	// The page's click links: the user and query escaped, the links
	// written one after another and where each ends, the signed message.
	esc, links, msg []byte
	ends            []int
}

// clear drops the references the buffers hold, keeping their capacity.
func (sc *orderScratch) clear() {
	clear(sc.urls)
	clear(sc.items)
}

// score looks the candidates' statistics up, in sc's buffers.
func (s *Searcher) score(ctx context.Context, cands []Candidate, sc *orderScratch) ([]Scored, error) {
	stats, ok, err := s.statsByKey(ctx, cands, sc)
	if err != nil {
		return nil, fmt.Errorf("ranking: popularity of %d candidates: %w", len(cands), err)
	}
	if !ok {
		urls := sized(sc.urls, len(cands))
		sc.urls = urls
		for i, c := range cands {
			urls[i] = c.URL
		}
		if stats, err = s.stats.Lookup(ctx, urls); err != nil {
			return nil, fmt.Errorf("ranking: popularity of %d candidates: %w", len(urls), err)
		}
		if len(stats) != len(urls) {
			return nil, fmt.Errorf("ranking: popularity of %d candidates: got %d answers", len(urls), len(stats))
		}
	}
	items := sized(sc.items, len(cands))
	sc.items = items
	for i, c := range cands {
		items[i] = Scored{Candidate: c, Stats: stats[i], Popularity: PopularityOf(stats[i], s.cfg.Popularity)}
	}
	return items, nil
}

// poolIgnoresOrder reports whether PoolFor's pool for items, whatever
// their order, has the same positions: under RuleNone and RuleUniform
// (a coin per position), and under RuleSelective when every item has
// zero awareness or none has (a cold start is the first).
func (s *Searcher) poolIgnoresOrder(items []Scored) bool {
	if s.cfg.Promotion.Rule != RuleSelective {
		return true
	}
	aware := 0
	for i := range items {
		if items[i].Stats.Aware != 0 {
			aware++
		}
	}
	return aware == 0 || aware == len(items)
}

// partialOrder is the blend order L_d of items left in place, sorted only
// where the merged list reads it: the first m positions, and beyond them
// only the positions a promotion takes, each found by selection. Its zero
// value is the order of items as they stand (sorted in full).
type partialOrder struct {
	keys    []orderKey // by position: keys[p].i is the item there
	compare func(a, b orderKey) int
	sorted  bool // every position
}

// sortFirstUpTo is the most positions newPartialOrder sorts apart from
// the rest: sortFirst moves each key that enters them by insertion.
const sortFirstUpTo = 32

// newPartialOrder sorts the first m positions of items' blend order.
func newPartialOrder(items []Scored, m int, weight float64, logs []float64, sc *orderScratch) partialOrder {
	o := partialOrder{keys: blendKeys(items, weight, logs, sc), compare: compareKeys(items)}
	if m > sortFirstUpTo || m >= len(items)/2 {
		slices.SortFunc(o.keys, o.compare)
		o.sorted = true
		return o
	}
	if m > 0 {
		sortFirst(o.keys, m, o.compare)
	}
	return o
}

// place puts the right keys at the positions beyond the first m that
// list takes: in increasing order, each is selected among the keys after
// the one before it, which selection left all greater.
func (o *partialOrder) place(list []Slot, m int) {
	if o.keys == nil || o.sorted {
		return
	}
	var small [8]int
	beyond := small[:0]
	for _, sl := range list {
		if sl.Index >= m {
			beyond = append(beyond, sl.Index)
		}
	}
	slices.Sort(beyond)
	from := m
	for _, p := range beyond {
		selectKey(o.keys[from:], p-from, o.compare)
		from = p + 1
	}
}

// at returns the index into items of position p, sorted by
// newPartialOrder or place.
func (o partialOrder) at(p int) int {
	if o.keys == nil {
		return p
	}
	return o.keys[p].i
}

// statsByKey reads the candidates' statistics by their rows in the
// Store's column, found once per key (ok false when that does not apply:
// the stats are not a *Store, a candidate has no key space or another
// one than the first's, or the column gained rows since the rows were
// found, which are then forgotten).
func (s *Searcher) statsByKey(ctx context.Context, cands []Candidate, sc *orderScratch) (stats []PageStats, ok bool, err error) {
	store, isStore := s.stats.(*Store)
	if !isStore || len(cands) == 0 || cands[0].Space == 0 {
		return nil, false, nil
	}
	space, top := cands[0].Space, uint32(0)
	for _, c := range cands {
		if c.Space != space {
			return nil, false, nil
		}
		top = max(top, c.Key)
	}
	if top >= maxStatsKeys {
		return nil, false, nil
	}
	rows := sized(sc.rows, len(cands))
	sc.rows = rows
	r := &s.rows
	r.mu.Lock()
	if r.space != space {
		r.space, r.n, r.row = space, 0, r.row[:0]
	}
	if int(top) >= len(r.row) {
		r.row = append(r.row, make([]int32, int(top)+1-len(r.row))...)
	}
	// The keys not seen before are looked up by URL, each once.
	const pending = math.MinInt32
	var need []int // indices into cands
	for i, c := range cands {
		if r.row[c.Key] == 0 {
			r.row[c.Key] = pending
			need = append(need, i)
		}
	}
	if len(need) > 0 {
		urls, found := make([]string, len(need)), make([]int32, len(need))
		for j, i := range need {
			urls[j] = cands[i].URL
		}
		n, err := store.rowsOf(ctx, urls, found)
		if err != nil {
			for _, i := range need {
				r.row[cands[i].Key] = 0
			}
			r.mu.Unlock()
			return nil, false, err
		}
		if n != r.n { // rows were added: a page without statistics may have some now
			for k, v := range r.row {
				if v == -1 {
					r.row[k] = 0
				}
			}
			r.n = n
		}
		for j, i := range need {
			r.row[cands[i].Key] = -1
			if found[j] >= 0 {
				r.row[cands[i].Key] = found[j] + 1
			}
		}
	}
	for i, c := range cands {
		rows[i] = max(r.row[c.Key], 0) - 1
	}
	n := r.n
	r.mu.Unlock()
	stats = sized(sc.stats, len(cands))
	sc.stats = stats
	if !store.statsAt(rows, n, stats) {
		r.mu.Lock()
		if r.space == space && r.n == n {
			clear(r.row)
		}
		r.mu.Unlock()
		return nil, false, nil
	}
	return stats, true, nil
}

// merge returns the first m entries of the merged list L of items, in
// sc's buffers.
func (s *Searcher) merge(ctx context.Context, user, query string, items []Scored, m int, sc *promoteScratch) ([]Slot, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	p := s.cfg.Promotion
	if p.Rule == RuleNone {
		list := sized(sc.out, m)
		sc.out = list
		for i := range list {
			list[i] = Slot{Index: i}
		}
		return list, nil
	}
	// PromotionRand, from a source kept in the scratch and seeded anew.
	if sc.rng == nil {
		sc.rng = rand.New(&sc.src)
	}
	sc.msg = appendPromotionMessage(sc.msg[:0], user, query)
	sc.src.Seed(s.seeds.sum(sc.msg))
	rng := sc.rng
	sc.pool = poolInto(items, p.Rule, p.R, rng, sized(sc.pool, len(items)))
	return promoteFirst(sc.pool, p.K, p.R, rng, m, sc), nil
}
