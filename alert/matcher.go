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
	mu       struct {
		sync.RWMutex
		byID     map[string]*compiled
		byAnchor map[string][]*compiled
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
	m.mu.byAnchor = map[string][]*compiled{}
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

// fileLocked adds c to the maps under the anchor with the shortest list.
func (m *Matcher) fileLocked(c *compiled) {
	best, bestLen := "", -1
	for _, cl := range c.required {
		for _, w := range cl.words {
			n := len(m.mu.byAnchor[w.term])
			if bestLen < 0 || n < bestLen || n == bestLen && len(w.term) > len(best) {
				best, bestLen = w.term, n
			}
		}
	}
	c.anchor = best
	m.mu.byID[c.a.ID] = c
	m.mu.byAnchor[best] = append(m.mu.byAnchor[best], c)
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
	list := m.mu.byAnchor[c.anchor]
	list = slices.DeleteFunc(list, func(x *compiled) bool { return x == c })
	if len(list) == 0 {
		delete(m.mu.byAnchor, c.anchor)
	} else {
		m.mu.byAnchor[c.anchor] = list
	}
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

// ObserveBatch implements index.BatchObserver: each page is matched
// against the alerts filed under its words, and every match is enqueued
// in rb.
func (m *Matcher) ObserveBatch(rb *repo.Batch, pages []index.IndexedPage) error {
	m.mu.RLock()
	defer m.mu.RUnlock()
	for i := range pages {
		p := &pages[i]
		for term := range p.Terms {
			for _, c := range m.mu.byAnchor[term] {
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
