package notify

import (
	"errors"
	"fmt"
	"time"

	"github.com/deltaq/deltaq/internal/bounds"
)

// Config bounds delivery. Defaults live in configs/default.yaml (notify).
type Config struct {
	// MaxAttempts is how many failed attempts move a delivery to the
	// dead-letter list.
	MaxAttempts int `mapstructure:"max_attempts"`
	// BackoffBase is the wait after the first failure; it doubles per failure.
	BackoffBase time.Duration `mapstructure:"backoff_base"`
	// BackoffMax caps the wait between attempts.
	BackoffMax time.Duration `mapstructure:"backoff_max"`
	// WebhookTimeout bounds one webhook request.
	WebhookTimeout time.Duration `mapstructure:"webhook_timeout"`
	// Batch is the most deliveries one pass reads.
	Batch int `mapstructure:"batch"`
	// FeedEntries is how many entries each Atom feed keeps.
	FeedEntries int `mapstructure:"feed_entries"`
	// MaxTargets bounds the targets of one watch or alert: each change is
	// one delivery per target.
	MaxTargets int `mapstructure:"max_targets"`
	// Poll is the longest the service sleeps when nothing is due.
	Poll time.Duration `mapstructure:"poll"`
	SMTP SMTPConfig    `mapstructure:"smtp"`
}

// SMTPConfig says where e-mail goes.
type SMTPConfig struct {
	// Addr is host:port of the SMTP relay; "" turns e-mail off (an e-mail
	// target then fails and is dead-lettered).
	Addr string `mapstructure:"addr"`
	// From is the envelope and header sender.
	From string `mapstructure:"from"`
	// Timeout bounds one SMTP session.
	Timeout time.Duration `mapstructure:"timeout"`
}

// Upper bounds of the settings, far beyond any sensible use.
const (
	// Retries come at most backoff_max apart: at 1h, 1,000 attempts keep
	// a delivery retrying for six weeks.
	maxAttempts = 1000
	// One pass holds its deliveries, notifications and all, in memory.
	maxBatch = 10000
	// A feed's entries are read and rendered whole on each request.
	maxFeedEntries = 10000
	// Each change is one delivery per target.
	maxTargets = 1000
)

// Validate reports every value out of range, naming its key.
func (c Config) Validate() error {
	var errs []error
	within := func(key string, v, most int64) {
		if limit := bounds.Positive(v, most); limit != "" {
			errs = append(errs, fmt.Errorf("notify.%s = %d: %s", key, v, limit))
		}
	}
	within("max_attempts", int64(c.MaxAttempts), maxAttempts)
	within("batch", int64(c.Batch), maxBatch)
	within("feed_entries", int64(c.FeedEntries), maxFeedEntries)
	within("max_targets", int64(c.MaxTargets), maxTargets)
	for _, d := range []struct {
		key string
		v   time.Duration
	}{{"backoff_base", c.BackoffBase}, {"backoff_max", c.BackoffMax}, {"webhook_timeout", c.WebhookTimeout}, {"poll", c.Poll}, {"smtp.timeout", c.SMTP.Timeout}} {
		if d.v <= 0 {
			errs = append(errs, fmt.Errorf("notify.%s = %v: must be > 0", d.key, d.v))
		}
	}
	if c.BackoffMax < c.BackoffBase {
		errs = append(errs, fmt.Errorf("notify.backoff_max = %v: must be ≥ notify.backoff_base (%v)", c.BackoffMax, c.BackoffBase))
	}
	return errors.Join(errs...)
}
