package repo

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"iter"
	"log/slog"
	"math"
	"os"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/cockroachdb/pebble/v2"
	"github.com/cockroachdb/pebble/v2/vfs"
	"github.com/klauspost/compress/zstd"

	"github.com/deltaq/deltaq/internal/bounds"
	"github.com/deltaq/deltaq/internal/urlnorm"
)

// ErrNotFound is returned when a record does not exist.
var ErrNotFound = errors.New("repo: not found")

// ErrInUse is returned by Open when another process has the repository
// open: Pebble locks its directory for one process at a time.
var ErrInUse = errors.New("repo: in use by another process")

// Config holds the repository's settings; defaults live in
// configs/default.yaml under "repo".
type Config struct {
	VersionsKept int   `mapstructure:"versions_kept"`
	FetchLogKept int   `mapstructure:"fetch_log_kept"`
	StatsKept    int   `mapstructure:"stats_kept"`
	CacheBytes   int64 `mapstructure:"cache_bytes"`
	// MinFreeBytes is the free space of the repository's disk below
	// which a commit is refused (0: never). Pebble panics when a write
	// of its log fails for want of space; refused before, the commit is
	// an error its caller reports, and what is stored stays readable.
	MinFreeBytes int64 `mapstructure:"min_free_bytes"`
}

// Upper bounds, far above any real use: the kept records of a page are
// read back whole (Versions with their bodies, FetchLog, the statistics
// of every page a plan weighs), and the block cache takes memory.
const (
	maxVersionsKept = 1000
	maxFetchLogKept = 100_000
	maxStatsKept    = 10_000
	maxCacheBytes   = 1 << 40 // 1 TiB; Pebble fills it on demand
	maxMinFreeBytes = 1 << 50 // 1 PiB
)

// Validate reports every problem in c, each naming its key.
func (c Config) Validate() error {
	report := bounds.NewReport("repo.")
	report.Add("versions_kept", c.VersionsKept, bounds.Limit(c.VersionsKept, 1, maxVersionsKept))
	report.Add("fetch_log_kept", c.FetchLogKept, bounds.Limit(c.FetchLogKept, 2, maxFetchLogKept))
	report.Add("stats_kept", c.StatsKept, bounds.Limit(c.StatsKept, 1, maxStatsKept))
	report.Add("cache_bytes", c.CacheBytes, bounds.Limit(c.CacheBytes, 1<<20, maxCacheBytes))
	report.Add("min_free_bytes", c.MinFreeBytes, bounds.Limit(c.MinFreeBytes, 0, maxMinFreeBytes))
	return report.Err()
}

// Options are the non-configuration inputs of Open.
type Options struct {
	Logger *slog.Logger
	// FS replaces the operating system's file system, e.g. vfs.NewMem() in
	// tests. Nil means the real one.
	FS vfs.FS
}

// DB is the repository. It is safe for concurrent use.
type DB struct {
	pdb    *pebble.DB
	dir    string
	fs     vfs.FS // the repository's file system, for its free space
	cfg    Config
	cache  *pebble.Cache
	logger *slog.Logger

	zenc *zstd.Encoder // EncodeAll is safe for concurrent use
	zdec *zstd.Decoder // DecodeAll is safe for concurrent use

	queueSeq atomic.Uint64

	// commitMu orders commits that append to the change feed, so that
	// sequence numbers become visible in order and a reader that has seen
	// seq n has seen every seq below n.
	commitMu sync.Mutex
	nextSeq  uint64 // guarded by commitMu
}

// inUse is the error of a repository directory another process holds.
func inUse(dir string) error {
	return fmt.Errorf("%w: %s (another deltaq command holds it: one that has not finished, such as a crawl or a relation sync, or a running serve, run or demo; let it finish or stop it first; a server's watches, alerts and ads are managed through its HTTP API, and its feeds, backups, seeds and watch API keys through its admin listener)", ErrInUse, dir)
}

// Open opens (creating if needed) the repository in dir.
func Open(dir string, cfg Config, opts Options) (*DB, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	logger := opts.Logger
	if logger == nil {
		logger = slog.New(slog.DiscardHandler)
	}
	cache := pebble.NewCache(cfg.CacheBytes)
	popts := &pebble.Options{
		Cache:  cache,
		Logger: pebbleLogger{logger, dir},
		// Pebble's default ends the process at a damaged file. The
		// read that found it fails instead, with the file named, and
		// what else is stored stays readable (a server keeps serving).
		EventListener: &pebble.EventListener{DataCorruption: func(info pebble.DataCorruptionInfo) {
			logger.Error("repository damaged: "+restoreAdvice, "component", "pebble", "dir", dir, "file", info.Path, "err", firstLine(fmt.Sprint(info.Details)))
		}},
	}
	popts.FS = vfs.Default
	if opts.FS != nil {
		popts.FS = opts.FS
	} else if err := dirAccessProblem(dir); err != nil {
		cache.Unref()
		return nil, fmt.Errorf("repo: open %s: %w: deltaq must be able to read and write the repository directory: run it as the user who owns it, or give it that access", dir, err)
	}
	pdb, err := pebble.Open(dir, popts)
	cache.Unref()
	if lockedElsewhere(err) {
		return nil, inUse(dir)
	}
	if err != nil && damaged(err) {
		return nil, fmt.Errorf("repo: open %s: %w: the repository is damaged: %s; without a backup, move %s aside and crawl again into a new repository (deltaq crawl makes one; then deltaq index rebuild)", dir, err, restoreAdvice, dir)
	}
	if err != nil {
		return nil, fmt.Errorf("repo: open %s: %w", dir, err)
	}
	zenc, err := zstd.NewWriter(nil, zstd.WithEncoderLevel(zstd.SpeedFastest), zstd.WithEncoderConcurrency(1))
	if err != nil {
		pdb.Close()
		return nil, fmt.Errorf("repo: zstd encoder: %w", err)
	}
	zdec, err := zstd.NewReader(nil, zstd.WithDecoderConcurrency(0), zstd.WithDecoderMaxMemory(256<<20))
	if err != nil {
		pdb.Close()
		return nil, fmt.Errorf("repo: zstd decoder: %w", err)
	}
	db := &DB{pdb: pdb, dir: dir, fs: popts.FS, cfg: cfg, cache: cache, logger: logger.With("component", "repo"), zenc: zenc, zdec: zdec}
	db.queueSeq.Store(uint64(time.Now().UnixNano()))
	if db.nextSeq, err = db.loadNextSeq(); err != nil {
		db.Close()
		return nil, err
	}
	return db, nil
}

// Close flushes and closes the database.
func (db *DB) Close() error {
	db.zdec.Close()
	if err := db.pdb.Close(); err != nil {
		return fmt.Errorf("repo: close: %w", err)
	}
	return nil
}

// Config returns the settings the repository was opened with.
func (db *DB) Config() Config { return db.cfg }

// Checkpoint writes a consistent copy of the database to dir, which must
// not exist. The evaluation harness uses it to start every run from the
// same crawled week 0.
func (db *DB) Checkpoint(dir string) error {
	if err := db.pdb.Checkpoint(dir, pebble.WithFlushedWAL()); err != nil {
		return fmt.Errorf("repo: checkpoint to %s: %w", dir, err)
	}
	return nil
}

func (db *DB) loadNextSeq() (uint64, error) {
	it, err := db.pdb.NewIter(&pebble.IterOptions{LowerBound: []byte{prefixChange}, UpperBound: []byte{prefixChange + 1}})
	if err != nil {
		return 0, fmt.Errorf("repo: scan changes: %w", err)
	}
	defer it.Close()
	if !it.Last() {
		return 1, it.Error()
	}
	k := it.Key()
	if len(k) != 9 {
		return 0, fmt.Errorf("%w: change key of %d bytes", ErrBadKey, len(k))
	}
	return beUint64(k[1:]) + 1, nil
}

func beUint64(b []byte) uint64 {
	var v uint64
	for _, c := range b[:8] {
		v = v<<8 | uint64(c)
	}
	return v
}

// surtOf maps a normalized URL to its key form.
func surtOf(url string) (string, error) {
	s, err := urlnorm.SURT(url)
	if err != nil {
		return "", fmt.Errorf("repo: key for %q: %w", url, err)
	}
	return s, nil
}

// reader is what both DB and Batch read through.
type reader interface {
	Get(key []byte) ([]byte, io.Closer, error)
	NewIter(o *pebble.IterOptions) (*pebble.Iterator, error)
}

// get copies the value of key out of r.
func get(r reader, key []byte) ([]byte, error) {
	v, c, err := r.Get(key)
	if errors.Is(err, pebble.ErrNotFound) {
		return nil, ErrNotFound
	}
	if err != nil {
		return nil, err
	}
	out := bytes.Clone(v)
	if err := c.Close(); err != nil {
		return nil, err
	}
	return out, nil
}

// scan yields every key/value with the given prefix, in key order. Keys and
// values are only valid until the next iteration.
func scan(ctx context.Context, r reader, prefix []byte) iter.Seq2[kv, error] {
	return scanRange(ctx, r, prefix, prefixEnd(prefix), false)
}

type kv struct{ k, v []byte }

func scanRange(ctx context.Context, r reader, lower, upper []byte, reverse bool) iter.Seq2[kv, error] {
	return func(yield func(kv, error) bool) {
		it, err := r.NewIter(&pebble.IterOptions{LowerBound: lower, UpperBound: upper})
		if err != nil {
			yield(kv{}, err)
			return
		}
		defer it.Close()
		valid := it.First
		next := it.Next
		if reverse {
			valid, next = it.Last, it.Prev
		}
		n := 0
		for ok := valid(); ok; ok = next() {
			if n++; n%1024 == 0 {
				if err := ctx.Err(); err != nil {
					yield(kv{}, err)
					return
				}
			}
			v, err := it.ValueAndErr()
			if err != nil {
				yield(kv{}, err)
				return
			}
			if !yield(kv{it.Key(), v}, nil) {
				return
			}
		}
		if err := it.Error(); err != nil {
			yield(kv{}, err)
		}
	}
}

func (db *DB) r() reader { return db.pdb }

// Page returns the record of a normalized URL, or ErrNotFound.
func (db *DB) Page(url string) (Page, error) { return readPage(db.r(), url) }

func readPage(r reader, url string) (Page, error) {
	s, err := surtOf(url)
	if err != nil {
		return Page{}, err
	}
	v, err := get(r, pageKey(s))
	if err != nil {
		if errors.Is(err, ErrNotFound) {
			return Page{}, err
		}
		return Page{}, fmt.Errorf("repo: get page %s: %w", url, err)
	}
	p, err := decodePage(v)
	if err != nil {
		return Page{}, fmt.Errorf("repo: page %s: %w", url, err)
	}
	return p, nil
}

// Pages yields every page in key order (hosts together, see FORMAT.md).
func (db *DB) Pages(ctx context.Context) iter.Seq2[Page, error] {
	return pagesWithPrefix(ctx, db.r(), []byte{prefixPage})
}

// HostPages yields the pages of one host (host[:port] as in urlnorm.Host).
func (db *DB) HostPages(ctx context.Context, host string) iter.Seq2[Page, error] {
	return pagesWithPrefix(ctx, db.r(), append([]byte{prefixPage}, urlnorm.HostKey(host)...))
}

func pagesWithPrefix(ctx context.Context, r reader, prefix []byte) iter.Seq2[Page, error] {
	return func(yield func(Page, error) bool) {
		for e, err := range scan(ctx, r, prefix) {
			if err != nil {
				yield(Page{}, fmt.Errorf("repo: scan pages: %w", err))
				return
			}
			p, err := decodePage(e.v)
			if err != nil {
				yield(Page{}, fmt.Errorf("repo: page key %q: %w", e.k, err))
				return
			}
			if !yield(p, nil) {
				return
			}
		}
	}
}

// Versions returns the stored versions of a page, newest first, with
// bodies and text decompressed when withContent is set.
func (db *DB) Versions(ctx context.Context, url string, withContent bool) ([]Version, error) {
	return db.versions(ctx, db.r(), url, withContent, math.MaxInt)
}

// LatestVersion returns the newest stored version of a page.
func (db *DB) LatestVersion(ctx context.Context, url string) (Version, error) {
	vs, err := db.versions(ctx, db.r(), url, true, 1)
	if err != nil {
		return Version{}, err
	}
	if len(vs) == 0 {
		return Version{}, ErrNotFound
	}
	return vs[0], nil
}

// VersionAt returns the version of a page fetched at the given time.
func (db *DB) VersionAt(url string, at time.Time) (Version, error) {
	s, err := surtOf(url)
	if err != nil {
		return Version{}, err
	}
	v, err := get(db.r(), versionKey(s, at))
	if err != nil {
		if errors.Is(err, ErrNotFound) {
			return Version{}, err
		}
		return Version{}, fmt.Errorf("repo: get version %s@%s: %w", url, at, err)
	}
	return db.decodeVersion(at, v, true)
}

func (db *DB) versions(ctx context.Context, r reader, url string, withContent bool, limit int) ([]Version, error) {
	s, err := surtOf(url)
	if err != nil {
		return nil, err
	}
	p := withSep(prefixVersion, s)
	var out []Version
	for e, err := range scanRange(ctx, r, p, prefixEnd(p), true) {
		if err != nil {
			return nil, fmt.Errorf("repo: scan versions %s: %w", url, err)
		}
		at, err := timeSuffix(e.k)
		if err != nil {
			return nil, err
		}
		v, err := db.decodeVersion(at, e.v, withContent)
		if err != nil {
			return nil, fmt.Errorf("repo: version %s@%s: %w", url, at, err)
		}
		out = append(out, v)
		if len(out) >= limit {
			break
		}
	}
	return out, nil
}

// FetchLog returns the fetch history of a page, oldest first.
func (db *DB) FetchLog(ctx context.Context, url string) ([]FetchRecord, error) {
	return fetchLog(ctx, db.r(), url)
}

func fetchLog(ctx context.Context, r reader, url string) ([]FetchRecord, error) {
	s, err := surtOf(url)
	if err != nil {
		return nil, err
	}
	var out []FetchRecord
	for e, err := range scan(ctx, r, withSep(prefixFetchLog, s)) {
		if err != nil {
			return nil, fmt.Errorf("repo: scan fetch log %s: %w", url, err)
		}
		rec, err := decodeFetchRecord(e.v)
		if err != nil {
			return nil, fmt.Errorf("repo: fetch log %s: %w", url, err)
		}
		out = append(out, rec)
	}
	return out, nil
}

// OutLinks returns the current out-links of a page, in key order.
func (db *DB) OutLinks(ctx context.Context, url string) ([]Link, error) {
	return outLinks(ctx, db.r(), url)
}

func outLinks(ctx context.Context, r reader, url string) ([]Link, error) {
	s, err := surtOf(url)
	if err != nil {
		return nil, err
	}
	p := withSep(prefixOutLink, s)
	var out []Link
	for e, err := range scan(ctx, r, p) {
		if err != nil {
			return nil, fmt.Errorf("repo: scan out-links %s: %w", url, err)
		}
		dst, err := urlnorm.FromSURT(string(e.k[len(p):]))
		if err != nil {
			return nil, fmt.Errorf("%w: out-link of %s: %v", ErrBadKey, url, err)
		}
		kind := LinkAnchor
		if len(e.v) == 1 {
			kind = LinkKind(e.v[0])
		}
		out = append(out, Link{URL: dst, Kind: kind})
	}
	return out, nil
}

// InLinks returns the pages known to link to url.
func (db *DB) InLinks(ctx context.Context, url string) ([]string, error) {
	s, err := surtOf(url)
	if err != nil {
		return nil, err
	}
	p := withSep(prefixInLink, s)
	var out []string
	for e, err := range scan(ctx, db.r(), p) {
		if err != nil {
			return nil, fmt.Errorf("repo: scan in-links %s: %w", url, err)
		}
		src, err := urlnorm.FromSURT(string(e.k[len(p):]))
		if err != nil {
			return nil, fmt.Errorf("%w: in-link of %s: %v", ErrBadKey, url, err)
		}
		out = append(out, src)
	}
	return out, nil
}

// Links yields every (src, dst) out-link in the repository, grouped by
// source. PageRank and the discovery statistics read the graph this way.
func (db *DB) Links(ctx context.Context) iter.Seq2[[2]string, error] {
	return func(yield func([2]string, error) bool) {
		for e, err := range scan(ctx, db.r(), []byte{prefixOutLink}) {
			if err != nil {
				yield([2]string{}, fmt.Errorf("repo: scan links: %w", err))
				return
			}
			src, dst, ok := bytes.Cut(e.k[1:], []byte{sep})
			if !ok {
				yield([2]string{}, ErrBadKey)
				return
			}
			s, err1 := urlnorm.FromSURT(string(src))
			d, err2 := urlnorm.FromSURT(string(dst))
			if err := errors.Join(err1, err2); err != nil {
				yield([2]string{}, fmt.Errorf("%w: link: %v", ErrBadKey, err))
				return
			}
			if !yield([2]string{s, d}, nil) {
				return
			}
		}
	}
}

// Host returns the state of a host, or ErrNotFound.
func (db *DB) Host(host string) (HostState, error) { return readHost(db.r(), host) }

func readHost(r reader, host string) (HostState, error) {
	v, err := get(r, hostKey(urlnorm.HostKey(host)))
	if err != nil {
		if errors.Is(err, ErrNotFound) {
			return HostState{Host: host}, err
		}
		return HostState{}, fmt.Errorf("repo: get host %s: %w", host, err)
	}
	h, err := decodeHost(v)
	if err != nil {
		return HostState{}, fmt.Errorf("repo: host %s: %w", host, err)
	}
	return h, nil
}

// Hosts yields the state of every known host.
func (db *DB) Hosts(ctx context.Context) iter.Seq2[HostState, error] {
	return func(yield func(HostState, error) bool) {
		for e, err := range scan(ctx, db.r(), []byte{prefixHost}) {
			if err != nil {
				yield(HostState{}, fmt.Errorf("repo: scan hosts: %w", err))
				return
			}
			h, err := decodeHost(e.v)
			if err != nil {
				yield(HostState{}, fmt.Errorf("repo: host key %q: %w", e.k, err))
				return
			}
			if !yield(h, nil) {
				return
			}
		}
	}
}

// QueueItem is a queue entry with its due time and the key that removes it.
type QueueItem struct {
	QueueEntry
	Due time.Time
	key []byte
}

// Key is the item's repository key; keys order items as the queue does.
func (q QueueItem) Key() []byte { return q.key }

// QueueKeyDue returns the due time encoded in a queue key.
func QueueKeyDue(key string) time.Time {
	if len(key) < 18 || key[0] != prefixQueue {
		return time.Time{}
	}
	return decodeTime([]byte(key[len(key)-16 : len(key)-8]))
}

// Queue yields the queued entries of one host and class in due order. With
// limit > 0 it stops after limit entries.
func (db *DB) Queue(ctx context.Context, host string, class QueueClass, limit int) iter.Seq2[QueueItem, error] {
	return db.QueueAfter(ctx, host, class, nil, limit)
}

// QueueAfter is Queue starting after the key of an item (nil: at the
// start). A reader that resumes where it stopped seeks past the entries
// it already took, and past the deletion marks of those completed, instead
// of stepping over them again.
func (db *DB) QueueAfter(ctx context.Context, host string, class QueueClass, after []byte, limit int) iter.Seq2[QueueItem, error] {
	return func(yield func(QueueItem, error) bool) {
		p := append(withSep(prefixQueue, urlnorm.HostKey(host)), byte(class))
		lower := p
		if bytes.HasPrefix(after, p) {
			lower = append(bytes.Clone(after), 0) // the least key greater than after
		}
		n := 0
		for e, err := range scanRange(ctx, db.r(), lower, prefixEnd(p), false) {
			if err != nil {
				yield(QueueItem{}, fmt.Errorf("repo: scan queue %s: %w", host, err))
				return
			}
			item, err := decodeQueueItem(e.k, e.v)
			if err != nil {
				yield(QueueItem{}, fmt.Errorf("repo: queue %s: %w", host, err))
				return
			}
			if !yield(item, nil) {
				return
			}
			if n++; limit > 0 && n >= limit {
				return
			}
		}
	}
}

// AllQueued yields every queued entry of every host and class, grouped by
// host. The frontier reads it once at start-up.
func (db *DB) AllQueued(ctx context.Context) iter.Seq2[QueueItem, error] {
	return func(yield func(QueueItem, error) bool) {
		for e, err := range scan(ctx, db.r(), []byte{prefixQueue}) {
			if err != nil {
				yield(QueueItem{}, fmt.Errorf("repo: scan queue: %w", err))
				return
			}
			item, err := decodeQueueItem(e.k, e.v)
			if err != nil {
				yield(QueueItem{}, fmt.Errorf("repo: queue: %w", err))
				return
			}
			if !yield(item, nil) {
				return
			}
		}
	}
}

func decodeQueueItem(k, v []byte) (QueueItem, error) {
	if len(k) < 18 {
		return QueueItem{}, ErrBadKey
	}
	q, err := decodeQueueEntry(v)
	if err != nil {
		return QueueItem{}, err
	}
	return QueueItem{QueueEntry: q, Due: decodeTime(k[len(k)-16 : len(k)-8]), key: bytes.Clone(k)}, nil
}

// Changes returns up to limit change-feed entries with sequence > after.
func (db *DB) Changes(ctx context.Context, after uint64, limit int) ([]Change, error) {
	var out []Change
	for e, err := range scanRange(ctx, db.r(), changeKey(after+1), []byte{prefixChange + 1}, false) {
		if err != nil {
			return nil, fmt.Errorf("repo: scan changes: %w", err)
		}
		if len(e.k) != 9 {
			return nil, ErrBadKey
		}
		c, err := decodeChange(e.v)
		if err != nil {
			return nil, fmt.Errorf("repo: change: %w", err)
		}
		c.Seq = beUint64(e.k[1:])
		out = append(out, c)
		if len(out) >= limit {
			break
		}
	}
	return out, nil
}

// LastChangeSeq returns the sequence number of the newest committed change,
// 0 if there is none.
func (db *DB) LastChangeSeq() uint64 {
	db.commitMu.Lock()
	defer db.commitMu.Unlock()
	return db.nextSeq - 1
}

// DeltaQs returns a page's ΔQ_A measurements, oldest first.
func (db *DB) DeltaQs(ctx context.Context, url string) ([]DeltaQ, error) {
	var out []DeltaQ
	err := db.stats(ctx, url, StatDeltaQ, func(at time.Time, v []byte) error {
		m, err := decodeDeltaQ(at, v)
		out = append(out, m)
		return err
	})
	return out, err
}

// DiscoveryYields returns what the fetches of a page led to, oldest first.
func (db *DB) DiscoveryYields(ctx context.Context, url string) ([]DiscoveryYield, error) {
	var out []DiscoveryYield
	err := db.stats(ctx, url, StatDiscovery, func(at time.Time, v []byte) error {
		y, err := decodeDiscoveryYield(at, v)
		out = append(out, y)
		return err
	})
	return out, err
}

func (db *DB) stats(ctx context.Context, url string, kind StatKind, fn func(time.Time, []byte) error) error {
	s, err := surtOf(url)
	if err != nil {
		return err
	}
	p := append(withSep(prefixStat, s), byte(kind))
	for e, err := range scan(ctx, db.r(), p) {
		if err != nil {
			return fmt.Errorf("repo: scan stats %s: %w", url, err)
		}
		at, err := timeSuffix(e.k)
		if err != nil {
			return err
		}
		if err := fn(at, e.v); err != nil {
			return fmt.Errorf("repo: stat %c of %s: %w", kind, url, err)
		}
	}
	return nil
}

// Meta returns the value stored under a metadata name, or ErrNotFound.
func (db *DB) Meta(name string) ([]byte, error) { return get(db.r(), metaKey(name)) }

// Bucket returns the value under (bucket, key), or ErrNotFound. Buckets hold
// state owned by packages outside the crawl path (ads, ranking); the owner
// encodes keys and values.
func (db *DB) Bucket(bucket, key string) ([]byte, error) {
	return get(db.r(), bucketKey(bucket, key))
}

// BucketOrCreate returns the value under (bucket, key); if there is none,
// it stores create's value first (one synced batch) and reports created.
// It is for values made once and kept, such as a server secret; callers
// serialize concurrent calls for the same key.
func (db *DB) BucketOrCreate(ctx context.Context, bucket, key string, create func() ([]byte, error)) (v []byte, created bool, err error) {
	v, err = db.Bucket(bucket, key)
	if !errors.Is(err, ErrNotFound) {
		return v, false, err
	}
	if v, err = create(); err != nil {
		return nil, false, err
	}
	b := db.NewBatch(ctx)
	defer b.Close()
	if err := b.PutBucket(bucket, key, v); err != nil {
		return nil, false, err
	}
	if err := b.Commit(); err != nil {
		return nil, false, err
	}
	return v, true, nil
}

// BucketScan yields every (key, value) of a bucket whose key starts with
// prefix, in key order. The yielded slices are only valid during the call.
func (db *DB) BucketScan(ctx context.Context, bucket, prefix string) iter.Seq2[[2][]byte, error] {
	return db.BucketScanAfter(ctx, bucket, prefix, "")
}

// BucketScanAfter is BucketScan over the keys that sort after
// prefix+after, for reading a bucket page by page: after is the last key
// of the page before, without the prefix ("": from the first).
func (db *DB) BucketScanAfter(ctx context.Context, bucket, prefix, after string) iter.Seq2[[2][]byte, error] {
	full := bucketKey(bucket, prefix)
	if after == "" {
		return db.bucketScan(ctx, bucket, full, full)
	}
	// The first key after K is K followed by a zero byte.
	return db.bucketScan(ctx, bucket, full, bucketKey(bucket, prefix+after+"\x00"))
}

// bucketScan yields the keys with the full prefix from lower on.
func (db *DB) bucketScan(ctx context.Context, bucket string, full, lower []byte) iter.Seq2[[2][]byte, error] {
	n := len(bucketKey(bucket, ""))
	return func(yield func([2][]byte, error) bool) {
		for e, err := range scanRange(ctx, db.r(), lower, prefixEnd(full), false) {
			if err != nil {
				yield([2][]byte{}, fmt.Errorf("repo: scan bucket %s: %w", bucket, err))
				return
			}
			if !yield([2][]byte{e.k[n:], e.v}, nil) {
				return
			}
		}
	}
}

// SpaceError is a commit refused because the repository's disk has less
// free space than repo.min_free_bytes.
type SpaceError struct {
	Dir       string
	Free, Min uint64
}

func (e *SpaceError) Error() string {
	return fmt.Sprintf("repo: %s: %d MiB free on its disk, under repo.min_free_bytes (%d MiB): nothing more is written until space is freed or the setting lowered; what is stored is kept",
		e.Dir, e.Free>>20, e.Min>>20)
}

// checkSpace refuses a commit while the disk has less than
// cfg.MinFreeBytes free. A file system that cannot tell (in memory) is
// not checked.
func (db *DB) checkSpace() error {
	if db.cfg.MinFreeBytes <= 0 {
		return nil
	}
	u, err := db.fs.GetDiskUsage(db.dir)
	if err != nil {
		return nil
	}
	if min := uint64(db.cfg.MinFreeBytes); u.AvailBytes < min {
		return &SpaceError{Dir: db.dir, Free: u.AvailBytes, Min: min}
	}
	return nil
}

// pebbleLogger passes Pebble's messages to the repository's logger.
type pebbleLogger struct {
	l   *slog.Logger
	dir string
}

func (p pebbleLogger) Infof(format string, args ...any) {
	p.l.Debug(fmt.Sprintf(format, args...), "component", "pebble")
}
func (p pebbleLogger) Errorf(format string, args ...any) {
	p.l.Error(fmt.Sprintf(format, args...), "component", "pebble")
}

// Fatalf reports an error Pebble cannot go on from, most often a write
// of its MANIFEST or log that failed (a full disk, an I/O error), and ends
// the process, as Pebble requires of it: it must not return, and it may
// be called from a background flush, where no caller could take an error.
// It exits with status 1 and one line naming the directory and the error,
// not the error's stack trace: the write that failed is not applied, what
// was stored before it is kept, and the repository opens again once the
// cause is gone. A damaged file is not fixed that way: that line says to
// restore a backup.
func (p pebbleLogger) Fatalf(format string, args ...any) {
	msg := fmt.Sprintf(format, args...)
	p.l.Error(msg, "component", "pebble")
	advice := "what was stored before is kept, and the repository opens once that is fixed"
	if strings.Contains(msg, "corruption") {
		advice = "a file of the repository is damaged: " + restoreAdvice
	}
	fmt.Fprintf(os.Stderr, "repo: %s: %s; %s\n", p.dir, firstLine(msg), advice)
	os.Exit(1)
}

// restoreAdvice is the way back from a damaged repository: unlike the
// index, it is the data itself, and only a copy of it brings it back.
const restoreAdvice = "restore it from a backup made with deltaq backup (use the backup as --data, or copy it where the data directory is)"

// damaged reports whether err, from pebble.Open, is damage to the
// repository's files. Pebble marks what it finds malformed (a MANIFEST or
// log cut short) as corruption, but its consistency check reports a table
// the MANIFEST lists and the directory lacks as a file that does not
// exist, and one of another size only in words.
func damaged(err error) bool {
	return pebble.IsCorruptionError(err) || errors.Is(err, fs.ErrNotExist) ||
		strings.Contains(err.Error(), "object size mismatch")
}

// firstLine is the first line of s, an error's text: Pebble's errors
// carry their stack after it.
func firstLine(s string) string {
	line, _, _ := strings.Cut(s, "\n")
	return line
}
