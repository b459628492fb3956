package alert

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"hash/fnv"
	"log/slog"
	"slices"
	"strconv"
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
		byID map[string]*compiled
		// words has an entry for every word of an alert: the alerts
		// anchored on it and the number of observed pages that held it
		// (anchors go to the rarest word). The map changes under the write
		// lock only; the counters are atomic.
		words map[string]*wordEntry
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
	m.mu.byID = map[string]*compiled{}
	m.mu.words = map[string]*wordEntry{}
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
		m.fileLocked(c)
	}
	return m, nil
}

// wordEntry is the inverted index's entry for one alert word.
type wordEntry struct {
	df      atomic.Int64
	anchors []*compiled
}

// refileFirst is how many observed pages the first re-filing waits for:
// enough for the word counts to tell common words from rare ones.
const refileFirst = 500

// fileLocked adds c to the maps under its anchor: the word seen on the
// fewest observed pages, then the one with the fewest alerts filed under
// it (before any page is observed, only the latter tells).
func (m *Matcher) fileLocked(c *compiled) {
	best, bestDF, bestLen := "", int64(-1), -1
	for _, cl := range c.required {
		for _, w := range cl.words {
			e, ok := m.mu.words[w.term]
			if !ok {
				e = &wordEntry{}
				m.mu.words[w.term] = e
			}
			d, n := e.df.Load(), len(e.anchors)
			if bestDF < 0 || d < bestDF || d == bestDF && n < bestLen {
				best, bestDF, bestLen = w.term, d, n
			}
		}
	}
	c.anchor = best
	m.mu.byID[c.a.ID] = c
	e := m.mu.words[best]
	e.anchors = append(e.anchors, c)
}

// refileLocked files every alert again by the word counts so far.
func (m *Matcher) refileLocked() {
	for _, e := range m.mu.words {
		e.anchors = nil
	}
	ids := make([]string, 0, len(m.mu.byID))
	for id := range m.mu.byID {
		ids = append(ids, id)
	}
	slices.Sort(ids) // the same filing for the same alerts and pages
	for _, id := range ids {
		m.fileLocked(m.mu.byID[id])
	}
}

// Add validates and stores a new alert.
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
	if n := len(m.mu.byID) + len(as); n > m.cfg.MaxAlerts {
		return nil, fmt.Errorf("alert: %d alerts with the new ones: over alert.max_alerts = %d", n, m.cfg.MaxAlerts)
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
	now := m.now()
	for i, a := range as {
		seq++
		a.ID, a.Created = "a"+strconv.FormatUint(seq, 10), now
		out[i] = a
		c, err := compile(&out[i], m.analyzer, m.limits)
		if err != nil {
			return nil, err
		}
		cs[i] = c
		v, err := json.Marshal(&a)
		if err != nil {
			return nil, fmt.Errorf("alert: encode: %w", err)
		}
		if err := b.PutBucket(bucket, alertPrefix+a.ID, v); err != nil {
			return nil, err
		}
	}
	if err := b.PutBucket(bucket, seqKey, []byte(strconv.FormatUint(seq, 10))); err != nil {
		return nil, err
	}
	if err := b.Commit(); err != nil {
		return nil, fmt.Errorf("alert: add: %w", err)
	}
	for _, c := range cs {
		m.fileLocked(c)
	}
	return out, nil
}

// Remove deletes an alert; repo.ErrNotFound if there is none.
func (m *Matcher) Remove(ctx context.Context, id string) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	c, ok := m.mu.byID[id]
	if !ok {
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
	delete(m.mu.byID, id)
	e := m.mu.words[c.anchor]
	e.anchors = slices.DeleteFunc(e.anchors, func(x *compiled) bool { return x == c })
	return nil
}

// List returns the alerts of user ("" for all), by ID.
func (m *Matcher) List(user string) []Alert {
	m.mu.RLock()
	defer m.mu.RUnlock()
	var out []Alert
	for _, c := range m.mu.byID {
		if user == "" || c.a.User == user {
			out = append(out, *c.a)
		}
	}
	slices.SortFunc(out, func(a, b Alert) int { return a.Created.Compare(b.Created) })
	return out
}

// Fired counts matches since New.
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
		m.refileLocked()
		m.mu.refileAt = 2 * m.mu.seen
	}
	return nil
}

func (m *Matcher) observe(rb *repo.Batch, pages []index.IndexedPage) error {
	m.mu.RLock()
	defer m.mu.RUnlock()
	verified := 0
	defer func() { m.verified.Add(int64(verified)) }()
	for i := range pages {
		p := &pages[i]
		for term := range p.Terms {
			e, ok := m.mu.words[term]
			if !ok {
				continue
			}
			e.df.Add(1)
			verified += len(e.anchors)
			for _, c := range e.anchors {
				if !c.matches(p.URL, p.Terms) {
					continue
				}
				m.fired.Add(1)
				if m.outbox == nil {
					continue
				}
				if err := m.outbox.Enqueue(rb, m.notification(c, p)); err != nil {
					return fmt.Errorf("alert %s on %s: %w", c.a.ID, p.URL, err)
				}
			}
		}
	}
	return nil
}

// notification describes a match. Its ID is the alert, the page and the
// fetch time of the indexed copy: a batch redone after a crash makes the
// same IDs.
func (m *Matcher) notification(c *compiled, p *index.IndexedPage) *notify.Notification {
	h := fnv.New64a()
	h.Write([]byte(p.URL))
	change := "changed page"
	if p.New {
		change = "new page"
	}
	n := &notify.Notification{
		ID:     fmt.Sprintf("%s-%016x-%x", c.a.ID, h.Sum64(), p.At.UnixNano()),
		Source: "alert:" + c.a.ID, User: c.a.User, URL: p.URL, Kind: "alert", Change: change, At: p.At,
		Title:   fmt.Sprintf("alert %q: %s (%s)", c.a.Query, p.Title, change),
		Summary: p.Snippet(c.snippetTerms, m.cfg.SnippetBytes),
	}
	for _, t := range c.a.Notify {
		if t.Kind == notify.Feed {
			n.Feeds = append(n.Feeds, "alert:"+c.a.ID)
			if c.a.User != "" {
				n.Feeds = append(n.Feeds, "user:"+c.a.User)
			}
			continue
		}
		n.Targets = append(n.Targets, t)
	}
	return n
}
