package index

import (
	"context"
	"crypto/rand"
	"encoding/binary"
	"errors"
	"fmt"
	"io/fs"
	"log/slog"
	"os"
	"sync"
	"sync/atomic"
	"time"

	"github.com/blevesearch/bleve/v2"
	"github.com/blevesearch/bleve/v2/analysis"
	"github.com/blevesearch/bleve/v2/index/scorch"
	"github.com/blevesearch/bleve/v2/mapping"
	bindex "github.com/blevesearch/bleve_index_api"

	"github.com/deltaq/deltaq/internal/querylog"
	"github.com/deltaq/deltaq/repo"
)

// Options are the non-configuration inputs of Open.
type Options struct {
	// Logger receives lifecycle lines at Info and per-batch lines at Debug;
	// nil discards.
	Logger *slog.Logger
	// Clock tells the time (histogram age, delete times); nil is time.Now.
	Clock func() time.Time
	// Workload is the query log Q the ΔQ measurement weighs queries by;
	// nil or empty turns the measurement off (§4.6.1).
	Workload []querylog.Query
	// Popularity gives a page's popularity when it is indexed; nil is 0.
	// Package ranking owns the values (RefreshPopularity re-indexes pages
	// whose value changed). An error fails the batch being indexed.
	Popularity func(ctx context.Context, url string) (float64, error)
	// Recreate discards an existing index that this configuration cannot
	// use (built with another scoring model or analyzer) or that cannot be
	// read (ErrDamaged) and starts an empty one; `deltaq index rebuild`
	// sets it and then calls Rebuild. A directory that is not a Bleve
	// index is never discarded.
	Recreate bool
	// MergeOnlyOnCompact stops Bleve's background segment merges: segments
	// merge only in Compact. Under BM25 Bleve's average field length is
	// summed over segments (scorer.go), so while a background merge may or
	// may not have finished, the same batch can be scored (and ΔQ_A
	// measured) differently from one run to the next. An evaluation that
	// must be reproducible sets it and compacts between crawl rounds; a
	// long-running index must not, or its segments pile up.
	MergeOnlyOnCompact bool
	// Observer sees each batch's new and changed pages (search alerts);
	// nil for none.
	Observer BatchObserver
}

// Index is the Bleve index over the repository's indexable pages, kept up to
// date from the change feed, with the ΔQ_A measurement taken in each batch.
// It is safe for concurrent use: searches run in parallel with one writer
// (CatchUp, Run, Rebuild and RefreshPopularity take turns).
type Index struct {
	dir        string
	cfg        Config
	db         *repo.DB
	logger     *slog.Logger
	clock      func() time.Time
	popularity func(context.Context, string) (float64, error)
	observer   BatchObserver
	est        Estimator
	// mergeOnlyOnCompact is Options.MergeOnlyOnCompact (scorchConfig).
	mergeOnlyOnCompact bool

	// mu guards the Bleve handle, which Rebuild swaps.
	mu struct {
		sync.RWMutex
		bi       bleve.Index
		analyzer analysis.Analyzer
	}

	// apply serializes the writers. Fields below it are guarded by it.
	apply            sync.Mutex
	generation       uint64
	batchesSinceHist int
	df               docFreqs // df of the workload terms (docfreq.go)
	recoverUntil     uint64   // change-feed sequence pending at Open
	histStale        atomic.Bool

	watermark atomic.Uint64
	workload  atomic.Pointer[Workload]
	texts     snapTexts // the text field of the snapshot searched last, in memory (snaptext.go)
	slots     sync.Pool // *[]accumulator: retrieval's sums, one per document number (match.go)
	cands     sync.Pool // *[]candidate: retrieval's candidates (match.go)
	snippets  sync.Pool // *snippetBufs: the snippets' matches and text (search.go)
	hists     atomic.Pointer[histogramSet]
	// assumed is the compaction AssumeCompacted recorded (compact.go).
	assumed atomic.Pointer[assumedCompaction]
	// health is the damage searches' failures led to (health.go).
	health health

	// Test hooks: trace sees every per-term measurement; beforeCommit runs
	// after the Bleve batch and before the repository commit (an error
	// aborts the batch there, as a crash would); caughtUp sees the result
	// of every CatchUp, warmed the end of every warm, and beforeBuild the
	// start of every build of a snapshot's text field (an error fails the
	// build).
	trace        func(termTrace)
	beforeCommit func() error
	caughtUp     func(Stats)
	warmed       func()
	beforeBuild  func() error
	// readerHook sees the index snapshot the old copies ("before") and
	// the new copies ("after") are scored on, while it is open.
	readerHook func(stage string, r bindex.IndexReader)
	// cpuClock, when set by benchmarks, replaces wall time in
	// Stats.Measuring with CPU time: the calling thread's, plus that of
	// the measurement's worker goroutines (workerCPU).
	cpuClock  func() time.Duration
	workerCPU atomic.Int64
	opened    time.Time
}

// measureClock is the clock Stats.Measuring is kept with.
func (ix *Index) measureClock() time.Duration {
	if ix.cpuClock != nil {
		return ix.cpuClock()
	}
	return time.Since(ix.opened)
}

// watermarkKey is the repository metadata name of the watermark: the index
// generation and the last change-feed sequence applied to it.
const watermarkKey = "index.watermark"

// generationKey is the Bleve internal key holding the index generation, a
// random id chosen when the Bleve index is created. The watermark and the
// page snapshots name a generation, so a recreated or rebuilt Bleve index
// never trusts state written for another one.
var generationKey = []byte("deltaq.generation")

// appliedKey is the Bleve internal key holding the last change-feed
// sequence whose batch the index holds, written in that batch. The
// watermark says the same once the repository commits, except when Bleve
// opens an older snapshot than it last wrote: it does that, without an
// error, when a newer one has lost a segment file, and then only this key
// tells how far the index really got. A new index holds 0 (nothing of the
// feed) until its first batch, or until a rebuild is complete.
var appliedKey = []byte("deltaq.applied")

// putApplied records in b that the index holds the change feed up to seq.
func putApplied(b *bleve.Batch, seq uint64) {
	b.SetInternal(appliedKey, binary.BigEndian.AppendUint64(nil, seq))
}

// markApplied records in bi, in a batch of its own, that it holds the
// change feed up to seq, and waits until that is on disk.
func markApplied(ctx context.Context, bi bleve.Index, seq uint64) error {
	b := bi.NewBatch()
	putApplied(b, seq)
	if err := applyBleveWait(ctx, bi, b); err != nil {
		return fmt.Errorf("index: record applied sequence %d: %w", seq, err)
	}
	return nil
}

// readApplied returns the sequence appliedKey holds; ok is false for an
// index written before the key was kept.
func readApplied(bi bleve.Index) (seq uint64, ok bool, err error) {
	v, err := bi.GetInternal(appliedKey)
	switch {
	case err != nil:
		return 0, false, fmt.Errorf("index: read applied sequence: %w", err)
	case v == nil:
		return 0, false, nil
	case len(v) != 8:
		return 0, false, fmt.Errorf("index: applied sequence of %d bytes: corrupt", len(v))
	}
	return binary.BigEndian.Uint64(v), true, nil
}

// errIncompatible marks an existing index this configuration cannot use.
var errIncompatible = errors.New("index: incompatible index")

// ErrDamaged marks an index directory that holds a Bleve index which cannot
// be opened: its metadata or its segments are corrupt or missing. The index
// is derived from the repository, so a rebuild (Options.Recreate, then
// Rebuild) loses nothing.
var ErrDamaged = errors.New("index: damaged")

// Open opens the index in dir, creating it if it does not exist, and reads
// the watermark from db. An existing index must have been built with
// cfg.Scoring.
func Open(dir string, cfg Config, db *repo.DB, opts Options) (*Index, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	if db == nil {
		return nil, errors.New("index: open: no repository")
	}
	logger := opts.Logger
	if logger == nil {
		logger = slog.New(slog.DiscardHandler)
	}
	ix := &Index{
		dir:        dir,
		cfg:        cfg,
		db:         db,
		logger:     logger.With("component", "index"),
		clock:      opts.Clock,
		popularity: opts.Popularity,
		observer:   opts.Observer,
		est:        cfg.estimator(),
		opened:     time.Now(),
		texts:      snapTexts{metrics: newTextMetrics(), stale: make(chan struct{}, 1)},
	}
	if ix.clock == nil {
		ix.clock = time.Now
	}
	ix.mergeOnlyOnCompact = opts.MergeOnlyOnCompact
	bi, gen, applied, hasApplied, err := ix.openChecked(opts.Recreate)
	if err != nil {
		return nil, err
	}
	ix.setBleve(bi)
	ix.generation = gen
	wmGen, seq, err := readWatermark(db)
	last := db.LastChangeSeq() // the feed's end, read once for both uses below
	switch {
	case err != nil:
		bi.Close()
		return nil, err
	case wmGen == gen:
		if hasApplied && applied < seq {
			ix.logger.Warn("the index opened at an older state than the repository's watermark (a newer one was damaged); applying the change feed again from the older state",
				"applied", applied, "watermark", seq)
			seq = applied
		}
		ix.watermark.Store(seq)
	case last == 0:
		// A new index over a new repository: nothing to replay, nothing to say.
	default:
		// A new or replaced Bleve index: replay the whole feed.
		ix.logger.Info("index generation differs from the repository's watermark; applying the change feed from the start",
			"generation", gen, "watermark_generation", wmGen, "watermark", seq)
	}
	if last > ix.watermark.Load() {
		ix.recoverUntil = last
	}
	if len(opts.Workload) > 0 {
		ix.SetWorkload(opts.Workload)
	}
	n, err := bi.DocCount()
	if err != nil {
		bi.Close()
		return nil, fmt.Errorf("index: count: %w", err)
	}
	ix.logger.Info("index open", "dir", dir, "scoring", cfg.Scoring, "n", n, "watermark", ix.watermark.Load())
	return ix, nil
}

// openChecked opens the Bleve index in ix.dir and checks it: the change
// sequence it applied last (applied, when hasApplied) and its segments'
// checksums. With recreate, an index this configuration cannot use or
// cannot read is discarded and made anew; one it may not read or write
// is refused as such whatever recreate says, for a change of owner or
// mode mends it.
func (ix *Index) openChecked(recreate bool) (bi bleve.Index, gen, applied uint64, hasApplied bool, err error) {
	dir := ix.dir
	bi, gen, err = openBleve(dir, ix.cfg.Scoring, ix.mergeOnlyOnCompact)
	if err == nil {
		if applied, hasApplied, err = readApplied(bi); err == nil {
			err = verifySegments(bi)
		}
		if err != nil {
			bi.Close()
			err = fmt.Errorf("%w: %s: %w", ErrDamaged, dir, err)
		}
	}
	if errors.Is(err, ErrDamaged) || errors.Is(err, bleve.ErrorIndexMetaMissing) {
		if perr := accessProblem(dir); perr != nil {
			return nil, 0, 0, false, fmt.Errorf("index: open %s: %w: deltaq must be able to read and write every file of the index: run it as the user who owns them, or give it that access", dir, perr)
		}
	}
	if (errors.Is(err, errIncompatible) || errors.Is(err, ErrDamaged)) && recreate {
		ix.logger.Info("discarding an index that cannot be used", "dir", dir, "err", err)
		if err := os.RemoveAll(dir); err != nil {
			return nil, 0, 0, false, fmt.Errorf("index: %w", err)
		}
		bi, gen, err = createBleve(dir, ix.cfg.Scoring, ix.mergeOnlyOnCompact)
		return bi, gen, 0, false, err
	}
	return bi, gen, applied, hasApplied, err
}

// openBleve opens or creates the Bleve index in dir and returns its generation.
func openBleve(dir string, s Scoring, mergeOnlyOnCompact bool) (bleve.Index, uint64, error) {
	bi, err := openBleveUsing(dir, scorchConfig(mergeOnlyOnCompact))
	switch {
	case err == nil:
		if got := scoringOf(bi.Mapping()); got != s {
			bi.Close()
			return nil, 0, fmt.Errorf("%w: %s was built with scoring model %q but index.scoring is %q: rebuild the index (deltaq index rebuild) or set index.scoring to %q",
				errIncompatible, dir, got, s, got)
		}
		if a := bi.Mapping().AnalyzerNameForPath(FieldText); a != AnalyzerName {
			bi.Close()
			return nil, 0, fmt.Errorf("%w: %s analyzes %q with %q, not %q, made by an older deltaq: rebuild the index (deltaq index rebuild)", errIncompatible, dir, FieldText, a, AnalyzerName)
		}
		if !titlePositions(bi.Mapping()) {
			bi.Close()
			return nil, 0, fmt.Errorf("%w: %s keeps no word positions of %q, made by an older deltaq: rebuild the index (deltaq index rebuild)", errIncompatible, dir, FieldTitle)
		}
		v, err := bi.GetInternal(generationKey)
		if err != nil || len(v) != 8 {
			bi.Close()
			return nil, 0, fmt.Errorf("%w: %s has no index generation (%v): rebuild the index", errIncompatible, dir, err)
		}
		return bi, binary.BigEndian.Uint64(v), nil
	case errors.Is(err, bleve.ErrorIndexPathDoesNotExist) || emptyDir(dir):
		if err := os.RemoveAll(dir); err != nil {
			return nil, 0, fmt.Errorf("index: %w", err)
		}
		return createBleve(dir, s, mergeOnlyOnCompact)
	case errors.Is(err, bleve.ErrorIndexMetaMissing) && notDir(dir):
		// Bleve reads a file's index_meta.json as missing metadata; a
		// file is no copy cut short, and it may be anyone's: kept.
		return nil, 0, fmt.Errorf("index: open %s: is a file, not a directory: the index is a directory deltaq makes; move it away (it is no index) and run deltaq index rebuild, which makes the index there from the repository", dir)
	case errors.Is(err, bleve.ErrorIndexMetaMissing):
		// A new index gets its metadata first, a copy (a backup) last:
		// without it the directory is a copy cut short, or no index of
		// ours at all, so it is not removed here; the user can tell.
		return nil, 0, fmt.Errorf("index: open %s: %w: it holds no complete index (a copy or backup cut short leaves one so); if it is this repository's index, remove %s and run deltaq index rebuild, which makes it again from the repository", dir, err, dir)
	default:
		return nil, 0, fmt.Errorf("%w: open %s: %w", ErrDamaged, dir, err)
	}
}

// openBleveUsing is bleve.OpenUsing, with a panic while opening turned
// into an error (which openBleve reports as ErrDamaged): zapx reads a
// segment file shorter than its footer out of bounds, and a full disk or a
// copy cut short leaves such files.
func openBleveUsing(dir string, config map[string]any) (bi bleve.Index, err error) {
	defer func() {
		if p := recover(); p != nil {
			bi, err = nil, fmt.Errorf("a file could not be read (%v)", p)
		}
	}()
	return bleve.OpenUsing(dir, config)
}

// createBleve creates a Bleve index with a fresh generation.
func createBleve(dir string, s Scoring, mergeOnlyOnCompact bool) (bleve.Index, uint64, error) {
	m, err := NewMapping(s)
	if err != nil {
		return nil, 0, err
	}
	bi, err := bleve.NewUsing(dir, m, scorch.Name, scorch.Name, scorchConfig(mergeOnlyOnCompact))
	if err != nil {
		return nil, 0, fmt.Errorf("index: create %s: %w", dir, err)
	}
	var g [8]byte
	if _, err := rand.Read(g[:]); err != nil {
		bi.Close()
		return nil, 0, fmt.Errorf("index: generation: %w", err)
	}
	b := bi.NewBatch()
	b.SetInternal(generationKey, g[:])
	putApplied(b, 0)
	if err := applyBleveWait(context.Background(), bi, b); err != nil {
		bi.Close()
		return nil, 0, fmt.Errorf("index: store generation: %w", err)
	}
	return bi, binary.BigEndian.Uint64(g[:]), nil
}

// scorchConfig is the Bleve runtime configuration: Batch returns once a
// batch is searchable, without waiting for it to reach the disk
// (unsafe_batch); applyBleve's wait function waits for that. The ΔQ_A
// measurement runs in between, overlapping Bleve's write and fsync (§4.6.3).
// With mergeOnlyOnCompact no segment is small enough for the merge planner
// (MaxSegmentSize 1), so only Compact's forced merge merges. Each open gets
// its own map: Bleve writes the index path into it.
func scorchConfig(mergeOnlyOnCompact bool) map[string]any {
	c := map[string]any{"unsafe_batch": true, "asyncErrorCallbackName": asyncErrors}
	if mergeOnlyOnCompact {
		c["scorchMergePlanOptions"] = map[string]any{"MaxSegmentSize": 1}
	}
	if keptSnapshots > 0 {
		c["numSnapshotsToKeep"] = keptSnapshots
	}
	return c
}

// keptSnapshots, when above 0, is how many snapshots Bleve keeps on disk
// beside the newest (by default one, and only until its cleanup runs). A
// test sets it so that an older snapshot is there to open when the newest
// is damaged.
var keptSnapshots int

// applyBleve applies b and returns a function that blocks until Bleve has
// persisted it (or ctx is done, or Bleve reports that it failed to write
// to disk). Nothing that depends on the batch being durable — the
// watermark above all — may be committed before it returns.
func applyBleve(bi bleve.Index, b *bleve.Batch) (func(context.Context) error, error) {
	start := time.Now()
	done := make(chan error, 1)
	b.SetPersistedCallback(func(err error) {
		select {
		case done <- err:
		default:
		}
	})
	if err := bi.Batch(b); err != nil {
		return nil, err
	}
	return func(ctx context.Context) error {
		tick := time.NewTicker(persistCheck)
		defer tick.Stop()
		for {
			select {
			case err := <-done:
				return err
			case <-ctx.Done():
				return ctx.Err()
			case <-tick.C:
				if err := failedSince(bi, start); err != nil {
					return fmt.Errorf("cannot write the index to disk (Bleve retries until it can): %w", err)
				}
			}
		}
	}, nil
}

// persistCheck is how often a wait for a batch to reach the disk looks for
// Bleve's report that it cannot.
const persistCheck = 250 * time.Millisecond

// applyBleveWait is applyBleve for a batch with nothing to do while Bleve
// writes it: it returns once the batch is on disk.
func applyBleveWait(ctx context.Context, bi bleve.Index, b *bleve.Batch) error {
	persisted, err := applyBleve(bi, b)
	if err != nil {
		return err
	}
	return persisted(ctx)
}

// notDir reports whether path is there and is no directory.
func notDir(path string) bool {
	st, err := os.Stat(path)
	return err == nil && !st.IsDir()
}

func emptyDir(dir string) bool {
	ents, err := os.ReadDir(dir)
	return err == nil && len(ents) == 0 || errors.Is(err, fs.ErrNotExist)
}

func readWatermark(db *repo.DB) (gen, seq uint64, err error) {
	v, err := db.Meta(watermarkKey)
	if errors.Is(err, repo.ErrNotFound) {
		return 0, 0, nil
	}
	if err != nil {
		return 0, 0, fmt.Errorf("index: read watermark: %w", err)
	}
	if len(v) != 17 || v[0] != 1 {
		return 0, 0, fmt.Errorf("index: watermark of %d bytes: corrupt", len(v))
	}
	return binary.BigEndian.Uint64(v[1:9]), binary.BigEndian.Uint64(v[9:17]), nil
}

func encodeWatermark(gen, seq uint64) []byte {
	b := make([]byte, 1, 17)
	b[0] = 1
	b = binary.BigEndian.AppendUint64(b, gen)
	return binary.BigEndian.AppendUint64(b, seq)
}

func (ix *Index) setBleve(bi bleve.Index) {
	ix.mu.Lock()
	defer ix.mu.Unlock()
	ix.setBleveLocked(bi)
}

func (ix *Index) setBleveLocked(bi bleve.Index) {
	// Segment ids start again in another Bleve index: nothing of the
	// last snapText may be carried into its snapshots' (snapbuild.go).
	ix.texts.reset()
	ix.mu.bi = bi
	ix.mu.analyzer = bi.Mapping().AnalyzerNamed(AnalyzerName)
}

func (ix *Index) bleve() bleve.Index {
	ix.mu.RLock()
	defer ix.mu.RUnlock()
	return ix.mu.bi
}

// Close closes the Bleve index. The repository stays open (its owner closes it).
func (ix *Index) Close() error {
	ix.apply.Lock()
	defer ix.apply.Unlock()
	ix.mu.Lock()
	defer ix.mu.Unlock()
	if ix.mu.bi == nil {
		return nil
	}
	ix.texts.reset() // its snapshot, before the index it belongs to
	err := ix.mu.bi.Close()
	ix.mu.bi = nil
	if err != nil {
		return fmt.Errorf("index: close: %w", err)
	}
	return nil
}

// Mapping returns the index mapping (stored in the index); nil after Close.
func (ix *Index) Mapping() mapping.IndexMapping {
	bi := ix.bleve()
	if bi == nil {
		return nil
	}
	return bi.Mapping()
}

// Analyzer returns the analyzer of FieldText, the one queries and the
// workload are split with.
func (ix *Index) Analyzer() analysis.Analyzer {
	ix.mu.RLock()
	defer ix.mu.RUnlock()
	return ix.mu.analyzer
}

// Scoring returns the index's scoring model.
func (ix *Index) Scoring() Scoring { return ix.cfg.Scoring }

// Count returns the number of documents in the index.
func (ix *Index) Count() (uint64, error) {
	ix.mu.RLock()
	defer ix.mu.RUnlock()
	if ix.mu.bi == nil {
		return 0, ErrClosed
	}
	n, err := ix.mu.bi.DocCount()
	if err != nil {
		return 0, fmt.Errorf("index: count: %w", err)
	}
	return n, nil
}

// Watermark returns the last change-feed sequence applied.
func (ix *Index) Watermark() uint64 { return ix.watermark.Load() }

// Lag is the number of change-feed entries not yet applied.
func (ix *Index) Lag() uint64 {
	last, wm := ix.db.LastChangeSeq(), ix.watermark.Load()
	if last < wm {
		return 0
	}
	return last - wm
}

// SetWorkload replaces the workload Q (and so Q′) the measurement uses; it
// may be called while the index runs. Histograms are rebuilt for the new
// terms before the next measured batch. Snapshots written for the old
// workload are detected by fingerprint and re-derived (snapshot.go).
func (ix *Index) SetWorkload(qs []querylog.Query) *Workload {
	w := NewWorkload(qs, ix.Analyzer(), ix.cfg.WorkloadMaxTerms)
	ix.workload.Store(w)
	ix.histStale.Store(true)
	ix.logger.Info("workload loaded", "queries", len(qs), "terms", w.Len())
	return w
}

// Workload returns the current single-term workload Q′ (nil if none).
func (ix *Index) Workload() *Workload { return ix.workload.Load() }

// Histogram returns H_q for a term of Q′ as last built; a term with no
// results has an empty histogram.
func (ix *Index) Histogram(term string) Histogram { return ix.hists.Load().get(term) }

// HistogramBytes is the memory the histograms take, approximately.
func (ix *Index) HistogramBytes() int { return ix.hists.Load().bytes() }
