package cluster

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
	"golang.org/x/sync/errgroup"

	"github.com/deltaq/deltaq/crawler"
	"github.com/deltaq/deltaq/frontier"
	"github.com/deltaq/deltaq/internal/clock"
	"github.com/deltaq/deltaq/internal/urlnorm"
	"github.com/deltaq/deltaq/repo"
)

// The stream of handed-over URLs: one subject per shard, kept until the
// shard's owner acknowledges (work-queue retention).
const (
	linkStream  = "DELTAQ_LINKS"
	linkSubject = "deltaq.links."
)

// errDuplicateInProcess is JetStream's answer to a message whose ID a
// replicated stream is storing for another publisher at that moment:
// deduplication, seen from the second publisher.
const errDuplicateInProcess jetstream.ErrorCode = 10158

// duplicateInProcess reports whether err is errDuplicateInProcess.
func duplicateInProcess(err error) bool {
	var apiErr *jetstream.APIError
	return errors.As(err, &apiErr) && apiErr.ErrorCode == errDuplicateInProcess
}

// apiTimeout bounds a JetStream request made without a deadline of its
// own. Creating a replicated stream or bucket waits for its servers to
// agree: seconds on a loaded machine, once more than 30 s (the client's
// default is 5 s).
const apiTimeout = time.Minute

// handoffBuffer bounds the URLs waiting to be published; the crawler's
// writer waits when it is full.
const handoffBuffer = 4096

// Options are the non-configuration inputs of Join.
type Options struct {
	Clock  clock.Clock // nil means the wall clock
	Logger *slog.Logger
	// Repo is the node's repository, which Run needs: a handed-over URL
	// already fetched here is acknowledged at once, not held. A node may
	// join first and give it with UseRepo before Run.
	Repo *repo.DB
	// DrainHorizon: a node whose queued work is due no sooner than this
	// reports itself idle (crawler.RunOptions.DrainHorizon); 0 means
	// LeaseTTL.
	DrainHorizon time.Duration
}

// Member is one node's part in a cluster: the shard leases it holds, the
// URLs its crawler hands to other shards, and the URLs other nodes hand to
// its shards. Its Route and Handoff go into crawler.Options.
type Member struct {
	cfg    Config
	nc     *nats.Conn
	js     jetstream.JetStream
	leases *Leases
	logger *slog.Logger
	// out holds, in order, the handoffs to publish and the messages to
	// acknowledge after them (publish).
	out   chan outItem
	done  chan struct{} // closed when Run's context ends: Handoff and fetched stop waiting
	stats Stats
	// drainHorizon is Options.DrainHorizon.
	drainHorizon time.Duration
	db           *repo.DB
	// held maps each URL admitted from the stream and not yet fetched to
	// its message, acknowledged once the fetch commits (fetched).
	held struct {
		sync.Mutex
		m map[string]delivery
	}
	// acks are the messages to acknowledge, confirmed by the server (ack);
	// ackSlots holds one token per acknowledgement not yet confirmed.
	acks     chan delivery
	ackSlots chan struct{}
	// busy counts handed-over URLs taken from out or from the stream and
	// not yet published or committed, for Pending.
	busy atomic.Int64
	// crawling is set once WaitNodes has returned: the node's heartbeat
	// tells a node waiting for the cluster that the crawl has begun.
	crawling atomic.Bool
	// consumers maps each shard whose subject this node consumes to the
	// generation of its consumer, new each time the consumer is created
	// (a delivery carries it: an acknowledgement reaches only the
	// consumer that delivered the message).
	consumers struct {
		sync.Mutex
		gen  map[int]uint64
		last uint64
	}
	// budget, set by Budget, divides the cluster's budget (budget.go).
	budget *nodeBudget
}

// Stats count a member's coordination traffic; they only grow.
type Stats struct {
	Published  atomic.Int64 // handoffs published to another shard's subject
	Bytes      atomic.Int64 // their payload bytes
	Duplicates atomic.Int64 // of those, dropped by JetStream deduplication
	Received   atomic.Int64 // handoffs taken from this node's shards
	Admitted   atomic.Int64 // of those, new to this node's repository
	Lost       atomic.Int64 // handoffs dropped because Run had ended
	// StaleAcks counts the fetched URLs whose messages were not
	// acknowledged because the consumer that delivered them was gone.
	StaleAcks atomic.Int64
}

// Join connects to the cluster's NATS servers and creates (or opens) its
// buckets and stream. The member holds no shard until Run takes leases.
func Join(ctx context.Context, cfg Config, opts Options) (*Member, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	clk := opts.Clock
	if clk == nil {
		clk = clock.Real{}
	}
	logger := opts.Logger
	if logger == nil {
		logger = slog.New(slog.DiscardHandler)
	}
	nc, js, err := connect(cfg.URL, "deltaq-"+cfg.Node, nats.MaxReconnects(-1))
	if err != nil {
		return nil, err
	}
	m := &Member{cfg: cfg, nc: nc, js: js, logger: logger.With("component", "cluster", "node", cfg.Node),
		out: make(chan outItem, handoffBuffer), done: make(chan struct{}), drainHorizon: opts.DrainHorizon, db: opts.Repo}
	m.held.m = map[string]delivery{}
	m.consumers.gen = map[int]uint64{}
	m.acks, m.ackSlots = make(chan delivery), make(chan struct{}, AckBacklog)
	if m.drainHorizon <= 0 {
		m.drainHorizon = cfg.LeaseTTL
	}
	if m.leases, err = newLeases(ctx, m.js, cfg, clk, m.logger); err != nil {
		nc.Close()
		return nil, err
	}
	err = createAsset(ctx, func(ctx context.Context) error {
		_, err := m.js.CreateOrUpdateStream(ctx, jetstream.StreamConfig{
			Name: linkStream, Subjects: []string{linkSubject + "*"}, Retention: jetstream.WorkQueuePolicy,
			Storage: jetstream.FileStorage, Replicas: cfg.Replicas, Duplicates: cfg.Dedup,
		})
		return err
	})
	if err != nil {
		nc.Close()
		return nil, assetError(cfg, "stream "+linkStream, err)
	}
	return m, nil
}

// Close disconnects from the servers.
func (m *Member) Close() { m.nc.Close() }

// UseRepo gives Run the node's repository (Options.Repo), for a node that
// joins before it opens it: a cluster it cannot reach then leaves nothing
// on disk. It must be called before Run.
func (m *Member) UseRepo(db *repo.DB) { m.db = db }

// Leases are the member's shard leases.
func (m *Member) Leases() *Leases { return m.leases }

// Stats are the member's counters.
func (m *Member) Stats() *Stats { return &m.stats }

// Route reports whether this node owns the shard of url's host now: the
// crawler.Options.Route of a cluster node.
func (m *Member) Route(url string) bool {
	return m.leases.Owns(ShardOf(urlnorm.Host(url), m.cfg.Shards))
}

// CrawlerOptions are the crawler.Options of a cluster node: Route,
// Handoff and RouteWait, and every new URL through the stream (HandOwn)
// with its message acknowledged once fetched (OnFetched).
func (m *Member) CrawlerOptions() crawler.Options {
	return crawler.Options{Route: m.Route, Handoff: m.Handoff, RouteWait: m.RouteWait(), HandOwn: true, OnFetched: m.fetched}
}

// outItem is a handoff to publish or, after those queued before it, a
// message to acknowledge.
type outItem struct {
	h   crawler.Handoff
	ack *delivery
}

// fetched acknowledges the messages of urls, whose fetches committed: the
// stream forgets them, and a node taking the shard over will not fetch
// them again. The acknowledgements follow the URLs the same fetches found
// (handed over before, in the same queue), so that a node killed between
// the two loses neither. It waits while AckBacklog acknowledgements are
// unconfirmed.
func (m *Member) fetched(urls []string) {
	m.held.Lock()
	defer m.held.Unlock()
	for _, u := range urls {
		msg, ok := m.held.m[u]
		if !ok {
			continue
		}
		delete(m.held.m, u)
		select {
		case m.ackSlots <- struct{}{}:
		case <-m.done:
			return // redelivered to the next owner, who finds it fetched
		}
		m.busy.Add(1)
		select {
		case m.out <- outItem{ack: &msg}:
		case <-m.done:
			m.busy.Add(-1)
			return
		}
	}
}

// ackers is how many acknowledgements wait for the server's answer at
// once; ackAttempts bounds how often one is sent.
const (
	ackers      = 8
	ackAttempts = 10
)

// AckBacklog bounds the fetched URLs whose acknowledgements are queued or
// waiting for the server: beyond it the crawler's writer waits (fetched),
// so a node killed with kill -9 leaves at most this many pages, plus its
// last commit group, to be fetched again by the node taking over.
const AckBacklog = 72

// ack acknowledges the queued messages (ackOne) until ctx ends.
func (m *Member) ack(ctx context.Context) error {
	for {
		select {
		case <-ctx.Done():
			return nil
		case msg := <-m.acks:
			m.ackOne(ctx, msg)
			<-m.ackSlots
			m.busy.Add(-1)
		}
	}
}

// ackOne acknowledges msg and waits for the confirmation, sending it
// again while the servers cannot answer (a server lost, a consumer
// electing a leader): an acknowledgement lost on the way would leave the
// message in the stream until ackWait, and the crawl unfinished until
// then. It gives up once the consumer that delivered msg is gone (its
// shard let go, or its consumer created anew): the successor of that
// consumer ignores, without an answer, an acknowledgement of a message it
// has not delivered yet, and each attempt would wait out its deadline
// while the crawler's writer waits for a slot (AckBacklog). The message
// goes to its next reader instead.
func (m *Member) ackOne(ctx context.Context, msg delivery) {
	for attempt := 1; ; attempt++ {
		if !m.delivering(msg) {
			m.stats.StaleAcks.Add(1)
			return
		}
		actx, cancel := context.WithTimeout(ctx, publishRetry*5)
		err := msg.DoubleAck(actx)
		cancel()
		if err == nil || errors.Is(err, jetstream.ErrMsgAlreadyAckd) || ctx.Err() != nil {
			return
		}
		if !isTransient(err) || attempt == ackAttempts {
			// The consumer is gone on the servers (recreated by another
			// node): the message goes to its next reader.
			m.logger.Warn("acknowledgement", "subject", msg.Subject(), "err", err)
			return
		}
		if err := m.leases.clock.WaitUntil(ctx, m.leases.clock.Now().Add(publishRetry)); err != nil {
			return
		}
	}
}

// delivery is a message with the shard and the generation of the consumer
// that delivered it.
type delivery struct {
	jetstream.Msg
	shard int
	gen   uint64
}

// consumerStarted records a new consumer of shard s and returns its
// generation; consumerStopped records that s has none.
func (m *Member) consumerStarted(s int) uint64 {
	m.consumers.Lock()
	defer m.consumers.Unlock()
	m.consumers.last++
	m.consumers.gen[s] = m.consumers.last
	return m.consumers.last
}

func (m *Member) consumerStopped(s int) {
	m.consumers.Lock()
	defer m.consumers.Unlock()
	delete(m.consumers.gen, s)
}

// delivering reports whether the consumer that delivered d is still
// this node's consumer of its shard.
func (m *Member) delivering(d delivery) bool {
	m.consumers.Lock()
	defer m.consumers.Unlock()
	return m.consumers.gen[d.shard] == d.gen
}

// RouteWait is how long a crawler puts back a job whose shard this node
// does not hold (the crawler.Options.RouteWait of a cluster node): one
// lease tick, after which the lease is held again or has moved.
func (m *Member) RouteWait() time.Duration { return m.cfg.LeaseTTL / 3 }

// Handoff queues a URL for the shard that owns its host: the
// crawler.Options.Handoff of a cluster node. It waits while the queue is
// full; once Run has ended the URL is dropped and counted as lost.
func (m *Member) Handoff(h crawler.Handoff) {
	select {
	case m.out <- outItem{h: h}:
	case <-m.done:
		m.stats.Lost.Add(1)
	}
}

// Run keeps the leases, publishes handoffs and feeds the URLs handed to
// this node's shards to c and f, until ctx ends. The crawl itself is
// c.Run, beside it.
func (m *Member) Run(ctx context.Context, c *crawler.Crawler, f *frontier.Frontier) error {
	// Closed as soon as ctx ends, not when Run returns: nothing publishes
	// or acknowledges any more, and a crawler's writer waiting to hand a
	// URL over would otherwise hold up the admission Run waits for.
	var once sync.Once
	end := func() { once.Do(func() { close(m.done) }) }
	defer end()
	defer context.AfterFunc(ctx, end)()
	if m.db == nil {
		return errors.New("cluster: Run needs the node's repository (Options.Repo or UseRepo)")
	}
	m.leases.status = m.statusOf(c, f)
	r := newReceiver(m, handoffBuffer)
	defer r.stopAll()
	g, gctx := errgroup.WithContext(ctx)
	// The consumers follow the leases beside the ticks, not inside them: a
	// consumer's creation waiting on a server (a minute at worst, the
	// client's timeout) must not hold up the renewals, or the leases run
	// out and their shards move while this node still works on them.
	ticked := make(chan struct{}, 1)
	g.Go(func() error {
		return m.leases.run(gctx, func() {
			select {
			case ticked <- struct{}{}:
			default: // the follower is behind; it reads the leases afresh
			}
		})
	})
	g.Go(func() error {
		for {
			select {
			case <-gctx.Done():
				return nil
			case <-ticked:
			}
			if err := r.follow(gctx); err != nil && gctx.Err() == nil {
				m.logger.Warn("following the leases", "err", err)
			}
		}
	})
	g.Go(func() error { return m.publish(gctx) })
	g.Go(func() error { return r.admit(gctx, c, f) })
	for range ackers {
		g.Go(func() error { return m.ack(gctx) })
	}
	err := g.Wait()
	if errors.Is(err, context.Canceled) {
		return nil
	}
	return err
}

// publishWindow bounds the handoffs published and not yet confirmed by
// the stream. Waiting for each confirmation before the next publish held a
// node to one handoff per round trip to the stream's replicas, while the
// crawler's writer, and every admission behind it, waited for room in out.
const publishWindow = 256

// publish sends each queued handoff to its shard's subject, its URL as the
// message ID (JetStream drops a second copy within the Dedup window), up to
// publishWindow of them before the oldest is confirmed. A message to
// acknowledge waits until every handoff queued before it is confirmed, so
// a node killed between the two loses neither.
func (m *Member) publish(ctx context.Context) error {
	w := &window{m: m}
	for {
		oks, errs := w.oldest()
		var err error
		select {
		case <-ctx.Done():
			return nil
		case ack := <-oks:
			err = w.settle(ctx, ack, nil)
		case e := <-errs:
			err = w.settle(ctx, nil, e)
		case it := <-m.out:
			if it.ack == nil {
				err = w.send(ctx, it.h)
				break
			}
			if err = w.drain(ctx); err == nil {
				// Counted in busy since fetched; the acker ends that.
				select {
				case m.acks <- *it.ack:
				case <-ctx.Done():
				}
			}
		}
		if err != nil && ctx.Err() == nil {
			return err
		}
	}
}

// window holds the handoffs published and not yet confirmed, oldest
// first, each counted in busy until it is.
type window struct {
	m    *Member
	sent []sent
}

// sent is a handoff in the window, with what settle needs of it.
type sent struct {
	h      crawler.Handoff
	bytes  int
	future jetstream.PubAckFuture
}

// oldest returns the channels the oldest handoff's confirmation or error
// arrives on; nil channels, never ready, when the window is empty.
func (w *window) oldest() (<-chan *jetstream.PubAck, <-chan error) {
	if len(w.sent) == 0 {
		return nil, nil
	}
	return w.sent[0].future.Ok(), w.sent[0].future.Err()
}

// send publishes h without waiting for its confirmation, once the window
// has room.
func (w *window) send(ctx context.Context, h crawler.Handoff) error {
	// Counted in busy from out to its confirmation (settle), or until it
	// leaves here otherwise.
	w.m.busy.Add(1)
	inWindow := false
	defer func() {
		if !inWindow {
			w.m.busy.Add(-1)
		}
	}()
	if len(w.sent) == publishWindow {
		if err := w.await(ctx); err != nil {
			return err
		}
	}
	data, err := json.Marshal(h)
	if err != nil {
		return fmt.Errorf("cluster: encode handoff %s: %w", h.URL, err)
	}
	f, err := w.m.js.PublishAsync(w.m.subjectOf(h.URL), data, jetstream.WithMsgID(h.URL))
	if err != nil {
		// Not sent (the connection down): sent again and again until the
		// servers take it.
		w.m.logger.Warn("publish again", "url", h.URL, "err", err)
		return w.m.publishOne(ctx, h)
	}
	w.sent = append(w.sent, sent{h: h, bytes: len(data), future: f})
	inWindow = true
	return nil
}

// await waits for the oldest handoff's confirmation (settle).
func (w *window) await(ctx context.Context) error {
	oks, errs := w.oldest()
	select {
	case ack := <-oks:
		return w.settle(ctx, ack, nil)
	case err := <-errs:
		return w.settle(ctx, nil, err)
	case <-ctx.Done():
		return ctx.Err()
	}
}

// drain waits until every handoff in the window is confirmed.
func (w *window) drain(ctx context.Context) error {
	for len(w.sent) > 0 {
		if err := w.await(ctx); err != nil {
			return err
		}
	}
	return nil
}

// settle takes the oldest handoff out of the window with its
// confirmation, or sends it again, synchronously, after the error that
// ended its wait (a timeout, the connection lost).
func (w *window) settle(ctx context.Context, ack *jetstream.PubAck, err error) error {
	s := w.sent[0]
	w.sent = w.sent[1:]
	defer w.m.busy.Add(-1)
	switch {
	case err == nil:
		w.m.published(s.bytes, ack.Duplicate)
		return nil
	case duplicateInProcess(err):
		w.m.published(0, true) // another node is storing the same URL
		return nil
	}
	w.m.logger.Warn("publish again", "url", s.h.URL, "err", err)
	return w.m.publishOne(ctx, s.h)
}

// subjectOf is the subject of the shard that owns url's host.
func (m *Member) subjectOf(url string) string {
	return linkSubject + strconv.Itoa(ShardOf(urlnorm.Host(url), m.cfg.Shards))
}

// published counts a handoff the stream confirmed.
func (m *Member) published(bytes int, duplicate bool) {
	m.stats.Published.Add(1)
	m.stats.Bytes.Add(int64(bytes))
	if duplicate {
		m.stats.Duplicates.Add(1)
	}
}

// publishRetry is how long publishOne waits before sending a message
// again after a timeout.
const publishRetry = time.Second

// publishOne publishes h and waits for its confirmation, again and again
// while the servers cannot take it (a server lost, the client
// reconnecting, a stream electing a leader): a copy stored after all is
// dropped by its ID.
func (m *Member) publishOne(ctx context.Context, h crawler.Handoff) error {
	data, err := json.Marshal(h)
	if err != nil {
		return fmt.Errorf("cluster: encode handoff %s: %w", h.URL, err)
	}
	for {
		ack, err := m.js.Publish(ctx, m.subjectOf(h.URL), data, jetstream.WithMsgID(h.URL))
		switch {
		case err == nil:
			m.published(len(data), ack.Duplicate)
			return nil
		case duplicateInProcess(err):
			m.published(0, true) // another node is storing the same URL
			return nil
		case ctx.Err() != nil:
			return nil
		case isTransient(err):
			m.logger.Warn("publish again", "url", h.URL, "err", err)
			if err := m.leases.clock.WaitUntil(ctx, m.leases.clock.Now().Add(publishRetry)); err != nil {
				return nil
			}
		default:
			return fmt.Errorf("cluster: publish %s: %w", h.URL, err)
		}
	}
}

// receiver consumes the subjects of the shards this node owns.
type receiver struct {
	m  *Member
	in chan delivery
	mu sync.Mutex // guards consuming
	// consuming maps an owned shard to its running consumer.
	consuming map[int]jetstream.ConsumeContext
	// orphans counts, per shard, the ticks in a row that its subject held
	// messages while this node held none (see resync).
	orphans map[int]int
}

// newReceiver returns a receiver for m whose deliveries wait, buffered up
// to buf, for admit.
func newReceiver(m *Member, buf int) *receiver {
	return &receiver{m: m, in: make(chan delivery, buf), consuming: map[int]jetstream.ConsumeContext{}, orphans: map[int]int{}}
}

// follow starts consuming the shards just taken and stops those let go;
// it runs after each successful lease tick, beside the next.
func (r *receiver) follow(ctx context.Context) error {
	owned := map[int]bool{}
	for _, s := range r.m.leases.Owned() {
		owned[s] = true
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	for s := range r.consuming {
		if !owned[s] {
			r.stop(s)
		}
	}
	if err := r.resync(ctx); err != nil {
		return err
	}
	for s := range owned {
		if _, ok := r.consuming[s]; ok {
			continue
		}
		// The consumer is created afresh: the messages its previous reader
		// held unacknowledged (a dead node's queue) are delivered at once.
		name := "shard-" + strconv.Itoa(s)
		if err := r.m.js.DeleteConsumer(ctx, linkStream, name); err != nil && !errors.Is(err, jetstream.ErrConsumerNotFound) {
			return fmt.Errorf("cluster: consumer of shard %d: %w", s, err)
		}
		cons, err := r.m.js.CreateOrUpdateConsumer(ctx, linkStream, jetstream.ConsumerConfig{
			Durable: name, FilterSubject: linkSubject + strconv.Itoa(s),
			AckPolicy: jetstream.AckExplicitPolicy, AckWait: ackWait, MaxAckPending: maxHeld,
		})
		if err != nil {
			return fmt.Errorf("cluster: consumer of shard %d: %w", s, err)
		}
		gen := r.m.consumerStarted(s)
		cc, err := cons.Consume(func(msg jetstream.Msg) {
			r.m.busy.Add(1)
			select {
			case r.in <- delivery{Msg: msg, shard: s, gen: gen}:
			case <-ctx.Done():
				r.m.busy.Add(-1)
			}
		}, jetstream.PullExpiry(pullExpiry), jetstream.ConsumeErrHandler(func(_ jetstream.ConsumeContext, err error) {
			r.m.logger.Warn("consuming", "shard", s, "err", err)
		}))
		if err != nil {
			r.m.consumerStopped(s)
			return fmt.Errorf("cluster: consume shard %d: %w", s, err)
		}
		r.consuming[s] = cc
	}
	return nil
}

// resync finds the shards whose subjects have held messages for two
// ticks in a row while this node, their owner, had nothing of theirs
// queued, held or in hand: messages whose acknowledgement was lost (a
// server lost at that moment) would otherwise wait in the stream for
// ackWait. It stops consuming them; follow then recreates their consumers,
// which delivers the messages again, and commit finds them fetched.
func (r *receiver) resync(ctx context.Context) error {
	if len(r.in) > 0 || r.m.busy.Load() > 0 || len(r.consuming) == 0 {
		clear(r.orphans)
		return nil
	}
	lags, err := shardLags(ctx, r.m.js)
	if err != nil {
		return err
	}
	held := map[int]bool{}
	r.m.held.Lock()
	for u := range r.m.held.m {
		held[ShardOf(urlnorm.Host(u), r.m.cfg.Shards)] = true
	}
	r.m.held.Unlock()
	for s := range r.consuming {
		if lags[s] == 0 || held[s] {
			delete(r.orphans, s)
			continue
		}
		if r.orphans[s]++; r.orphans[s] >= 2 {
			r.m.logger.Warn("consuming again", "shard", s, "waiting", lags[s])
			r.stop(s)
			delete(r.orphans, s)
		}
	}
	return nil
}

func (r *receiver) stopAll() {
	r.mu.Lock()
	defer r.mu.Unlock()
	for s := range r.consuming {
		r.stop(s)
	}
}

// stop stops consuming shard s; r.mu is held.
func (r *receiver) stop(s int) {
	r.consuming[s].Stop()
	delete(r.consuming, s)
	r.m.consumerStopped(s)
}

// pullExpiry is how long a consumer's pull request waits on the servers.
// A pull that fails (no responders: the new consumer's leader not elected
// yet) is sent again only once two heartbeats, half of this each, are
// missed: with the client's 30 s default a shard's messages waited in the
// stream until resync started its consumer afresh, two lease ticks later.
const pullExpiry = 5 * time.Second

// maxAdmit bounds the handoffs committed in one batch.
const maxAdmit = 256

// A shard's owner holds each URL's message unacknowledged from its
// admission to its fetch: at most maxHeld per shard (more wait in the
// stream), each redelivered after ackWait if neither acknowledged nor
// taken over, so a lost acknowledgement delays the end of a crawl by
// ackWait at most.
const (
	maxHeld = 1 << 16
	ackWait = 5 * time.Minute
)

// admit commits handed-over URLs in batches and acknowledges them after
// the commit. A URL whose shard this node no longer owns is refused (Nak)
// so the stream redelivers it to the owner.
func (r *receiver) admit(ctx context.Context, c *crawler.Crawler, f *frontier.Frontier) error {
	for {
		var batch []delivery
		select {
		case <-ctx.Done():
			return nil
		case msg := <-r.in:
			batch = append(batch, msg)
		}
	more:
		for len(batch) < maxAdmit {
			select {
			case msg := <-r.in:
				batch = append(batch, msg)
			default:
				break more
			}
		}
		if err := r.commit(ctx, c, f, batch); err != nil {
			return err
		}
	}
}

func (r *receiver) commit(ctx context.Context, c *crawler.Crawler, f *frontier.Frontier, batch []delivery) error {
	defer r.m.busy.Add(-int64(len(batch)))
	var hs []crawler.Handoff
	var keep []delivery
	for _, msg := range batch {
		var h crawler.Handoff
		if err := json.Unmarshal(msg.Data(), &h); err != nil {
			// Not ours to interpret: acknowledged so it is not redelivered forever.
			r.m.logger.Error("undecodable handoff", "subject", msg.Subject(), "err", err)
			if err := msg.Term(); err != nil {
				return fmt.Errorf("cluster: terminate message: %w", err)
			}
			continue
		}
		if !r.m.Route(h.URL) {
			if err := msg.NakWithDelay(r.m.RouteWait()); err != nil {
				return fmt.Errorf("cluster: nak %s: %w", h.URL, err)
			}
			continue
		}
		hs = append(hs, h)
		keep = append(keep, msg)
	}
	r.m.stats.Received.Add(int64(len(hs)))
	// Held before the admission, so that a fetch committing right after it
	// finds its message (fetched); released below if nothing will fetch it.
	r.m.held.Lock()
	for i, msg := range keep {
		if old, ok := r.m.held.m[hs[i].URL]; ok && streamSeq(old) != streamSeq(msg) {
			// A second message for the URL (past the dedup window): one
			// record of it is enough.
			if err := old.Ack(); err != nil {
				r.m.logger.Warn("ack of a duplicate", "url", hs[i].URL, "err", err)
			}
		}
		r.m.held.m[hs[i].URL] = msg
	}
	r.m.held.Unlock()
	n, err := c.Admit(ctx, f, hs)
	if err != nil {
		return err // not acknowledged: redelivered after ackWait
	}
	r.m.stats.Admitted.Add(int64(n))
	var done []string
	for _, h := range hs {
		p, err := r.m.db.Page(h.URL)
		switch {
		case errors.Is(err, repo.ErrNotFound):
			done = append(done, h.URL) // refused by the admission: scope, limits
		case err != nil:
			return fmt.Errorf("cluster: %w", err)
		case p.Fetches > 0:
			done = append(done, h.URL) // fetched already, here
		}
	}
	r.m.fetched(done)
	return nil
}

// streamSeq is msg's sequence number in the stream, 0 if unknown.
func streamSeq(msg jetstream.Msg) uint64 {
	md, err := msg.Metadata()
	if err != nil {
		return 0
	}
	return md.Sequence.Stream
}

// Pending counts the handoffs not yet finished with: this node's, queued
// to publish or being published or committed, and the whole cluster's,
// waiting in the stream (acknowledged ones leave it). A crawl is over
// when every node's Pending is 0 and its frontier is drained.
func (m *Member) Pending(ctx context.Context) (int, error) {
	n := len(m.out) + int(m.busy.Load())
	st, err := m.js.Stream(ctx, linkStream)
	if err != nil {
		return 0, fmt.Errorf("cluster: stream %s: %w", linkStream, err)
	}
	info, err := st.Info(ctx)
	if err != nil {
		return 0, fmt.Errorf("cluster: stream %s: %w", linkStream, err)
	}
	return n + int(info.State.Msgs), nil
}
