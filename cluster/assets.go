package cluster

import (
	"context"
	"errors"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
)

// assetAttempts bounds how often Join asks for a bucket or the stream, and
// assetWait how long it waits for each answer. Creating a replicated asset
// needs a stream leader to be elected among the servers; while servers
// start, or on a loaded machine, one request can go unanswered although
// the cluster is healthy, as can requests of several nodes creating the
// same asset at once, and the next one succeeds (the requests are
// idempotent: CreateOrUpdate).
const (
	assetAttempts = 8
	assetWait     = 15 * time.Second
)

// createAsset runs create, each time with a deadline of assetWait, until
// it succeeds, fails for a reason other than a timeout, runs out of
// attempts, or ctx ends.
func createAsset(ctx context.Context, create func(context.Context) error) error {
	var err error
	for range assetAttempts {
		actx, cancel := context.WithTimeout(ctx, assetWait)
		err = create(actx)
		cancel()
		if err == nil || !isTimeout(err) || ctx.Err() != nil {
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

// isTransient reports whether err is what a request meets while a server
// is lost: no answer in time, no server or stream leader to answer, the
// client reconnecting. The same request succeeds once the servers have
// recovered.
func isTransient(err error) bool {
	return isTimeout(err) || errors.Is(err, nats.ErrNoResponders) || errors.Is(err, nats.ErrConnectionReconnecting) ||
		errors.Is(err, jetstream.ErrNoStreamResponse)
}
