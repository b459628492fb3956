package repo

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"time"

	"github.com/cockroachdb/pebble/v2"

	"github.com/deltaq/deltaq/internal/urlnorm"
)

// Batch collects writes that commit atomically and durably (synced to the
// write-ahead log) or not at all. Reads through a Batch see its own
// uncommitted writes. A Batch is used by one goroutine.
//
// The crawler commits every fetch result as one Batch: the page record, the
// new version, the fetch log line, the link graph changes, the host state,
// the frontier entries of newly found URLs and the change-feed entry.
type Batch struct {
	db      *DB
	b       *pebble.Batch
	changes []Change
	ctx     context.Context
}

// NewBatch starts a batch. ctx bounds the reads the batch makes.
func (db *DB) NewBatch(ctx context.Context) *Batch {
	return &Batch{db: db, b: db.pdb.NewIndexedBatch(), ctx: ctx}
}

// Close discards an uncommitted batch. It is safe after Commit.
func (b *Batch) Close() {
	if b.b != nil {
		b.b.Close()
		b.b = nil
	}
}

// Empty reports whether the batch holds no writes.
func (b *Batch) Empty() bool { return b.b.Empty() && len(b.changes) == 0 }

// Commit applies the batch atomically and syncs it to disk.
func (b *Batch) Commit() error {
	if b.b == nil {
		return errors.New("repo: commit of a closed batch")
	}
	defer b.Close()
	if err := b.db.checkSpace(); err != nil {
		return err
	}
	if len(b.changes) == 0 {
		if err := b.b.Commit(pebble.Sync); err != nil {
			return fmt.Errorf("repo: commit: %w", err)
		}
		return nil
	}
	b.db.commitMu.Lock()
	defer b.db.commitMu.Unlock()
	seq := b.db.nextSeq
	for i := range b.changes {
		c := &b.changes[i]
		c.Seq = seq
		if err := b.b.Set(changeKey(seq), c.encode(), nil); err != nil {
			return fmt.Errorf("repo: change feed: %w", err)
		}
		seq++
	}
	if err := b.b.Commit(pebble.Sync); err != nil {
		return fmt.Errorf("repo: commit: %w", err)
	}
	b.db.nextSeq = seq
	return nil
}

// Page reads a page record, seeing this batch's writes.
func (b *Batch) Page(url string) (Page, error) { return readPage(b.b, url) }

// Host reads a host's state, seeing this batch's writes.
func (b *Batch) Host(host string) (HostState, error) { return readHost(b.b, host) }

// PutPage writes a page record.
func (b *Batch) PutPage(p *Page) error {
	s, err := surtOf(p.URL)
	if err != nil {
		return err
	}
	return b.set(pageKey(s), p.encode(), "page "+p.URL)
}

// AddVersion stores a new version of a page and drops the oldest beyond
// repo.versions_kept.
func (b *Batch) AddVersion(url string, v *Version) error {
	return b.addVersion(url, v, true)
}

// AddFirstVersion is AddVersion for a page whose record names no version
// (Page.Version is zero), so none is stored: it skips looking for old ones
// to drop, a reverse scan that costs about as much as the write.
func (b *Batch) AddFirstVersion(url string, v *Version) error {
	return b.addVersion(url, v, false)
}

func (b *Batch) addVersion(url string, v *Version, trim bool) error {
	s, err := surtOf(url)
	if err != nil {
		return err
	}
	if err := b.set(versionKey(s, v.FetchedAt), b.db.encodeVersion(v), "version of "+url); err != nil {
		return err
	}
	if !trim {
		return nil
	}
	return b.trim(withSep(prefixVersion, s), b.db.cfg.VersionsKept, "versions of "+url)
}

// LogFetch appends to a page's fetch history and drops the oldest lines
// beyond repo.fetch_log_kept.
func (b *Batch) LogFetch(url string, r *FetchRecord) error {
	return b.logFetch(url, r, true)
}

// LogFirstFetch is LogFetch for a page whose record names no fetch
// (Page.LastFetch is zero), so its history is empty: it skips looking for
// old lines to drop.
func (b *Batch) LogFirstFetch(url string, r *FetchRecord) error {
	return b.logFetch(url, r, false)
}

func (b *Batch) logFetch(url string, r *FetchRecord, trim bool) error {
	s, err := surtOf(url)
	if err != nil {
		return err
	}
	if err := b.set(fetchLogKey(s, r.At), r.encode(), "fetch log of "+url); err != nil {
		return err
	}
	if !trim {
		return nil
	}
	return b.trim(withSep(prefixFetchLog, s), b.db.cfg.FetchLogKept, "fetch log of "+url)
}

// FetchLog reads a page's fetch history, seeing this batch's writes.
func (b *Batch) FetchLog(url string) ([]FetchRecord, error) { return fetchLog(b.ctx, b.b, url) }

// SetOutLinks replaces a page's out-links (and the matching in-links of
// their targets) with links. Duplicate targets keep the first kind.
func (b *Batch) SetOutLinks(src string, links []Link) error {
	return b.setOutLinks(src, links, true)
}

// SetFirstOutLinks is SetOutLinks for a page whose record names no fetch
// (Page.LastFetch is zero), so no out-links are stored: it writes links
// without scanning for old ones to keep or drop.
func (b *Batch) SetFirstOutLinks(src string, links []Link) error {
	return b.setOutLinks(src, links, false)
}

func (b *Batch) setOutLinks(src string, links []Link, replace bool) error {
	ss, err := surtOf(src)
	if err != nil {
		return err
	}
	want := make(map[string]LinkKind, len(links))
	for _, l := range links {
		ds, err := surtOf(l.URL)
		if err != nil {
			return err
		}
		if _, dup := want[ds]; !dup {
			want[ds] = l.Kind
		}
	}
	var stale []string
	if replace {
		p := withSep(prefixOutLink, ss)
		for e, err := range scan(b.ctx, b.b, p) {
			if err != nil {
				return fmt.Errorf("repo: scan out-links %s: %w", src, err)
			}
			ds := string(e.k[len(p):])
			if kind, keep := want[ds]; keep && len(e.v) == 1 && LinkKind(e.v[0]) == kind {
				delete(want, ds) // unchanged
				continue
			} else if !keep {
				stale = append(stale, ds)
			}
		}
	}
	for _, ds := range stale {
		if err := b.del(outLinkKey(ss, ds), "out-link"); err != nil {
			return err
		}
		if err := b.del(inLinkKey(ds, ss), "in-link"); err != nil {
			return err
		}
	}
	for ds, kind := range want {
		if err := b.set(outLinkKey(ss, ds), []byte{byte(kind)}, "out-link"); err != nil {
			return err
		}
		if err := b.set(inLinkKey(ds, ss), nil, "in-link"); err != nil {
			return err
		}
	}
	return nil
}

// OutLinks reads a page's out-links, seeing this batch's writes.
func (b *Batch) OutLinks(url string) ([]Link, error) { return outLinks(b.ctx, b.b, url) }

// PutHost writes a host's state.
func (b *Batch) PutHost(h *HostState) error {
	return b.set(hostKey(urlnorm.HostKey(h.Host)), h.encode(), "host "+h.Host)
}

// Enqueue adds an entry to the queue of the entry's host, due at due.
func (b *Batch) Enqueue(e *QueueEntry, due time.Time) (QueueItem, error) {
	k := queueKey(urlnorm.HostKey(urlnorm.Host(e.URL)), e.Reason.Class(), due, b.db.queueSeq.Add(1))
	if err := b.set(k, e.encode(), "queue entry "+e.URL); err != nil {
		return QueueItem{}, err
	}
	return QueueItem{QueueEntry: *e, Due: due, key: k}, nil
}

// Dequeue removes the queue entry with the given key (QueueItem.Key).
func (b *Batch) Dequeue(key []byte) error {
	if len(key) == 0 || key[0] != prefixQueue {
		return errors.New("repo: dequeue of a key that is not a queue key")
	}
	return b.del(key, "queue entry")
}

// AppendChange adds an entry to the change feed; its sequence number is
// assigned at commit.
func (b *Batch) AppendChange(url string, kind ChangeKind, at time.Time) {
	b.changes = append(b.changes, Change{URL: url, Kind: kind, At: at})
}

// PutDeltaQ records a ΔQ_A measurement and keeps the newest
// repo.stats_kept of them.
func (b *Batch) PutDeltaQ(url string, m *DeltaQ) error {
	return b.putStat(url, StatDeltaQ, m.At, m.encode())
}

// AddDiscoveryYield records new pages that a re-fetch of url led to,
// merged with any record of url at the same time (a chain of new pages
// yields in several fetches that may share a timestamp).
func (b *Batch) AddDiscoveryYield(url string, y *DiscoveryYield) error {
	s, err := surtOf(url)
	if err != nil {
		return err
	}
	merged := *y
	if v, err := get(b.b, statKey(s, StatDiscovery, y.At)); err == nil {
		old, err := decodeDiscoveryYield(y.At, v)
		if err != nil {
			return fmt.Errorf("repo: discovery yield of %s: %w", url, err)
		}
		merged.New = append(old.New, y.New...)
	} else if !errors.Is(err, ErrNotFound) {
		return err
	}
	return b.putStat(url, StatDiscovery, y.At, merged.encode())
}

func (b *Batch) putStat(url string, kind StatKind, at time.Time, v []byte) error {
	s, err := surtOf(url)
	if err != nil {
		return err
	}
	if err := b.set(statKey(s, kind, at), v, fmt.Sprintf("stat %c of %s", kind, url)); err != nil {
		return err
	}
	return b.trim(append(withSep(prefixStat, s), byte(kind)), b.db.cfg.StatsKept, "stats of "+url)
}

// PutMeta stores a metadata value.
func (b *Batch) PutMeta(name string, v []byte) error { return b.set(metaKey(name), v, "meta "+name) }

// PutBucket stores a value under (bucket, key).
func (b *Batch) PutBucket(bucket, key string, v []byte) error {
	return b.set(bucketKey(bucket, key), v, "bucket "+bucket)
}

// DeleteBucket removes (bucket, key).
func (b *Batch) DeleteBucket(bucket, key string) error {
	return b.del(bucketKey(bucket, key), "bucket "+bucket)
}

// Bucket reads (bucket, key), seeing this batch's writes.
func (b *Batch) Bucket(bucket, key string) ([]byte, error) { return get(b.b, bucketKey(bucket, key)) }

func (b *Batch) set(k, v []byte, what string) error {
	if err := b.b.Set(k, v, nil); err != nil {
		return fmt.Errorf("repo: put %s: %w", what, err)
	}
	return nil
}

func (b *Batch) del(k []byte, what string) error {
	if err := b.b.Delete(k, nil); err != nil {
		return fmt.Errorf("repo: delete %s: %w", what, err)
	}
	return nil
}

// trim keeps the newest keep keys under prefix (keys end in a time, so key
// order is time order) and deletes the rest.
func (b *Batch) trim(prefix []byte, keep int, what string) error {
	n := 0
	for e, err := range scanRange(b.ctx, b.b, prefix, prefixEnd(prefix), true) {
		if err != nil {
			return fmt.Errorf("repo: trim %s: %w", what, err)
		}
		if n++; n > keep {
			if err := b.b.Delete(e.k, nil); err != nil {
				return fmt.Errorf("repo: trim %s: %w", what, err)
			}
		}
	}
	return nil
}

// versionFormat 2 compresses the text and the body as one zstd frame:
// uvarint(len(text)) text body. The text is extracted from the body, so
// the frame's matches find most of it there, and one frame builds one set
// of entropy tables where two frames built two (zstd encoding was a tenth
// of a crawl's CPU on small pages). Format 1, two frames, is still read.
const (
	versionFormat       = 2
	versionFormatFrames = 1
)

func (db *DB) encodeVersion(v *Version) []byte {
	e := encoder{b: make([]byte, 0, 64+len(v.Title)+len(v.Signature)+(len(v.Text)+len(v.Body))/3)}
	e.byte(versionFormat)
	e.str(v.ContentType)
	e.uvarint(v.ContentHash)
	e.bytes(v.Signature)
	e.str(v.Title)
	e.bytes(db.zenc.EncodeAll(versionContent(v.Text, v.Body), nil))
	return e.b
}

// versionContent is the uncompressed frame of format 2:
// uvarint(len(text)) text body.
func versionContent(text string, body []byte) []byte {
	content := make([]byte, 0, binary.MaxVarintLen64+len(text)+len(body))
	content = binary.AppendUvarint(content, uint64(len(text)))
	content = append(content, text...)
	return append(content, body...)
}

func (db *DB) decodeVersion(at time.Time, b []byte, withContent bool) (Version, error) {
	d := decoder{b: b, what: "version"}
	format := d.byte()
	if d.err == nil && format != versionFormat && format != versionFormatFrames {
		return Version{}, fmt.Errorf("%w: version: format version %d, want %d or %d", ErrCorrupt, format, versionFormat, versionFormatFrames)
	}
	v := Version{FetchedAt: at}
	v.ContentType = d.str()
	v.ContentHash = d.uvarint()
	v.Signature = d.bytes()
	v.Title = d.str()
	frames := [][]byte{d.bytes()}
	if format == versionFormatFrames {
		frames = append(frames, d.bytes())
	}
	if d.err != nil || !withContent {
		return v, d.err
	}
	if format == versionFormatFrames {
		t, err := db.zdec.DecodeAll(frames[0], nil)
		if err != nil {
			return v, fmt.Errorf("%w: version text: %v", ErrCorrupt, err)
		}
		v.Text = string(t)
		if v.Body, err = db.zdec.DecodeAll(frames[1], nil); err != nil {
			return v, fmt.Errorf("%w: version body: %v", ErrCorrupt, err)
		}
		return v, nil
	}
	content, err := db.zdec.DecodeAll(frames[0], nil)
	if err != nil {
		return v, fmt.Errorf("%w: version content: %v", ErrCorrupt, err)
	}
	n, k := binary.Uvarint(content)
	if k <= 0 || n > uint64(len(content)-k) {
		return v, fmt.Errorf("%w: version content: text length %d in %d bytes", ErrCorrupt, n, len(content))
	}
	v.Text = string(content[k : k+int(n)])
	v.Body = content[k+int(n):]
	return v, nil
}

// Fetched is a page to commit as fetched (PutFetched).
type Fetched struct {
	URL, Title, Text string
}

// PutFetched commits pages as the crawler commits a successful fetch of
// each at at: the live page record, its version and an upsert in the
// change feed the index follows, 256 pages to a batch. It loads a corpus
// without crawling it, for evaluations and tests.
func (db *DB) PutFetched(ctx context.Context, at time.Time, pages []Fetched) error {
	for len(pages) > 0 {
		n := min(len(pages), 256)
		b := db.NewBatch(ctx)
		var errs []error
		for _, p := range pages[:n] {
			errs = append(errs,
				b.PutPage(&Page{URL: p.URL, State: StateLive, LastOutcome: OutcomeOK, HTTPStatus: 200,
					FirstSeen: at, LastFetch: at, Version: at, Title: p.Title, ContentType: "text/html"}),
				b.AddVersion(p.URL, &Version{FetchedAt: at, ContentType: "text/html", Title: p.Title, Text: p.Text}))
			b.AppendChange(p.URL, ChangeUpsert, at)
		}
		err := errors.Join(errs...)
		if err == nil {
			err = b.Commit()
		}
		b.Close()
		if err != nil {
			return fmt.Errorf("repo: put fetched pages: %w", err)
		}
		pages = pages[n:]
	}
	return nil
}
