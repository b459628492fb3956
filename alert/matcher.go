package alert

import (
	"cmp"
	"context"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"hash/fnv"
	"log/slog"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/blevesearch/bleve/v2/analysis"

	"github.com/deltaq/deltaq/index"
	"github.com/deltaq/deltaq/notify"
	"github.com/deltaq/deltaq/repo"
)

const (
	bucket      = "alert"
	alertPrefix = "a/"
	seqKey      = "seq/"
	// notifiedPrefix keys the alerts that have notified a page once: n/H,
	// H the page's urlHash, the alerts' numbers (encodeSeqs).
	notifiedPrefix = "n/"
)

// Options are a Matcher's collaborators.
type Options struct {
	Logger *slog.Logger     // nil discards
	Clock  func() time.Time // nil is time.Now
}

// Matcher holds the alerts and matches index batches against them. It
// implements index.BatchObserver.
type Matcher struct {
	db       *repo.DB
	cfg      Config
	analyzer analysis.Analyzer
	limits   index.Limits
	outbox   *notify.Outbox
	now      func() time.Time
	logger   *slog.Logger
	fired    atomic.Int64
	verified atomic.Int64 // candidates checked against a page
	mu       struct {
		sync.RWMutex
		// alerts holds every alert, packed, and the inverted index of
		// their words: the alerts anchored on each word and the number of
		// observed pages that held it (anchors go to the rarest word). It
		// changes under the write lock only; the counts are atomic.
		alerts *packed
		// seen counts observed pages; at refileAt the alerts are filed
		// again by the counts so far (doubling, so the work is amortized).
		seen, refileAt int
	}
}

// New loads the stored alerts. analyzer must be the index's (Index.Analyzer).
func New(ctx context.Context, db *repo.DB, cfg Config, analyzer analysis.Analyzer, limits index.Limits, outbox *notify.Outbox, opts Options) (*Matcher, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	m := &Matcher{db: db, cfg: cfg, analyzer: analyzer, limits: limits, outbox: outbox, now: opts.Clock, logger: opts.Logger}
	if m.now == nil {
		m.now = time.Now
	}
	if m.logger == nil {
		m.logger = slog.New(slog.DiscardHandler)
	}
	m.mu.alerts = newPacked()
	m.mu.refileAt = refileFirst
	for kv, err := range db.BucketScan(ctx, bucket, alertPrefix) {
		if err != nil {
			return nil, err
		}
		var a Alert
		if err := json.Unmarshal(kv[1], &a); err != nil {
			return nil, fmt.Errorf("alert: decode %q: %w", kv[0], err)
		}
		c, err := compile(&a, analyzer, limits)
		if err != nil {
			return nil, fmt.Errorf("alert: stored alert %s: %w", a.ID, err)
		}
		seq, err := alertSeq(a.ID)
		if err != nil {
			return nil, err
		}
		m.mu.alerts.add(seq, c, kv[1])
	}
	return m, nil
}

// alertSeq is the number of an alert ID ("a17" → 17).
func alertSeq(id string) (uint64, error) {
	n, err := strconv.ParseUint(strings.TrimPrefix(id, "a"), 10, 64)
	if err != nil || !strings.HasPrefix(id, "a") || n == 0 {
		return 0, fmt.Errorf("alert %q: %w", id, repo.ErrNotFound)
	}
	return n, nil
}

// refileFirst is how many observed pages the first re-filing waits for:
// enough for the word counts to tell common words from rare ones.
const refileFirst = 500

// errNoTargets refuses an alert without a target: an alert keeps no
// record of its matches but its notifications, so one sent nowhere could
// never be read.
var errNoTargets = &notify.TargetError{Value: "(0 targets)", Limit: "at least 1: webhook:URL, email:ADDR or feed (an alert's matches are kept only as its notifications)"}

// Add validates and stores a new alert; it must have a notify target.
func (m *Matcher) Add(ctx context.Context, a Alert) (*Alert, error) {
	as, err := m.AddMany(ctx, []Alert{a})
	if err != nil {
		return nil, err
	}
	return &as[0], nil
}

// AddMany validates and stores alerts in one repository batch: all or
// none of them are added.
func (m *Matcher) AddMany(ctx context.Context, as []Alert) ([]Alert, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if n := len(m.mu.alerts.bySeq) + len(as); n > m.cfg.MaxAlerts {
		return nil, &FullError{Alerts: n, Max: m.cfg.MaxAlerts}
	}
	seq := uint64(0)
	if v, err := m.db.Bucket(bucket, seqKey); err == nil {
		if seq, err = strconv.ParseUint(string(v), 10, 64); err != nil {
			return nil, fmt.Errorf("alert: sequence %q: %w", v, err)
		}
	} else if !errors.Is(err, repo.ErrNotFound) {
		return nil, err
	}
	b := m.db.NewBatch(ctx)
	defer b.Close()
	out := make([]Alert, len(as))
	cs := make([]*compiled, len(as))
	records := make([][]byte, len(as))
	now := m.now()
	for i, a := range as {
		seq++
		a.ID, a.Created = "a"+strconv.FormatUint(seq, 10), now
		out[i] = a
		c, err := compile(&out[i], m.analyzer, m.limits)
		if err != nil {
			return nil, err
		}
		if len(a.Notify) == 0 {
			return nil, errNoTargets
		}
		cs[i] = c
		v, err := json.Marshal(&a)
		if err != nil {
			return nil, fmt.Errorf("alert: encode: %w", err)
		}
		records[i] = v
		if err := b.PutBucket(bucket, alertPrefix+a.ID, v); err != nil {
			return nil, err
		}
	}
	if err := m.mu.alerts.fits(cs, records, maxPacked); err != nil {
		return nil, err
	}
	if err := b.PutBucket(bucket, seqKey, []byte(strconv.FormatUint(seq, 10))); err != nil {
		return nil, err
	}
	if err := b.Commit(); err != nil {
		return nil, fmt.Errorf("alert: add: %w", err)
	}
	for i, c := range cs {
		m.mu.alerts.add(seq-uint64(len(cs)-1-i), c, records[i])
	}
	return out, nil
}

// Remove deletes an alert; repo.ErrNotFound if there is none.
func (m *Matcher) Remove(ctx context.Context, id string) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	seq, err := alertSeq(id)
	if err != nil {
		return err
	}
	if _, ok := m.mu.alerts.bySeq[seq]; !ok {
		return fmt.Errorf("alert %q: %w", id, repo.ErrNotFound)
	}
	b := m.db.NewBatch(ctx)
	defer b.Close()
	if err := b.DeleteBucket(bucket, alertPrefix+id); err != nil {
		return err
	}
	if err := b.Commit(); err != nil {
		return fmt.Errorf("alert: remove %s: %w", id, err)
	}
	m.mu.alerts.remove(seq)
	return nil
}

// List returns the alerts of user ("" for all), oldest first (by number).
func (m *Matcher) List(user string) []Alert {
	m.mu.RLock()
	defer m.mu.RUnlock()
	p := m.mu.alerts
	u, ok := p.users[user]
	if !ok && user != "" {
		return nil
	}
	var at []uint32
	for i := range p.slots {
		if s := &p.slots[i]; s.seq != 0 && (user == "" || s.user == u) {
			at = append(at, uint32(i))
		}
	}
	slices.SortFunc(at, func(a, b uint32) int { return cmp.Compare(p.slots[a].seq, p.slots[b].seq) })
	out := make([]Alert, 0, len(at))
	for _, i := range at {
		a, err := p.alert(i)
		if err != nil { // the matcher encoded these bytes itself
			m.logger.Error("alert record", "n", p.slots[i].seq, "err", err)
			continue
		}
		out = append(out, a)
	}
	return out
}

// Count returns how many alerts user has.
func (m *Matcher) Count(user string) int {
	m.mu.RLock()
	defer m.mu.RUnlock()
	p := m.mu.alerts
	u, ok := p.users[user]
	if !ok {
		return 0
	}
	n := 0
	for i := range p.slots {
		if p.slots[i].seq != 0 && p.slots[i].user == u {
			n++
		}
	}
	return n
}

// Fired counts matches since New, notified or not (a page an alert
// notifies once matches at each matching change).
func (m *Matcher) Fired() int64 { return m.fired.Load() }

// Verified counts the candidate alerts checked against pages since New:
// the work the inverted index leaves.
func (m *Matcher) Verified() int64 { return m.verified.Load() }

// ObserveBatch implements index.BatchObserver: each page is matched
// against the alerts filed under its words, and every match is enqueued
// in rb.
func (m *Matcher) ObserveBatch(rb *repo.Batch, pages []index.IndexedPage) error {
	if err := m.observe(rb, pages); err != nil {
		return err
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.mu.seen += len(pages); m.mu.seen >= m.mu.refileAt {
		m.mu.alerts.refile()
		m.mu.refileAt = 2 * m.mu.seen
	}
	return nil
}

func (m *Matcher) observe(rb *repo.Batch, pages []index.IndexedPage) error {
	m.mu.RLock()
	defer m.mu.RUnlock()
	verified := 0
	defer func() { m.verified.Add(int64(verified)) }()
	a := m.mu.alerts
	var matched []uint32 // the slots matching one page
	for i := range pages {
		p := &pages[i]
		fetched := p.At.UnixNano()
		matched = matched[:0]
		for term := range p.Terms {
			id, ok := a.lookup(term)
			if !ok {
				continue
			}
			atomic.AddInt64(&a.df[id], 1)
			verified += len(a.anchored[id])
			for _, at := range a.anchored[id] {
				// A copy fetched before the alert was made is not news to
				// it: the index rebuilt from the change feed, or catching
				// up after the alert was added, shows such copies.
				if a.slots[at].created <= fetched && a.matches(at, p.URL, p.Terms) {
					matched = append(matched, at)
				}
			}
		}
		if len(matched) > 0 {
			if err := m.notify(rb, p, matched); err != nil {
				return err
			}
		}
	}
	return nil
}

// notify enqueues into rb a notification of p for each alert in matched
// (the slots that match p, each once: an alert is anchored on one word),
// but for an alert that notifies a page once and has notified p before,
// as the page's notified set in rb says (this batch's earlier pages
// count).
func (m *Matcher) notify(rb *repo.Batch, p *index.IndexedPage, matched []uint32) error {
	m.fired.Add(int64(len(matched)))
	a := m.mu.alerts
	h := urlHash(p.URL)
	key := notifiedPrefix + h
	v, err := rb.Bucket(bucket, key)
	if err != nil && !errors.Is(err, repo.ErrNotFound) {
		return fmt.Errorf("alert: alerts that notified %s: %w", p.URL, err)
	}
	notified, err := decodeSeqs(v)
	if err != nil {
		// Damage here must not stop indexing: the page is notified
		// again, and the set starts over.
		m.logger.Warn("alert: alerts that notified a page: unreadable, starting over", "url", p.URL, "key", key, "err", err)
		notified = nil
	}
	known := len(notified)
	for _, at := range matched {
		seq := a.slots[at].seq
		if !a.every[at] {
			if _, found := slices.BinarySearch(notified[:known], seq); found {
				continue
			}
			notified = append(notified, seq)
		}
		if m.outbox == nil {
			continue
		}
		al, err := a.alert(at)
		if err != nil {
			return fmt.Errorf("alert: record of alert number %d: %w", seq, err)
		}
		n := m.notification(at, &al, h, p)
		if err := m.outbox.Enqueue(rb, n); err != nil {
			return fmt.Errorf("alert %s on %s: %w", n.Source, p.URL, err)
		}
	}
	if len(notified) == known {
		return nil
	}
	// Removed alerts' numbers go when the set is written again: numbers
	// are never given out twice, so until then they only take room.
	notified = slices.DeleteFunc(notified, func(seq uint64) bool { _, ok := a.bySeq[seq]; return !ok })
	slices.Sort(notified)
	return rb.PutBucket(bucket, key, encodeSeqs(notified))
}

// seqsV1 starts a notified set: then each alert number as a uvarint,
// ascending.
const seqsV1 = 1

func encodeSeqs(seqs []uint64) []byte {
	b := make([]byte, 1, 1+len(seqs)*3)
	b[0] = seqsV1
	for _, s := range seqs {
		b = binary.AppendUvarint(b, s)
	}
	return b
}

// decodeSeqs reads encodeSeqs's form; nil reads as no numbers.
func decodeSeqs(v []byte) ([]uint64, error) {
	if len(v) == 0 {
		return nil, nil
	}
	if v[0] != seqsV1 {
		return nil, fmt.Errorf("format %d, want %d", v[0], seqsV1)
	}
	var out []uint64
	for rest := v[1:]; len(rest) > 0; {
		s, n := binary.Uvarint(rest)
		if n <= 0 || len(out) > 0 && s <= out[len(out)-1] {
			return nil, fmt.Errorf("alert number %d of the set: malformed or not ascending", len(out)+1)
		}
		out = append(out, s)
		rest = rest[n:]
	}
	return out, nil
}

// urlHash is the 16 hex digits of FNV-64a of url.
func urlHash(url string) string {
	h := fnv.New64a()
	h.Write([]byte(url))
	return fmt.Sprintf("%016x", h.Sum64())
}

// notification describes al's match of p, h being p's urlHash. Its ID is
// the alert, the page and the fetch time of the indexed copy: a batch
// redone after a crash makes the same IDs.
func (m *Matcher) notification(at uint32, al *Alert, h string, p *index.IndexedPage) *notify.Notification {
	change := "changed page"
	if p.New {
		change = "new page"
	}
	n := &notify.Notification{
		ID:     fmt.Sprintf("%s-%s-%x", al.ID, h, p.At.UnixNano()),
		Source: "alert:" + al.ID, User: al.User, URL: p.URL, Kind: "alert", Change: change, At: p.At,
		Title:   fmt.Sprintf("alert %q: %s (%s)", al.Query, p.Title, change),
		Summary: p.Snippet(m.mu.alerts.snippetTerms(at), m.cfg.SnippetBytes),
	}
	for _, t := range al.Notify {
		if t.Kind == notify.Feed {
			n.Feeds = append(n.Feeds, "alert:"+al.ID)
			if al.User != "" {
				n.Feeds = append(n.Feeds, "user:"+al.User)
			}
			continue
		}
		n.Targets = append(n.Targets, t)
	}
	return n
}
