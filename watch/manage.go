package watch

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/deltaq/deltaq/repo"
)

// Get returns one sentinel; repo.ErrNotFound if there is none.
func (e *Engine) Get(ctx context.Context, id string) (*Sentinel, error) { return e.sentinel(id) }

// List returns the sentinels of user ("" for all), in install order.
func (e *Engine) List(ctx context.Context, user string) ([]*Sentinel, error) {
	var out []*Sentinel
	err := scan(ctx, e.db, sentinelPrefix, func(_ string, s *Sentinel) error {
		if user == "" || s.User == user {
			out = append(out, s)
		}
		return nil
	})
	slices.SortFunc(out, func(a, b *Sentinel) int { return a.Installed.Compare(b.Installed) })
	return out, err
}

// History returns a sentinel's kept changes, oldest first.
func (e *Engine) History(ctx context.Context, id string) ([]Change, error) {
	if _, err := e.sentinel(id); err != nil {
		return nil, err
	}
	var out []Change
	err := scan(ctx, e.db, historyPrefix+id+"/", func(_ string, c *Change) error {
		out = append(out, *c)
		return nil
	})
	return out, err
}

// Remove uninstalls a sentinel: it leaves its constant table, and the
// table and the group go when they are empty.
func (e *Engine) Remove(ctx context.Context, id string) error {
	e.mu.Lock()
	defer e.mu.Unlock()
	s, err := e.sentinel(id)
	if err != nil {
		return err
	}
	key := e.groupKey(s.URL, id)
	var g group
	r := &reader{db: e.db}
	if _, err := r.get(groupPrefix+key, &g); err != nil {
		return err
	}
	b := e.db.NewBatch(ctx)
	defer b.Close()
	for i, t := range g.Tables {
		t.Members = slices.DeleteFunc(t.Members, func(m member) bool { return m.ID == id })
		if len(t.Members) == 0 {
			g.Tables = slices.Delete(g.Tables, i, i+1)
			break
		}
	}
	if len(g.Tables) == 0 {
		if err := b.DeleteBucket(bucket, groupPrefix+key); err != nil {
			return err
		}
		if err := b.DeleteBucket(bucket, copyPrefix+key); err != nil {
			return err
		}
		if err := b.DeleteBucket(bucket, sumPrefix+key); err != nil {
			return err
		}
	} else if err := put(b, groupPrefix+key, &g); err != nil {
		return err
	}
	if err := b.DeleteBucket(bucket, sentinelPrefix+id); err != nil {
		return err
	}
	for kv, err := range e.db.BucketScan(ctx, bucket, historyPrefix+id+"/") {
		if err != nil {
			return err
		}
		if err := b.DeleteBucket(bucket, string(kv[0])); err != nil {
			return err
		}
	}
	return b.Commit()
}

// Group is one watched page as the scheduler sees it.
type Group struct {
	Key, URL  string
	LastCheck time.Time
	// Every lists the members' wished intervals.
	Every []time.Duration
}

// Groups lists every group.
func (e *Engine) Groups(ctx context.Context) ([]Group, error) {
	var out []Group
	err := scan(ctx, e.db, groupPrefix, func(_ string, g *group) error {
		gr := Group{Key: g.Key, URL: g.URL, LastCheck: g.LastCheck}
		for _, t := range g.Tables {
			for _, m := range t.Members {
				gr.Every = append(gr.Every, m.Every)
			}
		}
		out = append(out, gr)
		return nil
	})
	return out, err
}

// FlushDigests sends every periodic digest that is due at now, for
// sentinels whose page has not changed since their last trigger.
func (e *Engine) FlushDigests(ctx context.Context) (int, error) {
	e.mu.Lock()
	defer e.mu.Unlock()
	now := e.now()
	b := e.db.NewBatch(ctx)
	defer b.Close()
	n := 0
	err := scan(ctx, e.db, sentinelPrefix, func(_ string, s *Sentinel) error {
		if s.Mode != Digest || len(s.Pending) == 0 || now.Before(s.NextDigest) {
			return nil
		}
		n++
		if err := e.flushDigest(b, s, now); err != nil {
			return err
		}
		return put(b, sentinelPrefix+s.ID, s)
	})
	if err != nil || n == 0 {
		return 0, err
	}
	return n, b.Commit()
}

// Test shows what spec would track on the repository's stored copy of its
// page (the crawler's latest version), or on a fresh fetch when the page
// was never crawled. Nothing is installed.
func (e *Engine) Test(ctx context.Context, spec Spec) (Object, error) {
	if err := spec.validate(e.cfg, e.now()); err != nil {
		return Object{}, fmt.Errorf("%w: %w", ErrInvalid, err)
	}
	var body []byte
	ctype := ""
	v, err := e.db.LatestVersion(ctx, spec.URL)
	switch {
	case err == nil && len(v.Body) > 0:
		body, ctype = v.Body, v.ContentType
	case err == nil || errors.Is(err, repo.ErrNotFound):
		f, err := e.fetch(ctx, spec.URL)
		if err != nil {
			return Object{}, err
		}
		body, ctype = f.Body, f.ContentType
	default:
		return Object{}, fmt.Errorf("watch: stored copy of %s: %w", spec.URL, err)
	}
	obj, err := Extract(e.cfg, spec, body, ctype)
	if err == nil && !obj.Located {
		err = fmt.Errorf("%w: select %q, object %q", ErrObjectNotFound, spec.Selector, strings.TrimSpace(spec.Object))
	}
	return obj, err
}

// Extract finds spec's object on one copy of its page, as a sentinel
// installed on that copy would; Located is false if it is not there.
func Extract(cfg Config, spec Spec, body []byte, contentType string) (Object, error) {
	p, err := newPage(spec.URL, body, contentType, cfg.Extract)
	if err != nil {
		return Object{}, err
	}
	return p.extract(&spec, nil, cfg)
}

// Equal reports whether two objects of a sentinel type are the same.
func (o *Object) Equal(n *Object, t Type) bool { return o.equal(n, t) }
