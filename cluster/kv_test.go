package cluster

import (
	"context"
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
