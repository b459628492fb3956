package cluster

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"testing"
	"testing/synctest"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
)

func TestAskAssetRetriesOnlyTimeoutsAndAClusterForming(t *testing.T) {
	other := errors.New("stream name already in use with a different configuration")
	noLeader := &jetstream.APIError{Code: 503, ErrorCode: 10008, Description: "JetStream system temporarily unavailable"}
	noPeers := &jetstream.APIError{Code: 400, ErrorCode: 10005, Description: "no suitable peers for placement"}
	noReplicas := &jetstream.APIError{Code: 500, ErrorCode: 10074, Description: "replicas > 1 not supported in non-clustered mode"}
	forming := slices.Repeat([]error{noPeers}, 1000)
	cases := []struct {
		name      string
		errs      []error // what each attempt returns; nil after the list
		cancel    bool
		use       bool // useAsset, not createAsset
		wantCalls int  // 0: not checked
		wantErr   error
		wantTook  time.Duration
	}{
		{"a first success is one call", nil, false, false, 1, nil, 0},
		{"a timeout is asked again", []error{context.DeadlineExceeded}, false, false, 2, nil, 0},
		{"a wrapped NATS timeout is asked again", []error{fmt.Errorf("kv: %w", nats.ErrTimeout), nats.ErrTimeout}, false, false, 3, nil, 0},
		{"another error is final", []error{other}, false, false, 1, other, 0},
		{"timeouts stop after the last attempt", slices.Repeat([]error{nats.ErrTimeout}, assetAttempts+1), false, false, assetAttempts, nats.ErrTimeout, 0},
		{"a cancelled context stops the asking", []error{nats.ErrTimeout, nats.ErrTimeout}, true, false, 1, nats.ErrTimeout, 0},
		{"a cluster forming is asked again after a pause", []error{noLeader, fmt.Errorf("stream: %w", noPeers)}, false, false, 3, nil, 2 * assetPause},
		{"another API error is final", []error{noReplicas}, false, false, 1, noReplicas, 0},
		{"a cluster that does not form is asked until the time runs out", forming, false, false, 0, noPeers, assetAttempts * assetWait},
		// A server without JetStream has no responders for a creation.
		{"no responders to a creation is final", []error{nats.ErrNoResponders}, false, false, 1, nats.ErrNoResponders, 0},
		// A bucket just created, its replicas not yet answering.
		{"no responders to a read is asked again after a pause", []error{nats.ErrNoResponders, nats.ErrNoResponders}, false, true, 3, nil, 2 * assetPause},
		{"no response to a write is asked again after a pause", []error{fmt.Errorf("kv: %w", jetstream.ErrNoStreamResponse)}, false, true, 2, nil, assetPause},
		{"a read's timeout is asked again", []error{nats.ErrTimeout}, false, true, 2, nil, 0},
		{"a key not found is a read's answer", []error{jetstream.ErrKeyNotFound}, false, true, 1, jetstream.ErrKeyNotFound, 0},
		{"a key that exists is a write's answer", []error{jetstream.ErrKeyExists}, false, true, 1, jetstream.ErrKeyExists, 0},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				ctx, cancel := context.WithCancel(t.Context())
				defer cancel()
				if c.cancel {
					cancel()
				}
				calls, start := 0, time.Now()
				ask := createAsset
				if c.use {
					ask = useAsset
				}
				err := ask(ctx, func(context.Context) error {
					calls++
					if calls <= len(c.errs) {
						return c.errs[calls-1]
					}
					return nil
				})
				if (c.wantCalls > 0 && calls != c.wantCalls) || !errors.Is(err, c.wantErr) || (c.wantErr == nil && err != nil) {
					t.Fatalf("%d calls, err %v; want %d calls, err %v", calls, err, c.wantCalls, c.wantErr)
				}
				if took := time.Since(start); took != c.wantTook {
					t.Fatalf("took %v, want %v", took, c.wantTook)
				}
			})
		})
	}
}
