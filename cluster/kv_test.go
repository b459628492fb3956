package cluster

import (
	"context"
	"errors"
	"slices"
	"strconv"
	"testing"
	"time"

	"github.com/nats-io/nats.go/jetstream"

	"github.com/deltaq/deltaq/cluster/natstest"
)

// TestListKeysIsCompleteOrFails lists a bucket of 3,000 keys under
// deadlines that end mid-listing: every listing is either the whole
// bucket or an error, never the part read before the deadline (what
// jetstream's Keys returns, with no error).
func TestListKeysIsCompleteOrFails(t *testing.T) {
	js := natstest.Start(t, 1).JetStream(t)
	kv, err := js.CreateKeyValue(t.Context(), jetstream.KeyValueConfig{Bucket: "keys"})
	if err != nil {
		t.Fatal(err)
	}
	const n = 3000
	for i := range n {
		if _, err := kv.Put(t.Context(), "k"+strconv.Itoa(i), nil); err != nil {
			t.Fatal(err)
		}
	}
	complete, cut := 0, 0
	for d := 100 * time.Microsecond; d < 2*time.Second; d = d * 3 / 2 {
		ctx, cancel := context.WithTimeout(t.Context(), d)
		keys, err := listKeys(ctx, kv)
		cancel()
		switch {
		case err != nil:
			cut++
		case len(keys) != n:
			t.Fatalf("a listing with a %v deadline returned %d of %d keys and no error", d, len(keys), n)
		default:
			complete++
		}
	}
	t.Logf("%d listings complete, %d cut short with an error", complete, cut)
	if complete == 0 {
		t.Fatal("no listing completed, even with the longest deadline")
	}
}

// TestAStalledListingStartsAgain: a watch whose end-of-keys mark never
// comes (jetstream's watcher waits forever for a key that expired after
// the watch began, which a test cannot time on purpose, so the mark is
// withheld here) is given up after listStall and the listing started
// again; when every watch stalls, the listing fails, long before its
// context ends.
func TestAStalledListingStartsAgain(t *testing.T) {
	js := natstest.Start(t, 1).JetStream(t)
	kv, err := js.CreateKeyValue(t.Context(), jetstream.KeyValueConfig{Bucket: "keys"})
	if err != nil {
		t.Fatal(err)
	}
	for _, k := range []string{"b", "a", "c"} {
		if _, err := kv.Put(t.Context(), k, nil); err != nil {
			t.Fatal(err)
		}
	}
	defer func(stall time.Duration) { listStall = stall }(listStall)
	listStall = 200 * time.Millisecond
	ctx, cancel := context.WithTimeout(t.Context(), time.Minute)
	defer cancel()

	once := &stallingKV{KeyValue: kv, stalls: 1}
	keys, err := listKeys(ctx, once)
	if err != nil || !slices.Equal(keys, []string{"a", "b", "c"}) {
		t.Fatalf("one stalled watch: keys %v, err %v; want [a b c] from the second", keys, err)
	}
	if once.watches != 2 {
		t.Errorf("one stalled watch: %d watches, want 2", once.watches)
	}

	always := &stallingKV{KeyValue: kv, stalls: listTries + 1}
	keys, err = listKeys(ctx, always)
	if !errors.Is(err, errListStalled) || ctx.Err() != nil {
		t.Fatalf("every watch stalled: keys %v, err %v (context: %v); want errListStalled before the context ends", keys, err, ctx.Err())
	}
	if always.watches != listTries {
		t.Errorf("every watch stalled: %d watches, want %d", always.watches, listTries)
	}
}

// stallingKV is a bucket whose first stalls watches deliver every key but
// never the end-of-keys mark.
type stallingKV struct {
	jetstream.KeyValue
	stalls, watches int
}

func (s *stallingKV) WatchAll(ctx context.Context, opts ...jetstream.WatchOpt) (jetstream.KeyWatcher, error) {
	s.watches++
	w, err := s.KeyValue.WatchAll(ctx, opts...)
	if err != nil || s.watches > s.stalls {
		return w, err
	}
	out := make(chan jetstream.KeyValueEntry)
	go func() {
		for e := range w.Updates() {
			if e != nil {
				out <- e
			}
		}
	}()
	return withholdingWatcher{w, out}, nil
}

type withholdingWatcher struct {
	jetstream.KeyWatcher
	updates chan jetstream.KeyValueEntry
}

func (w withholdingWatcher) Updates() <-chan jetstream.KeyValueEntry { return w.updates }
