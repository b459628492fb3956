package watch

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/klauspost/compress/zstd"

	"github.com/deltaq/deltaq/crawler/extract"
	"github.com/deltaq/deltaq/diff"
	"github.com/deltaq/deltaq/notify"
	"github.com/deltaq/deltaq/repo"
)

// Options are an Engine's collaborators.
type Options struct {
	Logger *slog.Logger // nil discards
	// Clock tells the time; nil is time.Now.
	Clock   func() time.Time
	Fetcher Fetcher
	// Ungrouped gives every sentinel its own group: its own fetch, MD5
	// check, copy and diff. It exists to measure what grouping saves
	// (WebCQ §7.3); nothing else should set it.
	Ungrouped bool
}

// Engine installs sentinels and checks their pages.
type Engine struct {
	db        *repo.DB
	cfg       Config
	outbox    *notify.Outbox
	fetcher   Fetcher
	now       func() time.Time
	logger    *slog.Logger
	ungrouped bool
	enc       *zstd.Encoder
	dec       *zstd.Decoder
	// mu serializes the read-modify-write of group and sentinel records.
	mu sync.Mutex
	// buf is the scratch a check encodes records into (under mu); the
	// batch copies what it is given.
	buf []byte
	// checked is the time of each group's last check that found its page
	// unchanged (under mu). Such a check writes nothing: it costs the read
	// of the page's MD5 alone, where a commit would cost seven times the
	// check. A check that finds a change stores the group's LastCheck, and
	// Close stores the rest.
	checked map[string]time.Time
	// installs counts the installs and removals (Installs).
	installs atomic.Uint64
	stats    struct {
		checks, unchanged, changed, fired, bytesRead atomic.Int64
	}
}

// New returns an engine over db that enqueues notifications in outbox.
func New(db *repo.DB, cfg Config, outbox *notify.Outbox, opts Options) (*Engine, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	if opts.Fetcher == nil {
		return nil, errors.New("watch: Options.Fetcher is nil")
	}
	enc, err := zstd.NewWriter(nil, zstd.WithEncoderLevel(zstd.SpeedFastest))
	if err != nil {
		return nil, fmt.Errorf("watch: zstd: %w", err)
	}
	dec, err := zstd.NewReader(nil, zstd.WithDecoderMaxMemory(uint64(cfg.MaxBodyBytes)+1))
	if err != nil {
		return nil, fmt.Errorf("watch: zstd: %w", err)
	}
	e := &Engine{db: db, cfg: cfg, outbox: outbox, fetcher: opts.Fetcher, now: opts.Clock, logger: opts.Logger, ungrouped: opts.Ungrouped, enc: enc, dec: dec,
		checked: map[string]time.Time{}}
	if e.now == nil {
		e.now = time.Now
	}
	if e.logger == nil {
		e.logger = slog.New(slog.DiscardHandler)
	}
	e.logger = e.logger.With("component", "watch")
	// New takes no context (its callers are many); the move runs once,
	// over the groups an older repository stored.
	if n, err := e.migrateGroups(context.Background()); err != nil {
		return nil, err
	} else if n > 0 {
		e.logger.Info("moved groups to one key per member", "n", n)
	}
	if n, err := e.indexUsers(context.Background()); err != nil {
		return nil, err
	} else if n > 0 {
		e.logger.Info("listed the sentinels under their users", "n", n)
	}
	return e, nil
}

// Config returns the engine's configuration.
func (e *Engine) Config() Config { return e.cfg }

// Close stores the times of the checks that found their page unchanged
// (saveChecked) and releases the codecs.
func (e *Engine) Close() error {
	err := e.saveChecked(context.Background())
	e.enc.Close()
	e.dec.Close()
	return err
}

// saveChecked writes the time of each unchanged check kept in memory into
// its group's LastCheck, in one batch: a restart then does not take those
// pages as overdue. Only a crash loses them.
func (e *Engine) saveChecked(ctx context.Context) error {
	e.mu.Lock()
	defer e.mu.Unlock()
	if len(e.checked) == 0 {
		return nil
	}
	b := e.db.NewBatch(ctx)
	defer b.Close()
	r := &reader{db: e.db}
	for key, at := range e.checked {
		var g group
		found, err := r.get(groupPrefix+key, &g)
		if err != nil {
			return err
		}
		if !found || !at.After(g.LastCheck) {
			continue
		}
		g.LastCheck = at
		if err := put(b, groupPrefix+key, &g); err != nil {
			return err
		}
	}
	if err := b.Commit(); err != nil {
		return fmt.Errorf("watch: save the unchanged checks' times: %w", err)
	}
	clear(e.checked)
	return nil
}

// Stats are counters since New.
type Stats struct {
	Checks    int64 // group checks
	Unchanged int64 // checks stopped by the MD5 (WebCQ §6.1.2 step 3)
	Changed   int64 // table objects found changed
	Fired     int64 // sentinel triggers that held
	BytesRead int64 // bytes read from the repository by checks
}

// Stats returns the counters.
func (e *Engine) Stats() Stats {
	return Stats{Checks: e.stats.checks.Load(), Unchanged: e.stats.unchanged.Load(), Changed: e.stats.changed.Load(),
		Fired: e.stats.fired.Load(), BytesRead: e.stats.bytesRead.Load()}
}

func (e *Engine) groupKey(url, id string) string {
	if e.ungrouped {
		return "sentinel:" + id
	}
	return url
}

// ErrInvalid marks a spec that cannot be installed as given: a bad field,
// or a page that cannot be fetched or is not a page (ErrNotPage). The
// message names the field.
var ErrInvalid = errors.New("watch: invalid sentinel")

// ErrObjectNotFound is returned when a sentinel's object is not on its page
// at install.
var ErrObjectNotFound = errors.New("watch: object not found on the page")

// Install validates spec and installs it (WebCQ §6.1.1): a page not yet
// watched is fetched and its copy kept; a sentinel joins the constant
// table of its type and object, or starts one from the kept copy.
func (e *Engine) Install(ctx context.Context, spec Spec) (*Sentinel, error) {
	now := e.now()
	if err := spec.validate(e.cfg, now); err != nil {
		return nil, fmt.Errorf("%w: %w", ErrInvalid, err)
	}
	// A page not yet watched is fetched before the engine's lock is
	// taken, as checks fetch theirs: a slow site must not hold every
	// other install, check and listing for as long as it takes to
	// answer. A group that was there when looked at and is gone under the
	// lock (removed in between) sends the install round once more.
	for attempt := 0; ; attempt++ {
		fetch := e.ungrouped // a group of its own: always new
		if !fetch {
			found, err := (&reader{db: e.db}).get(groupPrefix+spec.URL, &group{})
			if err != nil {
				return nil, err
			}
			fetch = !found
		}
		var f *Fetched
		if fetch {
			got, err := e.fetch(ctx, spec.URL)
			if err != nil {
				return nil, fmt.Errorf("%w: %w", ErrInvalid, e.unfetchable(spec.URL, err))
			}
			f = &got
		}
		s, err := e.install(ctx, spec, now, f)
		if !errors.Is(err, errGroupGone) || attempt > 0 {
			return s, err
		}
	}
}

// errGroupGone: a group Install found before taking the engine's lock
// was removed before install took it.
var errGroupGone = errors.New("watch: the page's group was removed during the install; try again")

// install is Install under the engine's lock; f is the page fetched for
// a group that was not there (nil if it was).
func (e *Engine) install(ctx context.Context, spec Spec, now time.Time, f *Fetched) (*Sentinel, error) {
	e.mu.Lock()
	defer e.mu.Unlock()
	r := &reader{db: e.db}
	var seq uint64
	if _, err := r.get(seqKey, &seq); err != nil {
		return nil, err
	}
	seq++
	s := &Sentinel{ID: "w" + strconv.FormatUint(seq, 10), Spec: spec, Record: Record{Installed: now}}
	key := e.groupKey(spec.URL, s.ID)
	g := &group{Key: key, URL: spec.URL}
	found, err := r.get(groupPrefix+key, g)
	if err != nil {
		return nil, err
	}
	b := e.db.NewBatch(ctx)
	defer b.Close()
	var p *page
	if !found {
		if f == nil {
			return nil, errGroupGone
		}
		if p, err = newPage(spec.URL, f.Body, f.ContentType, e.cfg.Extract); err != nil {
			return nil, fmt.Errorf("%w: %w", ErrInvalid, err)
		}
		g.LastCheck = now
		if err := e.putCopy(b, key, p.md5(), f.Body); err != nil {
			return nil, err
		}
		if err := put(b, groupPrefix+key, g); err != nil {
			return nil, err
		}
	}
	// Only what is new is written: the member key, and the table when it
	// is the first of its type and object; never the group's other
	// members, so an install costs the same on a page of 5 or 5,000.
	_, tid, found, err := r.loadTable(key, &s.Spec)
	if err != nil {
		return nil, err
	}
	if !found {
		if p == nil {
			if p, err = e.loadCopy(r, g); err != nil {
				return nil, err
			}
		}
		obj, err := p.extract(&s.Spec, nil, e.cfg)
		if err != nil {
			return nil, err
		}
		if cut := p.textCut(&s.Spec); cut != nil {
			return nil, fmt.Errorf("%w: %w", ErrInvalid, cut)
		}
		if !obj.Located {
			return nil, fmt.Errorf("%w: %s sentinel, select %q, object %q on %s", ErrObjectNotFound, spec.Type, spec.Selector, spec.Object, spec.URL)
		}
		if err := put(b, tableKey(key, tid), &table{Spec: s.Spec, Object: obj}); err != nil {
			return nil, err
		}
		if s.Spec.diffsPage() {
			if err := e.putKeptText(b, key, p); err != nil {
				return nil, err
			}
		}
	}
	for k, v := range map[string]any{seqKey: seq, membersOf(key, tid) + s.ID: &member{ID: s.ID, Every: spec.Every}, sentinelPrefix + s.ID: s} {
		if err := put(b, k, v); err != nil {
			return nil, err
		}
	}
	if err := b.PutBucket(bucket, userKey(s.User, s.ID), nil); err != nil {
		return nil, err
	}
	if err := b.Commit(); err != nil {
		return nil, fmt.Errorf("watch: install on %s: %w", spec.URL, err)
	}
	e.installs.Add(1)
	return s, nil
}

// Installs counts the installs and removals since New, so that a
// scheduler that reads the groups now and then knows when to read them
// again.
func (e *Engine) Installs() uint64 { return e.installs.Load() }

func (e *Engine) fetch(ctx context.Context, url string) (Fetched, error) {
	f, err := e.fetcher.Fetch(ctx, url)
	if err != nil {
		return f, err
	}
	return f, statusOK(url, f)
}

// unfetchable is the refusal of a URL whose page the install could not
// fetch. A failed lookup is told without the resolver's address, which
// is the server's business, not the user's.
func (e *Engine) unfetchable(url string, err error) error {
	var de *net.DNSError
	if errors.As(err, &de) {
		err = fmt.Errorf("lookup %s: %s", de.Name, de.Err)
	}
	return &FieldError{Field: "url", Value: url, Err: err,
		Limit: fmt.Sprintf("a page that answers 200 with HTML or text within watch.fetch_timeout (%v)", e.cfg.FetchTimeout)}
}

// statusOK accepts only a 200 of an HTML or text page: any other answer
// is no copy of the page, and its check a failed one, not a change.
func statusOK(url string, f Fetched) error {
	if f.Status != 200 {
		return &StatusError{URL: url, Status: f.Status}
	}
	return pageType(url, f.ContentType)
}

// loadCopy reads and parses a group's kept copy (WebCQ §6.1.2 step 4).
func (e *Engine) loadCopy(r *reader, g *group) (*page, error) {
	z, err := e.db.Bucket(bucket, copyPrefix+g.Key)
	if err != nil {
		return nil, fmt.Errorf("watch: copy of %s: %w", g.URL, err)
	}
	r.bytes += int64(len(z))
	body, err := e.dec.DecodeAll(z, nil)
	if err != nil {
		return nil, fmt.Errorf("watch: copy of %s: %w", g.URL, err)
	}
	return newPage(g.URL, body, "", e.cfg.Extract)
}

// keptPage is the kept copy as the page diff reads it: text and links
// from x/KEY when they are the copy's whose MD5 is sum, else the copy
// parsed.
func (e *Engine) keptPage(r *reader, g *group, sum string) (*page, error) {
	var kt keptText
	found, err := r.get(textPrefix+g.Key, &kt)
	if err != nil {
		return nil, err
	}
	if !found || kt.Sum != sum {
		return e.loadCopy(r, g)
	}
	return &page{doc: &extract.Document{Text: kt.Text}, anchors: kt.Anchors}, nil
}

// putKeptText stores p's text and links beside p, the copy kept under key.
func (e *Engine) putKeptText(b *repo.Batch, key string, p *page) error {
	return e.putRecord(b, textPrefix+key, &keptText{Sum: p.md5(), Text: p.doc.Text, Anchors: anchors(p)})
}

// CheckResult says what one group check found.
type CheckResult struct {
	Key, URL  string
	Unchanged bool // the MD5 matched; nothing else was read
	Changed   int  // tables whose object changed
	Fired     int  // sentinels whose trigger held
	BytesRead int64
	// TextCut is set when a table reads the page's words and the page's
	// text was cut at watch.extract.max_text_bytes; such tables were not
	// compared (their words past the cut would look removed).
	TextCut *TextCutError
}

// Check runs every sentinel of the group key on one fetch (WebCQ §6.1.2):
// fetch; load the group; stop if the MD5 is unchanged; then per constant
// table extract the object, compare it with the cached one and evaluate
// each member's trigger. The kept text is loaded and the page diffed once,
// when the first table that compares whole pages needs it. Everything
// it records — objects, sentinels, history, the new copy and the
// notifications — is one repository batch. A check that gets no copy of
// the page (no answer, an error status, not a page) returns the error and
// keeps it in the failure history of the group's sentinels (Failures).
func (e *Engine) Check(ctx context.Context, key string) (CheckResult, error) {
	res := CheckResult{Key: key}
	url, err := e.groupURL(key)
	if err != nil {
		return res, err
	}
	res.URL = url
	f, err := e.fetch(ctx, url)
	if err != nil {
		return res, e.failed(ctx, key, err)
	}
	return e.checkCopy(ctx, res, f)
}

// CheckFetched is Check on a copy fetched by someone else: the crawler,
// when the frontier's monitoring class polled the group's page.
func (e *Engine) CheckFetched(ctx context.Context, key string, f Fetched) (CheckResult, error) {
	res := CheckResult{Key: key}
	url, err := e.groupURL(key)
	if err != nil {
		return res, err
	}
	res.URL = url
	if err := statusOK(url, f); err != nil {
		return res, e.failed(ctx, key, err)
	}
	return e.checkCopy(ctx, res, f)
}

// groupURL is the page a group key watches.
func (e *Engine) groupURL(key string) (string, error) {
	if !e.ungrouped {
		return key, nil
	}
	e.mu.Lock()
	defer e.mu.Unlock()
	var g group
	if _, err := (&reader{db: e.db}).get(groupPrefix+key, &g); err != nil {
		return "", err
	}
	return g.URL, nil
}

// checkCopy runs a group's check on its page's fetched copy f. It holds
// e.mu from the MD5 read to the commit: the check is one read-modify-write
// of the group's records.
// The result is named so that the deferred count reaches every return.
func (e *Engine) checkCopy(ctx context.Context, res CheckResult, f Fetched) (out CheckResult, _ error) {
	key, url := res.Key, res.URL
	now := e.now()
	e.mu.Lock()
	defer e.mu.Unlock()
	e.stats.checks.Add(1)
	r := &reader{db: e.db}
	defer func() {
		out.BytesRead = r.bytes
		e.stats.bytesRead.Add(r.bytes)
	}()
	sum := md5Hex(f.Body)
	kept, err := e.db.Bucket(bucket, sumPrefix+key)
	if errors.Is(err, repo.ErrNotFound) {
		return res, nil // removed since it was scheduled
	}
	if err != nil {
		return res, fmt.Errorf("watch: read MD5 of %s: %w", url, err)
	}
	r.bytes += int64(len(kept))
	if string(kept) == sum {
		res.Unchanged = true
		e.stats.unchanged.Add(1)
		e.checked[key] = now
		return res, nil
	}
	var g group
	if _, err := r.get(groupPrefix+key, &g); err != nil {
		return res, err
	}
	cur, err := newPage(url, f.Body, f.ContentType, e.cfg.Extract)
	if err != nil {
		return res, e.failedLocked(ctx, key, failureKind(err, FailParse), err)
	}
	cur.sum = sum
	b := e.db.NewBatch(ctx)
	defer b.Close()
	found, err := e.compareTables(ctx, b, r, &res, cur, now, e.pageDiffOnce(r, &g, kept, cur))
	if err != nil {
		return res, err
	}
	if err := e.recordTables(ctx, b, r, &res, &found, now); err != nil {
		return res, err
	}
	g.LastCheck = now
	if err := put(b, groupPrefix+key, &g); err != nil {
		return res, err
	}
	if err := e.putCopy(b, key, sum, f.Body); err != nil {
		return res, err
	}
	if found.keepText {
		if err := e.putKeptText(b, key, cur); err != nil {
			return res, err
		}
	}
	if err := b.Commit(); err != nil {
		return res, fmt.Errorf("watch: check %s: %w", url, err)
	}
	delete(e.checked, key) // the group's LastCheck says it now
	return res, nil
}

// pageDiffOnce returns the page diff as compare asks for it: one per
// check, made when the first unscoped any-change table needs it and kept
// for the rest. Only that diff reads the kept copy's text, so a page
// watched for keywords or a table never decodes it. kept is the kept
// copy's MD5, which says whether the text stored beside it is its own.
func (e *Engine) pageDiffOnce(r *reader, g *group, kept []byte, cur *page) func() (*diff.Result, error) {
	var pageDiff *diff.Result
	return func() (*diff.Result, error) {
		if pageDiff == nil {
			old, err := e.keptPage(r, g, string(kept))
			if err != nil {
				return nil, err
			}
			d := diff.TextWordsChanges(old.doc.Text, cur.doc.Text, old.textWords(), cur.textWords(), e.cfg.Diff)
			d.Links = diff.Sets(anchors(old), anchors(cur))
			pageDiff = &d
		}
		return pageDiff, nil
	}
}

// tableScan is what a check's pass over its group's tables leaves for
// the writes after it.
type tableScan struct {
	// The changes of the tables whose object changed, by table id; their
	// members are read afterwards in one scan of the group's members.
	changes  map[string]*tableChange
	cut      map[string]bool // the tables not compared: their text was cut
	keepText bool            // the next check's page diff will want cur's text
}

// compareTables extracts each of the group's tables' objects from cur
// and compares it with the cached one (WebCQ §3.2–3.3), counting the
// changes in res. Only a table whose object or phrase box differs is
// rewritten in b, so that a check writes nothing for the tables a change
// did not touch. A table whose words were cut is not compared, so that
// the words past the cut do not look removed. The caller holds e.mu.
func (e *Engine) compareTables(ctx context.Context, b *repo.Batch, r *reader, res *CheckResult, cur *page, now time.Time, pageLevel func() (*diff.Result, error)) (tableScan, error) {
	found := tableScan{changes: map[string]*tableChange{}, cut: map[string]bool{}}
	tables := tablePrefix + res.Key + "\x00"
	err := scan(ctx, r, tables, func(k string, t *table) error {
		found.keepText = found.keepText || t.Spec.diffsPage()
		if tc := cur.textCut(&t.Spec); tc != nil {
			// Words past the cut are not seen: comparing would report
			// them gone. The table keeps its object until the page fits.
			res.TextCut = tc
			found.cut[strings.TrimPrefix(k, tables)] = true
			return nil
		}
		obj, err := cur.extract(&t.Spec, &t.Object, e.cfg)
		if err != nil {
			return err
		}
		if t.Object.equal(&obj, t.Spec.Type) {
			if t.Object.Box.equal(obj.Box) {
				return nil // the stored table is already this
			}
			t.Object = obj // a phrase's box follows its surroundings
			return e.putRecord(b, k, t)
		}
		c, err := compare(&t.Spec, &t.Object, &obj, pageLevel, e.cfg.Diff)
		if err != nil {
			return err
		}
		c.At, c.URL = now, res.URL
		t.Object = obj
		res.Changed++
		e.stats.changed.Add(1)
		found.changes[strings.TrimPrefix(k, tables)] = &tableChange{c: c, shared: c.appendShared([]byte{formatV1})}
		return e.putRecord(b, k, t)
	})
	return found, err
}

// recordTables passes what compareTables found on to the tables'
// members, in b: a changed table's members have their triggers evaluated
// (counted in res.Fired), and a cut table's members keep the cut in their
// failure history, since their sentinels were not checked. The caller
// holds e.mu.
func (e *Engine) recordTables(ctx context.Context, b *repo.Batch, r *reader, res *CheckResult, found *tableScan, now time.Time) error {
	if len(found.changes) > 0 {
		var err error
		if res.Fired, err = e.evaluateMembers(ctx, b, r, res.Key, found.changes, now); err != nil {
			return err
		}
	}
	e.stats.fired.Add(int64(res.Fired))
	if res.TextCut != nil {
		// The page was read, but not these tables. A check that finds
		// the page unchanged in between does not end the run: it
		// compared nothing.
		f := Failure{First: now, Last: now, Count: 1, Kind: FailTextCut, Error: failureText(res.TextCut)}
		if _, err := e.putFailures(ctx, b, r, res.Key, found.cut, f, time.Time{}); err != nil {
			return err
		}
	}
	return nil
}

// LastChecked is when the page of each of ss was last checked, by
// sentinel ID, whatever the check found: its install's fetch, or a later
// check. Sentinels on one page share its group, read once. After a
// crash, the checks that found the page unchanged since the engine was
// last closed are forgotten (they wrote nothing), and the one before them
// is reported.
func (e *Engine) LastChecked(ss ...*Sentinel) (map[string]time.Time, error) {
	out := make(map[string]time.Time, len(ss))
	byGroup := map[string]time.Time{}
	r := &reader{db: e.db}
	e.mu.Lock()
	defer e.mu.Unlock()
	for _, s := range ss {
		key := e.groupKey(s.URL, s.ID)
		t, ok := byGroup[key]
		if !ok {
			var err error
			if t, err = e.groupChecked(r, key); err != nil {
				return nil, err
			}
			byGroup[key] = t
		}
		out[s.ID] = t
	}
	return out, nil
}

// groupChecked is when the group key was last checked: as this process
// remembers it, else as stored. The caller holds e.mu.
func (e *Engine) groupChecked(r *reader, key string) (time.Time, error) {
	if t, ok := e.checked[key]; ok {
		return t, nil
	}
	var g group
	if _, err := r.get(groupPrefix+key, &g); err != nil {
		return time.Time{}, err
	}
	return g.LastCheck, nil
}

// putCopy keeps a group's new copy and its MD5.
func (e *Engine) putCopy(b *repo.Batch, key, sum string, body []byte) error {
	if err := b.PutBucket(bucket, copyPrefix+key, e.enc.EncodeAll(body, nil)); err != nil {
		return err
	}
	return b.PutBucket(bucket, sumPrefix+key, []byte(sum))
}

func anchors(p *page) []string { return p.links(scope{}) }

// putRecord writes v in the binary form through the engine's scratch
// buffer; the caller holds e.mu.
func (e *Engine) putRecord(b *repo.Batch, key string, v record) error {
	e.buf = v.appendRecord(append(e.buf[:0], formatV1))
	return b.PutBucket(bucket, key, e.buf)
}

// tableChange is a table's change, with the encoding of the part of its
// history entry every member shares (Change.appendShared), made once.
type tableChange struct {
	c      Change
	shared []byte
}

// evaluateMembers applies each changed table's change to the table's
// members, read in one scan of the group's members in key order (table,
// then sentinel), the order the tables were checked in. Members of
// unchanged tables are passed over undecoded.
func (e *Engine) evaluateMembers(ctx context.Context, b *repo.Batch, r *reader, group string, changes map[string]*tableChange, now time.Time) (int, error) {
	prefix := memberPrefix + group + "\x00"
	fired := 0
	for kv, err := range r.db.BucketScan(ctx, bucket, prefix) {
		if err != nil {
			return fired, err
		}
		r.bytes += int64(len(kv[1]))
		tid, _, _ := bytes.Cut(kv[0][len(prefix):], []byte{0})
		c, ok := changes[string(tid)]
		if !ok {
			continue
		}
		var m member
		if err := decodeValue(string(kv[0]), kv[1], &m); err != nil {
			return fired, err
		}
		hit, err := e.evaluate(b, r, m.ID, c, now)
		if err != nil {
			return fired, err
		}
		if hit {
			fired++
		}
	}
	return fired, nil
}

// evaluate applies one change to one sentinel: trigger, then the
// notification condition; it writes the sentinel, its history entry and
// any notification into b.
func (e *Engine) evaluate(b *repo.Batch, r *reader, id string, tc *tableChange, now time.Time) (bool, error) {
	c := tc.c
	var s Sentinel
	ok, err := r.get(sentinelPrefix+id, &s)
	if err != nil || !ok || !s.active(now) {
		return false, err
	}
	s.Evaluations++
	s.LastEval = now
	c.Fired = s.fires(&c)
	if c.Fired {
		switch s.Mode {
		case Digest:
			s.Pending = append(s.Pending, c)
			if over := len(s.Pending) - e.cfg.DigestKept; over > 0 {
				s.Pending = s.Pending[over:]
				s.PendingDropped += over
			}
			if s.NextDigest.IsZero() {
				s.NextDigest = now.Add(s.Period)
			}
		default:
			n := e.notification(&s, []Change{c}, now, "")
			c.Notification = n.ID
			if err := e.send(b, &s, n, now); err != nil {
				return false, err
			}
		}
	}
	if err := e.flushDigest(b, &s, now); err != nil {
		return false, err
	}
	// History keys count the sentinel's changes, so the one to drop is known.
	e.buf = c.appendTail(append(e.buf[:0], tc.shared...))
	if err := b.PutBucket(bucket, historyKey(s.ID, s.Changes), e.buf); err != nil {
		return false, err
	}
	if old := s.Changes - e.cfg.HistoryKept; old > 0 {
		if err := b.DeleteBucket(bucket, historyKey(s.ID, old)); err != nil {
			return false, err
		}
	}
	return c.Fired, e.putRecord(b, sentinelPrefix+s.ID, &s)
}

// historyKey is h/ID/N, N in 16 hex digits so that keys sort by N. It
// is made for every sentinel on a changed page, so without fmt.
func historyKey(id string, n int) string {
	if n < 0 {
		return fmt.Sprintf("%s%s/%016x", historyPrefix, id, n)
	}
	var b strings.Builder
	b.Grow(len(historyPrefix) + len(id) + 1 + 16)
	b.WriteString(historyPrefix)
	b.WriteString(id)
	b.WriteByte('/')
	for shift := 60; shift >= 0; shift -= 4 {
		b.WriteByte("0123456789abcdef"[n>>shift&15])
	}
	return b.String()
}

// flushDigest sends a due periodic digest (WebCQ §5: notification
// condition = n × trigger interval).
func (e *Engine) flushDigest(b *repo.Batch, s *Sentinel, now time.Time) error {
	if s.Mode != Digest || len(s.Pending) == 0 || now.Before(s.NextDigest) {
		return nil
	}
	n := e.notification(s, s.Pending, now, "d")
	s.Pending, s.PendingDropped = nil, 0
	s.NextDigest = now.Add(s.Period)
	return e.send(b, s, n, now)
}

func (e *Engine) send(b *repo.Batch, s *Sentinel, n *notify.Notification, now time.Time) error {
	s.Notifications++
	s.LastNotified = now
	if e.outbox == nil {
		return nil
	}
	return e.outbox.Enqueue(b, n)
}

// notificationID is PREFIX ID-NANOS, the check time in hex nanoseconds,
// what fmt's "%s%s-%x" makes of them.
func notificationID(prefix, id string, now time.Time) string {
	ns := now.UnixNano()
	if ns < 0 {
		return fmt.Sprintf("%s%s-%x", prefix, id, ns)
	}
	return prefix + id + "-" + strconv.FormatInt(ns, 16)
}

// notification builds the notification of one or more changes. Its ID is
// the sentinel and the check time: the same change always has the same
// idempotency key. A digest carries every change's diff (Changes), since
// changes-only diffs cannot be merged into the period's net diff; Diff
// stays the last one's for receivers that read only it.
func (e *Engine) notification(s *Sentinel, cs []Change, now time.Time, prefix string) *notify.Notification {
	last := cs[len(cs)-1]
	n := &notify.Notification{
		ID:     notificationID(prefix, s.ID, now),
		Source: "watch:" + s.ID, User: s.User, URL: s.URL, Kind: string(s.Type), Change: last.Kind, At: now,
		Title: fmt.Sprintf("%s sentinel %s: %s changed", s.Type, s.ID, s.URL),
		Diff:  last.Diff,
	}
	var sums []string
	if s.Mode == Digest {
		n.Changes = make([]notify.ChangeDiff, 0, len(cs))
	}
	for _, c := range cs {
		sum := c.summary()
		sums = append(sums, c.At.UTC().Format(time.RFC3339)+" "+sum)
		if s.Mode == Digest {
			n.Changes = append(n.Changes, notify.ChangeDiff{At: c.At, Summary: sum, Diff: c.Diff})
		}
	}
	// Pending drops its oldest changes past watch.digest_kept (evaluate),
	// which bounds a digest's body; one that lost some says how many
	// rather than pass for the whole period.
	if s.Mode == Digest && s.PendingDropped > 0 {
		n.ChangesDropped = s.PendingDropped
		sums = append(sums, fmt.Sprintf("(earlier changes of the period left out: %d; only the last %d are kept, watch.digest_kept)",
			s.PendingDropped, len(cs)))
	}
	n.Summary = strings.Join(sums, "\n")
	for _, t := range s.Notify {
		if t.Kind == notify.Feed {
			n.Feeds = append(n.Feeds, "watch:"+s.ID)
			if s.User != "" {
				n.Feeds = append(n.Feeds, "user:"+s.User)
			}
			continue
		}
		n.Targets = append(n.Targets, t)
	}
	return n
}
