package watch

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/deltaq/deltaq/repo"
)

// bucket is the repository bucket this package owns (repo/FORMAT.md).
const bucket = "watch"

// Keys inside the bucket. KEY is a group key (the page URL, or
// "sentinel:ID" when ungrouped), TABLE a table id (tableID).
const (
	sentinelPrefix = "s/"   // s/ID → Sentinel
	groupPrefix    = "g/"   // g/KEY → group
	tablePrefix    = "t/"   // t/KEY 0x00 TABLE → table
	memberPrefix   = "n/"   // n/KEY 0x00 TABLE 0x00 ID → member
	copyPrefix     = "c/"   // c/KEY → zstd(body) of the group's last copy
	textPrefix     = "x/"   // x/KEY → keptText of the same copy, for the page diff
	sumPrefix      = "m/"   // m/KEY → MD5 (hex) of the group's last copy
	historyPrefix  = "h/"   // h/ID/STAMP → Change
	failurePrefix  = "f/"   // f/ID → failureLog: the sentinel's failed checks
	userPrefix     = "u/"   // u/USER 0x00 ID → nothing: a user's sentinels, for List
	seqKey         = "seq/" // the last sentinel number given out
	usersMark      = "v/users"
)

// userKey is sentinel id's entry in user's list.
func userKey(user, id string) string { return userPrefix + user + "\x00" + id }

// group is one watched page (WebCQ §6.1.1): its sentinels sit in constant
// tables under t/KEY, each member under n/KEY, so that an install writes
// one member key, never the whole group. The page's MD5 is also kept
// alone under m/KEY, so that an unchanged page costs one 32-byte read
// (§6.2).
type group struct {
	Key       string    `json:"key"`
	URL       string    `json:"url"`
	LastCheck time.Time `json:"last_check,omitzero"`
	// Tables is the layout before tables and members had keys of their
	// own; New moves it to them (migrateGroups).
	Tables []*legacyTable `json:"tables,omitempty"`
}

// table is a constant table: the sentinels that share page, type and
// object, with the object as last seen. Its members are keys of their own.
type table struct {
	Spec   Spec   `json:"spec"` // the first member's spec (type, selector, object)
	Object Object `json:"object"`
}

// member is one sentinel of a table, with what the scheduler needs.
type member struct {
	ID    string        `json:"id"`
	Every time.Duration `json:"every"`
}

// keptText is what the page diff needs of a group's kept copy, stored
// beside it under x/KEY so that a changed page's diff does not parse the
// copy's HTML again: its text and sorted links, with the MD5 of the copy
// they were taken from. Only groups with an unscoped any-change table
// have it (from the install of their first such sentinel on), so a copy
// may have none, or one left from an earlier copy; either way the copy
// itself is parsed instead. It is a record, not compressed as the copy
// is: zstd costs a changed page about as much for a few kilobytes of
// text as for the whole HTML, and Pebble compresses its blocks anyway.
type keptText struct {
	Sum     string
	Text    string
	Anchors []string
}

type legacyTable struct {
	table
	Members []member `json:"members"`
}

// tableID names a constant table inside its group: a hash of its type and
// object (Spec.tableKey), which may be long text.
func tableID(s *Spec) string {
	h := sha256.Sum256([]byte(s.tableKey()))
	return hex.EncodeToString(h[:16])
}

func tableKey(group, tid string) string { return tablePrefix + group + "\x00" + tid }

func membersOf(group, tid string) string { return memberPrefix + group + "\x00" + tid + "\x00" }

// groupOfMember is the group key of an n/ key.
func groupOfMember(key string) string {
	k, _, _ := strings.Cut(strings.TrimPrefix(key, memberPrefix), "\x00")
	return k
}

// loadTable reads a group's table tid; found is false when there is none,
// and a stored table of another type or object (a hash collision) is an
// error.
func (r *reader) loadTable(group string, spec *Spec) (t *table, tid string, found bool, err error) {
	tid = tableID(spec)
	t = &table{}
	if found, err = r.get(tableKey(group, tid), t); err != nil || !found {
		return nil, tid, false, err
	}
	if t.Spec.tableKey() != spec.tableKey() {
		return nil, tid, false, fmt.Errorf("watch: table %s of %s holds another object", tid, group)
	}
	return t, tid, true, nil
}

// reader counts the bytes a check reads from the repository.
type reader struct {
	db    *repo.DB
	bytes int64
}

func (r *reader) get(key string, v any) (bool, error) {
	b, err := r.db.Bucket(bucket, key)
	if errors.Is(err, repo.ErrNotFound) {
		return false, nil
	}
	if err != nil {
		return false, fmt.Errorf("watch: read %q: %w", key, err)
	}
	r.bytes += int64(len(b))
	return true, decodeValue(key, b, v)
}

// put writes v: a record in the binary form (codec.go), anything else as
// JSON.
func put(b *repo.Batch, key string, v any) error {
	if r, ok := v.(record); ok {
		return b.PutBucket(bucket, key, encodeRecord(r))
	}
	buf, err := json.Marshal(v)
	if err != nil {
		return fmt.Errorf("watch: encode %q: %w", key, err)
	}
	return b.PutBucket(bucket, key, buf)
}

// sentinel reads one sentinel; repo.ErrNotFound if there is none.
func (e *Engine) sentinel(id string) (*Sentinel, error) {
	var s Sentinel
	ok, err := (&reader{db: e.db}).get(sentinelPrefix+id, &s)
	if err != nil {
		return nil, err
	}
	if !ok {
		return nil, fmt.Errorf("watch: sentinel %q: %w", id, repo.ErrNotFound)
	}
	return &s, nil
}

// scan decodes every value under prefix, counting the bytes in r.
func scan[T any](ctx context.Context, r *reader, prefix string, fn func(key string, v *T) error) error {
	for kv, err := range r.db.BucketScan(ctx, bucket, prefix) {
		if err != nil {
			return err
		}
		r.bytes += int64(len(kv[1]))
		var v T
		key := string(kv[0])
		if err := decodeValue(key, kv[1], &v); err != nil {
			return err
		}
		if err := fn(key, &v); err != nil {
			return err
		}
	}
	return nil
}

// migrateGroups moves the tables and members of groups stored in the
// layout before they had keys of their own (all in g/KEY) to t/ and n/
// keys, one batch per group, so an older repository keeps every sentinel.
func (e *Engine) migrateGroups(ctx context.Context) (int, error) {
	var old []*group
	err := scan(ctx, &reader{db: e.db}, groupPrefix, func(_ string, g *group) error {
		if len(g.Tables) > 0 {
			old = append(old, g)
		}
		return nil
	})
	if err != nil {
		return 0, err
	}
	for _, g := range old {
		b := e.db.NewBatch(ctx)
		for _, t := range g.Tables {
			tid := tableID(&t.Spec)
			err = errors.Join(err, put(b, tableKey(g.Key, tid), &t.table))
			for i := range t.Members {
				m := &t.Members[i]
				err = errors.Join(err, put(b, membersOf(g.Key, tid)+m.ID, m))
			}
		}
		g.Tables = nil
		err = errors.Join(err, put(b, groupPrefix+g.Key, g))
		if err == nil {
			err = b.Commit()
		}
		b.Close()
		if err != nil {
			return 0, fmt.Errorf("watch: move the tables of %s to their own keys: %w", g.URL, err)
		}
	}
	return len(old), nil
}

// indexUsers lists every sentinel of a repository written before the
// users' lists (u/) under its user, once (usersMark), so that List reads a
// user's sentinels alone; it returns how many it listed.
func (e *Engine) indexUsers(ctx context.Context) (int, error) {
	n := 0
	err := e.db.Upgrade(ctx, bucket, usersMark, 1000, func(batch func() *repo.Batch, done func() error) error {
		return scan(ctx, &reader{db: e.db}, sentinelPrefix, func(_ string, s *Sentinel) error {
			if err := batch().PutBucket(bucket, userKey(s.User, s.ID), nil); err != nil {
				return err
			}
			n++
			return done()
		})
	})
	if err != nil {
		return 0, fmt.Errorf("watch: list the sentinels under their users: %w", err)
	}
	return n, nil
}

// any reports whether some key under prefix other than except exists.
func (r *reader) any(ctx context.Context, prefix, except string) (bool, error) {
	for kv, err := range r.db.BucketScan(ctx, bucket, prefix) {
		if err != nil {
			return false, err
		}
		if string(kv[0]) != except {
			return true, nil
		}
	}
	return false, nil
}
