package cluster

import (
	"context"
	"errors"
	"fmt"
	"slices"

	"github.com/nats-io/nats.go/jetstream"
)

// errListCut is a key listing that ended before the bucket's last key.
var errListCut = errors.New("listing cut short")

// listKeys lists the keys of kv, sorted, all of them or an error. jetstream's Keys
// returns what it had read, with no error, when its watcher's subscription
// closes early (its context ending, the connection lost): a heartbeat list
// missing a busy node made another node take the cluster for idle and end
// its crawl, and too short a list makes a node aim at too many shards.
func listKeys(ctx context.Context, kv jetstream.KeyValue) ([]string, error) {
	w, err := kv.WatchAll(ctx, jetstream.IgnoreDeletes(), jetstream.MetaOnly())
	if err != nil {
		return nil, err
	}
	defer w.Stop()
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
		case <-ctx.Done():
			return nil, fmt.Errorf("%w: %w", errListCut, ctx.Err())
		}
	}
}
