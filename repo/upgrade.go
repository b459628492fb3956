package repo

import (
	"context"
	"errors"
)

// Upgrade brings a repository written before the layout that mark (a key
// of bucket) marks up to date, once: unless the bucket holds mark, update
// writes through batch(), calling done after each unit of work, and every
// per units are committed (each commit is synced). mark is set in the last
// batch, so a crash before it redoes the update, which must come out the
// same again. A package moving its own data to a new layout at open calls
// it with its bucket.
func (db *DB) Upgrade(ctx context.Context, bucket, mark string, per int, update func(batch func() *Batch, done func() error) error) error {
	if _, err := db.Bucket(bucket, mark); !errors.Is(err, ErrNotFound) {
		return err
	}
	b := db.NewBatch(ctx)
	defer func() { b.Close() }()
	n := 0
	done := func() error {
		if n++; n%per != 0 {
			return nil
		}
		if err := b.Commit(); err != nil {
			return err
		}
		b = db.NewBatch(ctx)
		return nil
	}
	if err := update(func() *Batch { return b }, done); err != nil {
		return err
	}
	if err := b.PutBucket(bucket, mark, []byte{1}); err != nil {
		return err
	}
	return b.Commit()
}
