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

// List returns the sentinels of user ("" for all), in install order. A
// user's are read through their list (u/), not found among everyone's.
func (e *Engine) List(ctx context.Context, user string) ([]*Sentinel, error) {
	var out []*Sentinel
	var err error
	if user == "" {
		err = scan(ctx, &reader{db: e.db}, sentinelPrefix, func(_ string, s *Sentinel) error {
			out = append(out, s)
			return nil
		})
	} else {
		out, err = e.listUser(ctx, user)
	}
	slices.SortFunc(out, func(a, b *Sentinel) int { return a.Installed.Compare(b.Installed) })
	return out, err
}

// listUser reads the sentinels on user's list.
func (e *Engine) listUser(ctx context.Context, user string) ([]*Sentinel, error) {
	prefix := userKey(user, "")
	var out []*Sentinel
	for kv, err := range e.db.BucketScan(ctx, bucket, prefix) {
		if err != nil {
			return nil, err
		}
		s, err := e.sentinel(strings.TrimPrefix(string(kv[0]), prefix))
		if errors.Is(err, repo.ErrNotFound) {
			continue // removed since the scan began
		}
		if err != nil {
			return nil, err
		}
		// A user name holding 0x00 would read a longer name's list too.
		if s.User == user {
			out = append(out, s)
		}
	}
	return out, nil
}

// History returns a sentinel's kept changes, oldest first.
func (e *Engine) History(ctx context.Context, id string) ([]Change, error) {
	if _, err := e.sentinel(id); err != nil {
		return nil, err
	}
	var out []Change
	err := scan(ctx, &reader{db: e.db}, historyPrefix+id+"/", func(_ string, c *Change) error {
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
	tid := tableID(&s.Spec)
	mine := membersOf(key, tid) + id
	r := &reader{db: e.db}
	b := e.db.NewBatch(ctx)
	defer b.Close()
	if err := b.DeleteBucket(bucket, mine); err != nil {
		return err
	}
	// The table goes with its last member, the group with its last table:
	// each a scan that stops at the first other key.
	others, err := r.any(ctx, membersOf(key, tid), mine)
	if err != nil {
		return err
	}
	if !others {
		if err := b.DeleteBucket(bucket, tableKey(key, tid)); err != nil {
			return err
		}
		if others, err = r.any(ctx, tablePrefix+key+"\x00", tableKey(key, tid)); err != nil {
			return err
		}
	}
	if !others {
		for _, k := range []string{groupPrefix, copyPrefix, textPrefix, sumPrefix} {
			if err := b.DeleteBucket(bucket, k+key); err != nil {
				return err
			}
		}
	}
	if err := b.DeleteBucket(bucket, sentinelPrefix+id); err != nil {
		return err
	}
	if err := b.DeleteBucket(bucket, userKey(s.User, id)); err != nil {
		return err
	}
	if err := b.DeleteBucket(bucket, failurePrefix+id); err != nil {
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
	if err := b.Commit(); err != nil {
		return err
	}
	if !others {
		delete(e.checked, key)
	}
	e.installs.Add(1)
	return nil
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
	r := &reader{db: e.db}
	err := scan(ctx, r, groupPrefix, func(_ string, g *group) error {
		out = append(out, Group{Key: g.Key, URL: g.URL, LastCheck: g.LastCheck})
		return nil
	})
	if err != nil {
		return nil, err
	}
	// Members are listed group by group, in the order of the group keys.
	i := 0
	err = scan(ctx, r, memberPrefix, func(k string, m *member) error {
		g := groupOfMember(k)
		for i < len(out) && out[i].Key < g {
			i++
		}
		if i < len(out) && out[i].Key == g {
			out[i].Every = append(out[i].Every, m.Every)
		}
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
	err := scan(ctx, &reader{db: e.db}, sentinelPrefix, func(_ string, s *Sentinel) error {
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
	obj, p, err := extractOn(e.cfg, spec, body, ctype)
	if err != nil {
		return obj, err
	}
	if cut := p.textCut(&spec); cut != nil {
		return obj, fmt.Errorf("%w: %w", ErrInvalid, cut)
	}
	if !obj.Located {
		err = fmt.Errorf("%w: select %q, object %q", ErrObjectNotFound, spec.Selector, strings.TrimSpace(spec.Object))
	}
	return obj, err
}

// Extract finds spec's object on one copy of its page, as a sentinel
// installed on that copy would; Located is false if it is not there.
func Extract(cfg Config, spec Spec, body []byte, contentType string) (Object, error) {
	obj, _, err := extractOn(cfg, spec, body, contentType)
	return obj, err
}

// extractOn is Extract, returning the parsed page too.
func extractOn(cfg Config, spec Spec, body []byte, contentType string) (Object, *page, error) {
	p, err := newPage(spec.URL, body, contentType, cfg.Extract)
	if err != nil {
		return Object{}, nil, err
	}
	obj, err := p.extract(&spec, nil, cfg)
	return obj, p, err
}

// Equal reports whether two objects of a sentinel type are the same.
func (o *Object) Equal(n *Object, t Type) bool { return o.equal(n, t) }
