package watch

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/deltaq/deltaq/repo"
)

// bucket is the repository bucket this package owns (repo/FORMAT.md).
const bucket = "watch"

// Keys inside the bucket.
const (
	sentinelPrefix = "s/"   // s/ID → Sentinel
	groupPrefix    = "g/"   // g/KEY → group
	copyPrefix     = "c/"   // c/KEY → zstd(body) of the group's last copy
	sumPrefix      = "m/"   // m/KEY → MD5 (hex) of the group's last copy
	historyPrefix  = "h/"   // h/ID/STAMP → Change
	seqKey         = "seq/" // the last sentinel number given out
)

// group is every sentinel on one page (WebCQ §6.1.1) and its constant
// tables. The page's MD5 is also kept alone under m/KEY, so that an
// unchanged page costs one 32-byte read (§6.2).
type group struct {
	Key       string    `json:"key"`
	URL       string    `json:"url"`
	LastCheck time.Time `json:"last_check,omitzero"`
	Tables    []*table  `json:"tables"`
}

// table is a constant table: the sentinels that share page, type and
// object, with the object as last seen.
type table struct {
	Spec    Spec     `json:"spec"` // the first member's spec (type, selector, object)
	Object  Object   `json:"object"`
	Members []member `json:"members"`
}

// member is one sentinel of a table, with what the scheduler needs.
type member struct {
	ID    string        `json:"id"`
	Every time.Duration `json:"every"`
}

func (g *group) table(key string) *table {
	for _, t := range g.Tables {
		if t.Spec.tableKey() == key {
			return t
		}
	}
	return nil
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
	if err := json.Unmarshal(b, v); err != nil {
		return false, fmt.Errorf("watch: decode %q: %w", key, err)
	}
	return true, nil
}

func put(b *repo.Batch, key string, v any) error {
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

// scan decodes every value under prefix.
func scan[T any](ctx context.Context, db *repo.DB, prefix string, fn func(key string, v *T) error) error {
	for kv, err := range db.BucketScan(ctx, bucket, prefix) {
		if err != nil {
			return err
		}
		var v T
		if err := json.Unmarshal(kv[1], &v); err != nil {
			return fmt.Errorf("watch: decode %q: %w", kv[0], err)
		}
		if err := fn(string(kv[0]), &v); err != nil {
			return err
		}
	}
	return nil
}
