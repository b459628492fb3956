package ranking

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"log/slog"
	"math"
	"sync"
	"time"

	"github.com/deltaq/deltaq/internal/clock"
	"github.com/deltaq/deltaq/repo"
)

// Bucket is the repository bucket that holds the ranking state. Key layout
// (tails inside the bucket; url is the page URL as the crawler stores it):
//
//	meta/pagerank     PageRankInfo of the last computation
//	meta/secret       the generated server secret (when none is configured)
//	l/<url>           link popularity: PageRank, in-link count (written by ComputePageRank)
//	c/<url>           click statistics: clicks, aware monitored users (written by RecordClick)
//	a/<url> 0x00 <id> empty: monitored user <id> has clicked <url> (§5.4 awareness)
//
// Values start with a one-byte format version, then uvarints and 8-byte
// little-endian floats in the order of the Go struct.
const Bucket = "rank"

const (
	keyPageRankInfo = "meta/pagerank"
	keySecret       = "meta/secret"
	prefixLinks     = "l/"
	prefixClicks    = "c/"
	prefixAware     = "a/"
)

const statsFormat = 1

// ErrCorrupt is returned when a stored ranking record cannot be decoded.
var ErrCorrupt = errors.New("ranking: corrupt record")

// PageStats is what the ranking knows about one page.
type PageStats struct {
	// PageRank is the page's PageRank (0 when the page is not in the link
	// graph); the vector sums to 1 over the graph.
	PageRank float64
	// InLinks is the number of distinct pages linking to it.
	InLinks int
	// Clicks counts clicks through the signed redirect, all users.
	Clicks int
	// Aware counts the distinct monitored users who clicked it: m·A(p,t),
	// thesis §5.4 (definition 5.4.2).
	Aware int
}

// Store keeps the ranking state in the repository bucket "rank": link
// popularity from PageRank, click counts and awareness. It is safe for
// concurrent use; click updates are serialized by a mutex so that no
// increment is lost.
type Store struct {
	db                *repo.DB
	pagerank          PageRankConfig
	popularity        string // ranking.popularity: the source Popularity reads
	monitoredFraction float64
	clock             clock.Clock
	logger            *slog.Logger

	mu struct {
		sync.Mutex // held for the read-modify-write of click statistics
	}
	// column is every page's statistics in memory, loaded from the bucket
	// on the first Lookup and kept in step by ComputePageRank and
	// RecordClick, so a query's candidates cost no repository reads. One
	// entry (URL and PageStats, about 100 bytes) per page with link or
	// click statistics. It assumes this Store is the bucket's only writer.
	column struct {
		sync.RWMutex
		rows  map[string]int32 // URL → row of stats; nil until loaded
		stats []PageStats      // rows are only ever added
	}
}

// StoreOptions are the non-configuration inputs of NewStore.
type StoreOptions struct {
	// Clock stamps PageRank computations and schedules RunPageRank; nil
	// means the wall clock.
	Clock clock.Clock
	// Logger receives lifecycle lines; nil discards.
	Logger *slog.Logger
}

// NewStore returns a Store over db. cfg must be valid.
func NewStore(db *repo.DB, cfg Config, opts StoreOptions) (*Store, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	s := &Store{db: db, pagerank: cfg.PageRank, popularity: cfg.Popularity, monitoredFraction: cfg.MonitoredFraction, clock: opts.Clock, logger: opts.Logger}
	if s.clock == nil {
		s.clock = clock.Real{}
	}
	if s.logger == nil {
		s.logger = slog.New(slog.DiscardHandler)
	}
	s.logger = s.logger.With("component", "ranking")
	return s, nil
}

// Lookup returns the statistics of each URL, in order; unknown URLs get
// zero statistics. They come from the in-memory column, loaded from the
// repository on the first call.
func (s *Store) Lookup(ctx context.Context, urls []string) ([]PageStats, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	if err := s.loadColumn(ctx); err != nil {
		return nil, err
	}
	out := make([]PageStats, len(urls))
	s.column.RLock()
	defer s.column.RUnlock()
	for i, u := range urls {
		if r, ok := s.column.rows[u]; ok {
			out[i] = s.column.stats[r]
		}
	}
	return out, nil
}

// rowsOf sets rows[i] to the row of urls[i] in the column, −1 for a URL
// without statistics, and returns the column's length: a URL without
// statistics has none while the length stays the same (rows are only
// ever added).
func (s *Store) rowsOf(ctx context.Context, urls []string, rows []int32) (int, error) {
	if err := s.loadColumn(ctx); err != nil {
		return 0, err
	}
	s.column.RLock()
	defer s.column.RUnlock()
	for i, u := range urls {
		rows[i] = -1
		if r, ok := s.column.rows[u]; ok {
			rows[i] = r
		}
	}
	return len(s.column.stats), nil
}

// statsAt sets out[i] to the statistics of row rows[i] (zero for −1), as
// Lookup would for the URLs rowsOf found them for, unless the column no
// longer has n rows (ok false): then a URL without statistics may have
// some now.
func (s *Store) statsAt(rows []int32, n int, out []PageStats) (ok bool) {
	s.column.RLock()
	defer s.column.RUnlock()
	if len(s.column.stats) != n {
		return false
	}
	for i, r := range rows {
		out[i] = PageStats{}
		if r >= 0 {
			out[i] = s.column.stats[r]
		}
	}
	return true
}

// loadColumn reads every page's statistics into the column, once.
func (s *Store) loadColumn(ctx context.Context) error {
	s.column.RLock()
	loaded := s.column.rows != nil
	s.column.RUnlock()
	if loaded {
		return nil
	}
	// Hold the click mutex so no click lands between the scan and the
	// column's first use.
	s.mu.Lock()
	defer s.mu.Unlock()
	s.column.Lock()
	defer s.column.Unlock()
	if s.column.rows != nil {
		return nil
	}
	s.column.rows = map[string]int32{}
	for _, prefix := range []string{prefixLinks, prefixClicks} {
		for kv, err := range s.db.BucketScan(ctx, Bucket, prefix) {
			if err != nil {
				s.column.rows, s.column.stats = nil, nil
				return fmt.Errorf("ranking: load statistics: %w", err)
			}
			url := string(kv[0][len(prefix):])
			st := s.statsOf(url)
			if prefix == prefixLinks {
				st.PageRank, st.InLinks, err = decodeLinkStats(kv[1])
			} else {
				st.Clicks, st.Aware, err = decodeClickStats(kv[1])
			}
			if err != nil {
				s.column.rows, s.column.stats = nil, nil
				return fmt.Errorf("ranking: statistics of %s: %w", url, err)
			}
		}
	}
	return nil
}

// statsOf returns the column's statistics of url for update, adding a
// row for it if it has none. The caller holds the column's write lock.
func (s *Store) statsOf(url string) *PageStats {
	r, ok := s.column.rows[url]
	if !ok {
		r = int32(len(s.column.stats))
		s.column.rows[url] = r
		s.column.stats = append(s.column.stats, PageStats{})
	}
	return &s.column.stats[r]
}

// updateColumn applies fn to the column if it is loaded; fn changes the
// statistics statsOf returns.
func (s *Store) updateColumn(fn func()) {
	s.column.Lock()
	defer s.column.Unlock()
	if s.column.rows != nil {
		fn()
	}
}

func encodeLinkStats(pagerank float64, inlinks int) []byte {
	b := make([]byte, 0, 1+8+binary.MaxVarintLen64)
	b = append(b, statsFormat)
	b = binary.LittleEndian.AppendUint64(b, math.Float64bits(pagerank))
	return binary.AppendUvarint(b, uint64(inlinks))
}

func decodeLinkStats(b []byte) (pagerank float64, inlinks int, err error) {
	if len(b) < 9 || b[0] != statsFormat {
		return 0, 0, ErrCorrupt
	}
	pagerank = math.Float64frombits(binary.LittleEndian.Uint64(b[1:9]))
	n, k := binary.Uvarint(b[9:])
	if k <= 0 || 9+k != len(b) || n > math.MaxInt32 {
		return 0, 0, ErrCorrupt
	}
	return pagerank, int(n), nil
}

func encodeClickStats(clicks, aware int) []byte {
	b := make([]byte, 0, 1+2*binary.MaxVarintLen64)
	b = append(b, statsFormat)
	b = binary.AppendUvarint(b, uint64(clicks))
	return binary.AppendUvarint(b, uint64(aware))
}

func decodeClickStats(b []byte) (clicks, aware int, err error) {
	if len(b) < 3 || b[0] != statsFormat {
		return 0, 0, ErrCorrupt
	}
	c, k1 := binary.Uvarint(b[1:])
	if k1 <= 0 {
		return 0, 0, ErrCorrupt
	}
	a, k2 := binary.Uvarint(b[1+k1:])
	if k2 <= 0 || 1+k1+k2 != len(b) || c > math.MaxInt32 || a > math.MaxInt32 {
		return 0, 0, ErrCorrupt
	}
	return int(c), int(a), nil
}

// PageRankInfo describes the stored PageRank computation.
type PageRankInfo struct {
	ComputedAt time.Time
	Nodes      int
	Edges      int
	Iterations int
	// Delta is the L1 change of the last iteration.
	Delta     float64
	Converged bool
}

func (p *PageRankInfo) encode() []byte {
	b := []byte{statsFormat}
	b = binary.AppendVarint(b, p.ComputedAt.UnixNano())
	b = binary.AppendUvarint(b, uint64(p.Nodes))
	b = binary.AppendUvarint(b, uint64(p.Edges))
	b = binary.AppendUvarint(b, uint64(p.Iterations))
	b = binary.LittleEndian.AppendUint64(b, math.Float64bits(p.Delta))
	conv := byte(0)
	if p.Converged {
		conv = 1
	}
	return append(b, conv)
}

func decodePageRankInfo(b []byte) (PageRankInfo, error) {
	var p PageRankInfo
	if len(b) < 1 || b[0] != statsFormat {
		return p, ErrCorrupt
	}
	b = b[1:]
	at, k := binary.Varint(b)
	if k <= 0 {
		return p, ErrCorrupt
	}
	b = b[k:]
	var u [3]uint64
	for i := range u {
		v, k := binary.Uvarint(b)
		if k <= 0 || v > math.MaxInt32 {
			return p, ErrCorrupt
		}
		u[i], b = v, b[k:]
	}
	if len(b) != 9 {
		return p, ErrCorrupt
	}
	p.ComputedAt = time.Unix(0, at).UTC()
	p.Nodes, p.Edges, p.Iterations = int(u[0]), int(u[1]), int(u[2])
	p.Delta = math.Float64frombits(binary.LittleEndian.Uint64(b))
	p.Converged = b[8] == 1
	return p, nil
}
