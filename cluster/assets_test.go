package cluster

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"testing"

	"github.com/nats-io/nats.go"
)

func TestCreateAssetRetriesOnlyTimeouts(t *testing.T) {
	other := errors.New("stream name already in use with a different configuration")
	cases := []struct {
		name      string
		errs      []error // what each attempt returns; nil after the list
		cancel    bool
		wantCalls int
		wantErr   error
	}{
		{"a first success is one call", nil, false, 1, nil},
		{"a timeout is asked again", []error{context.DeadlineExceeded}, false, 2, nil},
		{"a wrapped NATS timeout is asked again", []error{fmt.Errorf("kv: %w", nats.ErrTimeout), nats.ErrTimeout}, false, 3, nil},
		{"another error is final", []error{other}, false, 1, other},
		{"timeouts stop after the last attempt", slices.Repeat([]error{nats.ErrTimeout}, assetAttempts+1), false, assetAttempts, nats.ErrTimeout},
		{"a cancelled context stops the asking", []error{nats.ErrTimeout, nats.ErrTimeout}, true, 1, nats.ErrTimeout},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			ctx, cancel := context.WithCancel(t.Context())
			defer cancel()
			if c.cancel {
				cancel()
			}
			calls := 0
			err := createAsset(ctx, func(context.Context) error {
				calls++
				if calls <= len(c.errs) {
					return c.errs[calls-1]
				}
				return nil
			})
			if calls != c.wantCalls || !errors.Is(err, c.wantErr) || (c.wantErr == nil && err != nil) {
				t.Fatalf("%d calls, err %v; want %d calls, err %v", calls, err, c.wantCalls, c.wantErr)
			}
		})
	}
}
