package notify

import (
	"fmt"
	"net"
	"net/mail"
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
	// Batch is the most deliveries one pass reads, and the most dead
	// letters one commit of Retry moves.
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
	// A notification a week late is hardly news, and a due time must stay
	// within the nanosecond stamps of the outbox's keys.
	maxBackoff = 7 * 24 * time.Hour
)

// Validate reports every value out of range, naming its key.
func (c Config) Validate() error {
	report := bounds.NewReport("notify.")
	report.Add("max_attempts", c.MaxAttempts, bounds.Positive(c.MaxAttempts, maxAttempts))
	report.Add("batch", c.Batch, bounds.Positive(c.Batch, maxBatch))
	report.Add("feed_entries", c.FeedEntries, bounds.Positive(c.FeedEntries, maxFeedEntries))
	report.Add("max_targets", c.MaxTargets, bounds.Positive(c.MaxTargets, maxTargets))
	report.Add("backoff_base", c.BackoffBase, bounds.AboveZero(c.BackoffBase))
	report.Add("backoff_max", c.BackoffMax, bounds.AboveZero(c.BackoffMax))
	report.Add("webhook_timeout", c.WebhookTimeout, bounds.AboveZero(c.WebhookTimeout))
	report.Add("poll", c.Poll, bounds.AboveZero(c.Poll))
	report.Add("smtp.timeout", c.SMTP.Timeout, bounds.AboveZero(c.SMTP.Timeout))
	if c.BackoffMax < c.BackoffBase {
		report.Add("backoff_max", c.BackoffMax, fmt.Sprintf("must be ≥ notify.backoff_base (%v)", c.BackoffBase))
	}
	report.Add("backoff_max", c.BackoffMax, bounds.Over(c.BackoffMax, c.BackoffBase, maxBackoff))
	// Both are read only when an e-mail is sent: a mistake here would
	// show as every e-mail failing until it is dead-lettered.
	if _, port, err := net.SplitHostPort(c.SMTP.Addr); c.SMTP.Addr != "" && (err != nil || port == "") {
		report.Add("smtp.addr", fmt.Sprintf("%q", c.SMTP.Addr), `must be host:port, such as localhost:25, or "" (no e-mail)`)
	}
	if a, err := mail.ParseAddress(c.SMTP.From); err != nil || a.Address != c.SMTP.From {
		report.Add("smtp.from", fmt.Sprintf("%q", c.SMTP.From), "must be a bare e-mail address, such as deltaq@example.org")
	}
	return report.Err()
}
