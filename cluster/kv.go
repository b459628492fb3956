package cluster

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"time"

	"github.com/nats-io/nats.go/jetstream"
)

// errListCut is a key listing that ended before the bucket's last key.
var errListCut = errors.New("listing cut short")

// errListStalled is a listing whose watch went listStall without a key,
// listTries times.
var errListStalled = fmt.Errorf("%w: the watch stalled", errListCut)

// A listing waits at most listStall for the watch's next key, and then
// starts again, listTries times in all. jetstream's watcher marks the end
// of the keys present when it began by counting them, and one that is
// gone before it is delivered (a heartbeat reaching its TTL mid-listing)
// would be waited for forever: a node's heartbeat loop, and `deltaq
// cluster status`, hung there.
var (
	listStall = 5 * time.Second
	listTries = 3
)

// listKeys lists the keys of kv, sorted, all of them or an error. jetstream's Keys
// returns what it had read, with no error, when its watcher's subscription
// closes early (its context ending, the connection lost): a heartbeat list
// missing a busy node made another node take the cluster for idle and end
// its crawl, and too short a list makes a node aim at too many shards.
func listKeys(ctx context.Context, kv jetstream.KeyValue) ([]string, error) {
	for try := 1; ; try++ {
		keys, err := listKeysOnce(ctx, kv)
		if !errors.Is(err, errListStalled) || try == listTries {
			return keys, err
		}
	}
}

// listKeysOnce is one listing of listKeys.
func listKeysOnce(ctx context.Context, kv jetstream.KeyValue) ([]string, error) {
	w, err := kv.WatchAll(ctx, jetstream.IgnoreDeletes(), jetstream.MetaOnly())
	if err != nil {
		return nil, err
	}
	defer w.Stop()
	stall := time.NewTimer(listStall)
	defer stall.Stop()
	var keys []string
	for {
		select {
		case e, ok := <-w.Updates():
			switch {
			case !ok:
				if ctx.Err() != nil {
					return nil, fmt.Errorf("%w: %w", errListCut, ctx.Err())
				}
				return nil, errListCut
			case e == nil: // every key present when the watch began has come
				slices.Sort(keys)
				return slices.Compact(keys), nil
			}
			keys = append(keys, e.Key())
			stall.Reset(listStall)
		case <-stall.C:
			return nil, errListStalled
		case <-ctx.Done():
			return nil, fmt.Errorf("%w: %w", errListCut, ctx.Err())
		}
	}
}
