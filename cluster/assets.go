package cluster

import (
	"context"
	"errors"
	"fmt"
	"net"
	"sync"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
)

// connect connects to the cluster's NATS servers at url as a client named
// name, with opts, and opens JetStream on the connection, whose requests
// time out after apiTimeout unless their context ends first. An error
// names the setting, cluster.url, and why the servers could not be
// reached.
func connect(url, name string, opts ...nats.Option) (*nats.Conn, jetstream.JetStream, error) {
	d := &recordingDialer{d: net.Dialer{Timeout: nats.GetDefaultOptions().Timeout}}
	nc, err := nats.Connect(url, append([]nats.Option{nats.Name(name), nats.SetCustomDialer(d)}, opts...)...)
	if err != nil {
		if last := d.lastErr(); last != nil && errors.Is(err, nats.ErrNoServers) {
			// NATS answers "no servers available" for a refused
			// connection; the dial error says which address and why.
			err = fmt.Errorf("%w: %w", last, err)
		}
		return nil, nil, fmt.Errorf("cluster.url: connect %s: %w", url, err)
	}
	// A publish whose confirmation never comes (its reply lost) fails
	// after the same time as a request, and is sent again.
	js, err := jetstream.New(nc, jetstream.WithDefaultTimeout(apiTimeout), jetstream.WithPublishAsyncTimeout(apiTimeout))
	if err != nil {
		nc.Close()
		return nil, nil, fmt.Errorf("cluster: jetstream: %w", err)
	}
	return nc, js, nil
}

// recordingDialer dials as NATS does by default (a TCP connection within
// its default timeout) and keeps the last failure, which nats.Connect
// replaces with ErrNoServers when a server refuses the connection.
type recordingDialer struct {
	d    net.Dialer
	mu   sync.Mutex
	last error
}

func (r *recordingDialer) Dial(network, address string) (net.Conn, error) {
	c, err := r.d.Dial(network, address)
	if err != nil {
		r.mu.Lock()
		r.last = err
		r.mu.Unlock()
	}
	return c, err
}

func (r *recordingDialer) lastErr() error {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.last
}

// assetAttempts bounds how often Join asks for a bucket or the stream, and
// assetWait how long it waits for each answer. Creating a replicated asset
// needs a stream leader to be elected among the servers; while servers
// start, or on a loaded machine, one request can go unanswered although
// the cluster is healthy, as can requests of several nodes creating the
// same asset at once, and the next one succeeds (the requests are
// idempotent: CreateOrUpdate). A server whose cluster is still forming
// answers at once that it cannot yet (notReady); Join asks again every
// assetPause, within the time assetAttempts unanswered requests take.
const (
	assetAttempts = 8
	assetWait     = 15 * time.Second
	assetPause    = 500 * time.Millisecond
)

// createAsset runs create, each time with a deadline of assetWait, until
// it succeeds, fails for a reason other than a timeout or a cluster not
// ready yet, runs out of attempts or of assetAttempts·assetWait, or ctx
// ends.
func createAsset(ctx context.Context, create func(context.Context) error) error {
	return askAsset(ctx, create, notReady)
}

// useAsset runs use, a read or a write of a bucket just created, as
// createAsset runs create. The bucket's replicas may not answer yet: no
// responders to a read, no response from the stream to a write, which it
// also waits out; createAsset does not, as a server without JetStream
// answers the same.
func useAsset(ctx context.Context, use func(context.Context) error) error {
	return askAsset(ctx, use, func(err error) bool {
		return notReady(err) || errors.Is(err, nats.ErrNoResponders) || errors.Is(err, jetstream.ErrNoStreamResponse)
	})
}

// askAsset is createAsset and useAsset, asking again after a pause when
// notReady(err).
func askAsset(ctx context.Context, ask func(context.Context) error, notReady func(error) bool) error {
	ctx, cancel := context.WithTimeout(ctx, assetAttempts*assetWait)
	defer cancel()
	var err error
	for attempt := 0; attempt < assetAttempts; {
		actx, cancelAttempt := context.WithTimeout(ctx, assetWait)
		err = ask(actx)
		cancelAttempt()
		switch {
		case err == nil || ctx.Err() != nil:
			return err
		case isTimeout(err):
			attempt++
		case notReady(err):
			select {
			case <-ctx.Done():
				return err
			case <-time.After(assetPause):
			}
		default:
			return err
		}
	}
	return err
}

// createBucket creates (or opens) the key-value bucket of kcfg (its
// name, TTL and history; the others are the cluster's replicas, on disk),
// asking as createAsset does.
func createBucket(ctx context.Context, js jetstream.JetStream, cfg Config, kcfg jetstream.KeyValueConfig) (jetstream.KeyValue, error) {
	kcfg.Replicas, kcfg.Storage = cfg.Replicas, jetstream.FileStorage
	var kv jetstream.KeyValue
	err := createAsset(ctx, func(ctx context.Context) (err error) {
		kv, err = js.CreateOrUpdateKeyValue(ctx, kcfg)
		return err
	})
	if err != nil {
		return nil, assetError(cfg, "bucket "+kcfg.Bucket, err)
	}
	return kv, nil
}

// assetError is the error of creating asset (a bucket or the stream).
// A server that runs alone refuses to keep more than one copy (10074,
// "replicas > 1 not supported in non-clustered mode"): the error then
// names the setting that asked for them.
func assetError(cfg Config, asset string, err error) error {
	var api *jetstream.APIError
	if errors.As(err, &api) && api.ErrorCode == 10074 {
		return fmt.Errorf("cluster: %s: cluster.replicas = %d: the NATS server at %s runs alone and keeps one copy (set cluster.replicas: 1 for a single server): %w",
			asset, cfg.Replicas, cfg.URL, err)
	}
	return fmt.Errorf("cluster: %s: %w", asset, err)
}

// notReady reports whether err is what a JetStream server answers while
// its cluster forms: no meta leader yet (10008, "JetStream system
// temporarily unavailable"), or not yet enough servers known to place the
// replicas (10005, "no suitable peers for placement").
func notReady(err error) bool {
	var api *jetstream.APIError
	return errors.As(err, &api) && (api.ErrorCode == 10008 || api.ErrorCode == 10005)
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
