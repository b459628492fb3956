package notify

import (
	"context"
	"crypto/rand"
	"fmt"
	"log/slog"
	"net/http"
	"time"

	"github.com/deltaq/deltaq/internal/clock"
)

// Options are a Service's collaborators.
type Options struct {
	// Logger gets one line per failed attempt and per dead letter; nil
	// discards.
	Logger *slog.Logger
	// Clock tells the time; nil is the wall clock.
	Clock clock.Clock
	// Client sends webhooks; nil is a client with no proxy and
	// Config.WebhookTimeout per request. Its redirects are not followed,
	// whatever its CheckRedirect says.
	Client *http.Client
}

// Stats count what delivery passes did.
type Stats struct {
	Delivered int
	Failed    int // failed attempts, each retried later or dead-lettered
	Dead      int
}

// Service drains the outbox: it delivers what is due, moves failures to
// their retry time, and sleeps until the next delivery is due, Wake is
// called, or Config.Poll passes.
type Service struct {
	ob     *Outbox
	cfg    Config
	clock  clock.Clock
	client *http.Client
	logger *slog.Logger
	wake   chan struct{}
}

// NewService returns a delivery service over ob.
func NewService(ob *Outbox, opts Options) *Service {
	s := &Service{ob: ob, cfg: ob.cfg, clock: opts.Clock, client: opts.Client, logger: opts.Logger, wake: make(chan struct{}, 1)}
	if s.clock == nil {
		s.clock = clock.Real{}
	}
	if s.client == nil {
		s.client = &http.Client{Transport: &http.Transport{}}
	}
	// A redirect followed would turn the POST into a GET (301, 302, 303)
	// that a 2xx answer then counts as delivered, and would send the
	// signed body to a host the target did not name: an answer of 3xx is
	// a failed attempt instead.
	c := *s.client
	c.CheckRedirect = func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }
	s.client = &c
	if s.logger == nil {
		s.logger = slog.New(slog.DiscardHandler)
	}
	s.logger = s.logger.With("component", "notify")
	return s
}

// Wake makes a sleeping Run look at the outbox now; callers call it after
// committing a batch that enqueued notifications.
func (s *Service) Wake() {
	select {
	case s.wake <- struct{}{}:
	default:
	}
}

// Run delivers until ctx is done, and returns ctx's error or the first
// repository error.
func (s *Service) Run(ctx context.Context) error {
	for {
		st, next, err := s.pass(ctx)
		if err != nil {
			return err
		}
		if st.Delivered+st.Failed > 0 {
			continue // more may be due already
		}
		if err := s.ob.trimFeeds(ctx); err != nil {
			return err
		}
		wait := s.cfg.Poll
		if !next.IsZero() {
			wait = min(wait, max(0, next.Sub(s.clock.Now())))
		}
		t := time.NewTimer(wait)
		select {
		case <-ctx.Done():
			t.Stop()
			return ctx.Err()
		case <-s.wake:
		case <-t.C:
		}
		t.Stop()
	}
}

// Drain delivers everything due now, pass after pass, until nothing due is
// left; it returns what it did. Failed deliveries wait for their retry time.
func (s *Service) Drain(ctx context.Context) (Stats, error) {
	var total Stats
	for {
		st, _, err := s.pass(ctx)
		total.Delivered += st.Delivered
		total.Failed += st.Failed
		total.Dead += st.Dead
		if err != nil || st.Delivered+st.Failed == 0 {
			return total, err
		}
	}
}

// Once runs one delivery pass: up to Config.Batch due deliveries.
func (s *Service) Once(ctx context.Context) (Stats, error) {
	st, _, err := s.pass(ctx)
	return st, err
}

// pass delivers up to Config.Batch due deliveries, one at a time.
func (s *Service) pass(ctx context.Context) (Stats, time.Time, error) {
	var st Stats
	now := s.clock.Now()
	ds, next, err := s.ob.due(ctx, now, s.cfg.Batch)
	if err != nil || len(ds) == 0 {
		return st, next, err
	}
	secret, err := s.ob.secret(ctx, newSecret)
	if err != nil {
		return st, next, err
	}
	for i := range ds {
		d := &ds[i]
		var sendErr error
		switch d.Target.Kind {
		case Webhook:
			sendErr = postWebhook(ctx, s.client, secret, d, now, s.cfg.WebhookTimeout)
		case Email:
			sendErr = sendEmail(ctx, s.cfg.SMTP, d, now)
		default:
			sendErr = fmt.Errorf("notify: target kind %q cannot be delivered", d.Target.Kind)
		}
		if ctx.Err() != nil {
			return st, next, ctx.Err() // not the receiver's fault: try again after restart
		}
		if sendErr == nil {
			if err := s.ob.done(ctx, d); err != nil {
				return st, next, err
			}
			st.Delivered++
			continue
		}
		st.Failed++
		dead, err := s.ob.failed(ctx, d, s.clock.Now(), sendErr)
		if err != nil {
			return st, next, err
		}
		if dead {
			st.Dead++
			s.logger.Warn("delivery dead-lettered", "id", d.N.ID, "target", d.Target.String(), "n", d.Attempts, "err", sendErr)
		} else {
			s.logger.Info("delivery failed; will retry", "id", d.N.ID, "target", d.Target.String(), "n", d.Attempts, "err", sendErr)
		}
	}
	return st, next, nil
}

func newSecret() ([]byte, error) {
	b := make([]byte, 32)
	if _, err := rand.Read(b); err != nil {
		return nil, fmt.Errorf("notify: make secret: %w", err)
	}
	return b, nil
}

// Secret returns the webhook signing key (made on first use), for the
// owner to give to receivers.
func (s *Service) Secret(ctx context.Context) ([]byte, error) { return s.ob.secret(ctx, newSecret) }
