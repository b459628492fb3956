package cluster

import (
	"context"
	"errors"

	"github.com/nats-io/nats.go"
)

// assetAttempts bounds how often Join asks for a bucket or the stream.
// Creating a replicated asset needs a stream leader to be elected among the
// servers; while servers start, or on a loaded machine, one request can
// time out although the cluster is healthy and the next one succeeds (the
// requests are idempotent: CreateOrUpdate).
const assetAttempts = 4

// createAsset runs create until it succeeds, fails for a reason other than
// a timeout, runs out of attempts, or ctx ends.
func createAsset(ctx context.Context, create func() error) error {
	var err error
	for range assetAttempts {
		if err = create(); err == nil || !isTimeout(err) || ctx.Err() != nil {
			return err
		}
	}
	return err
}

// isTimeout reports whether err is a JetStream API request that got no
// answer in time.
func isTimeout(err error) bool {
	return errors.Is(err, context.DeadlineExceeded) || errors.Is(err, nats.ErrTimeout)
}
