package notify

import (
	"context"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/deltaq/deltaq/repo"
)

// bucket is the repository bucket this package owns.
const bucket = "notify"

// Key prefixes inside the bucket (repo/FORMAT.md).
const (
	pendingPrefix = "o"
	deadPrefix    = "x"
	feedPrefix    = "f"
	secretKey     = "secret"
)

// Outbox stores pending deliveries and feed entries in the repository.
type Outbox struct {
	db  *repo.DB
	cfg Config
	// retried, if set, is told of each of Retry's commits: the dead
	// letters it moved. Tests watch Retry's batches with it.
	retried func(moved int)
}

// NewOutbox returns the outbox over db.
func NewOutbox(db *repo.DB, cfg Config) *Outbox { return &Outbox{db: db, cfg: cfg} }

// Config returns the settings the outbox was made with.
func (o *Outbox) Config() Config { return o.cfg }

// delivery is one notification on its way to one target.
type delivery struct {
	N        Notification `json:"n"`
	Target   Target       `json:"target"`
	Index    int          `json:"index"` // the target's position in N.Targets
	Attempts int          `json:"attempts"`
	LastErr  string       `json:"last_err,omitempty"`
	Due      time.Time    `json:"due"`
	key      string
}

// stamp is a fixed-width, order-preserving rendering of a time for keys.
func stamp(t time.Time) string { return fmt.Sprintf("%016x", uint64(t.UnixNano())) }

func pendingKey(due time.Time, id string, index int) string {
	return pendingPrefix + stamp(due) + "/" + id + "/" + strconv.Itoa(index)
}

func feedKey(feed string, at time.Time, id string) string {
	return feedPrefix + feed + "\x00" + stamp(at) + "/" + id
}

// Enqueue adds n's deliveries and feed entries to b. They become durable
// with everything else b holds when b commits: the change and its
// notification are one atomic write. n.ID must be set.
func (o *Outbox) Enqueue(b *repo.Batch, n *Notification) error {
	if n.ID == "" || strings.ContainsAny(n.ID, "/\x00") {
		return fmt.Errorf("notify: notification id %q: must be non-empty without '/' or NUL", n.ID)
	}
	for i, t := range n.Targets {
		if t.Kind == Feed {
			continue
		}
		d := delivery{N: *n, Target: t, Index: i, Due: n.At}
		v, err := json.Marshal(&d)
		if err != nil {
			return fmt.Errorf("notify: encode delivery %s: %w", n.ID, err)
		}
		if err := b.PutBucket(bucket, pendingKey(d.Due, n.ID, i), v); err != nil {
			return err
		}
	}
	if len(n.Feeds) > 0 {
		v, err := json.Marshal(n)
		if err != nil {
			return fmt.Errorf("notify: encode feed entry %s: %w", n.ID, err)
		}
		for _, f := range n.Feeds {
			if f == "" || strings.Contains(f, "\x00") {
				return fmt.Errorf("notify: feed name %q: must be non-empty without NUL", f)
			}
			if err := b.PutBucket(bucket, feedKey(f, n.At, n.ID), v); err != nil {
				return err
			}
		}
	}
	return nil
}

// due returns up to limit deliveries due at now, earliest first, and the
// due time of the next one after them (zero if none).
func (o *Outbox) due(ctx context.Context, now time.Time, limit int) ([]delivery, time.Time, error) {
	var out []delivery
	for kv, err := range o.db.BucketScan(ctx, bucket, pendingPrefix) {
		if err != nil {
			return nil, time.Time{}, err
		}
		var d delivery
		if err := json.Unmarshal(kv[1], &d); err != nil {
			return nil, time.Time{}, fmt.Errorf("notify: decode delivery %q: %w", kv[0], err)
		}
		if d.Due.After(now) || len(out) == limit {
			return out, d.Due, nil
		}
		d.key = string(kv[0])
		out = append(out, d)
	}
	return out, time.Time{}, nil
}

// Pending counts the deliveries in the outbox.
func (o *Outbox) Pending(ctx context.Context) (int, error) { return o.count(ctx, pendingPrefix) }

// Dead counts the dead-lettered deliveries.
func (o *Outbox) Dead(ctx context.Context) (int, error) { return o.count(ctx, deadPrefix) }

func (o *Outbox) count(ctx context.Context, prefix string) (int, error) {
	n := 0
	for _, err := range o.db.BucketScan(ctx, bucket, prefix) {
		if err != nil {
			return n, err
		}
		n++
	}
	return n, nil
}

// done removes a delivered delivery.
func (o *Outbox) done(ctx context.Context, d *delivery) error {
	b := o.db.NewBatch(ctx)
	defer b.Close()
	if err := b.DeleteBucket(bucket, d.key); err != nil {
		return err
	}
	return b.Commit()
}

// failed records a failed attempt: the delivery moves to its next due
// time, or to the dead-letter list after Config.MaxAttempts attempts.
func (o *Outbox) failed(ctx context.Context, d *delivery, now time.Time, cause error) (dead bool, err error) {
	d.Attempts++
	d.LastErr = cause.Error()
	b := o.db.NewBatch(ctx)
	defer b.Close()
	if err := b.DeleteBucket(bucket, d.key); err != nil {
		return false, err
	}
	key := ""
	if d.Attempts >= o.cfg.MaxAttempts {
		dead = true
		key = deadPrefix + d.N.ID + "/" + strconv.Itoa(d.Index)
	} else {
		d.Due = now.Add(o.backoff(d.Attempts))
		key = pendingKey(d.Due, d.N.ID, d.Index)
	}
	v, err := json.Marshal(d)
	if err != nil {
		return false, fmt.Errorf("notify: encode delivery %s: %w", d.N.ID, err)
	}
	if err := b.PutBucket(bucket, key, v); err != nil {
		return false, err
	}
	return dead, b.Commit()
}

// backoff is the wait after the given number of failed attempts:
// BackoffBase·2^(attempts−1), at most BackoffMax. It stops doubling at
// the cap rather than past it, where a large BackoffMax would let the
// wait wrap round to a negative one: a retry at once, again and again.
func (o *Outbox) backoff(attempts int) time.Duration {
	w, most := o.cfg.BackoffBase, o.cfg.BackoffMax
	for i := 1; i < attempts && w < most; i++ {
		if w > most/2 {
			return most
		}
		w *= 2
	}
	return min(w, most)
}

// DeadLetter is a delivery that gave up.
type DeadLetter struct {
	ID       string `json:"id"`
	Target   string `json:"target"`
	Attempts int    `json:"attempts"`
	LastErr  string `json:"last_err"`
}

// DeadLetters lists the dead-letter list.
func (o *Outbox) DeadLetters(ctx context.Context) ([]DeadLetter, error) {
	var out []DeadLetter
	for kv, err := range o.db.BucketScan(ctx, bucket, deadPrefix) {
		if err != nil {
			return nil, err
		}
		var d delivery
		if err := json.Unmarshal(kv[1], &d); err != nil {
			return nil, fmt.Errorf("notify: decode dead letter %q: %w", kv[0], err)
		}
		out = append(out, DeadLetter{ID: d.N.ID, Target: d.Target.String(), Attempts: d.Attempts, LastErr: d.LastErr})
	}
	return out, nil
}

// Retry moves every dead letter back to the outbox, due at now, with its
// attempts reset, and returns how many it moved. It commits every
// Config.Batch letters, so its memory does not grow with the list. Each
// letter leaves the list in the batch that queues it: a crash part-way
// leaves each one dead or queued, never both nor neither, and the next
// Retry moves the rest.
func (o *Outbox) Retry(ctx context.Context, now time.Time) (int, error) {
	b := o.db.NewBatch(ctx)
	defer func() { b.Close() }()
	moved, inBatch := 0, 0
	for kv, err := range o.db.BucketScan(ctx, bucket, deadPrefix) {
		if err != nil {
			return moved, err
		}
		var d delivery
		if err := json.Unmarshal(kv[1], &d); err != nil {
			return moved, fmt.Errorf("notify: decode dead letter %q: %w", kv[0], err)
		}
		d.Attempts, d.Due = 0, now
		v, err := json.Marshal(&d)
		if err != nil {
			return moved, err
		}
		if err := b.DeleteBucket(bucket, string(kv[0])); err != nil {
			return moved, err
		}
		if err := b.PutBucket(bucket, pendingKey(now, d.N.ID, d.Index), v); err != nil {
			return moved, err
		}
		if inBatch++; inBatch == o.cfg.Batch {
			if err := o.commitRetried(b, inBatch); err != nil {
				return moved, err
			}
			moved += inBatch
			b.Close()
			b, inBatch = o.db.NewBatch(ctx), 0
		}
	}
	if err := o.commitRetried(b, inBatch); err != nil {
		return moved, err
	}
	return moved + inBatch, nil
}

// commitRetried commits b, which moved n dead letters.
func (o *Outbox) commitRetried(b *repo.Batch, n int) error {
	if n == 0 {
		return nil
	}
	if err := b.Commit(); err != nil {
		return err
	}
	if o.retried != nil {
		o.retried(n)
	}
	return nil
}

// secret returns the webhook signing key, making it on first use.
func (o *Outbox) secret(ctx context.Context, make func() ([]byte, error)) ([]byte, error) {
	v, _, err := o.db.BucketOrCreate(ctx, bucket, secretKey, make)
	if err != nil {
		return nil, fmt.Errorf("notify: webhook secret: %w", err)
	}
	return v, nil
}
