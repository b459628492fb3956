package notify_test

import (
	"strings"
	"testing"
	"time"

	"github.com/deltaq/deltaq/internal/bounds/boundstest"
	"github.com/deltaq/deltaq/notify"
)

// TestValidateBoundsEachSetting: a setting past its upper bound (2^62, or
// the bound plus one) is refused with its key, its value and its range; the
// bound itself is accepted.
func TestValidateBoundsEachSetting(t *testing.T) {
	boundstest.Check(t, "notify.", testConfig, (*notify.Config).Validate, []boundstest.Setting[notify.Config]{
		{Key: "max_attempts", Lo: 1, Hi: 1000, Set: func(c *notify.Config, v int64) { c.MaxAttempts = int(v) }},
		{Key: "batch", Lo: 1, Hi: 10000, Set: func(c *notify.Config, v int64) { c.Batch = int(v) }},
		{Key: "feed_entries", Lo: 1, Hi: 10000, Set: func(c *notify.Config, v int64) { c.FeedEntries = int(v) }},
		{Key: "max_targets", Lo: 1, Hi: 1000, Set: func(c *notify.Config, v int64) { c.MaxTargets = int(v) }},
	})
}

// TestValidateSMTP: a relay address without a port, or a sender that is no
// bare address, is refused when the configuration loads, not by every
// e-mail's delivery.
func TestValidateSMTP(t *testing.T) {
	for _, tc := range []struct {
		addr, from, want string
	}{
		{"", "deltaq@localhost", ""},
		{"127.0.0.1:2525", "deltaq@localhost", ""},
		{"[::1]:25", "alerts@example.org", ""},
		{"localhost", "deltaq@localhost", `notify.smtp.addr = "localhost": must be host:port`},
		{"localhost:", "deltaq@localhost", `notify.smtp.addr = "localhost:": must be host:port`},
		{"127.0.0.1:25", "deltaq", `notify.smtp.from = "deltaq": must be a bare e-mail address`},
		{"127.0.0.1:25", "Deltaq <deltaq@localhost>", `notify.smtp.from = "Deltaq <deltaq@localhost>": must be a bare e-mail address`},
		{"127.0.0.1:25", "a@b\r\nRCPT TO:<c@d>", `notify.smtp.from = "a@b\r\nRCPT TO:<c@d>": must be a bare e-mail address`},
	} {
		c := testConfig()
		c.SMTP.Addr, c.SMTP.From = tc.addr, tc.from
		err := c.Validate()
		if tc.want == "" && err != nil || tc.want != "" && (err == nil || !strings.Contains(err.Error(), tc.want)) {
			t.Errorf("smtp.addr %q, smtp.from %q: Validate() = %v, want %q", tc.addr, tc.from, err, tc.want)
		}
	}
}

// TestValidateBoundsBackoffMax: a wait between attempts of more than a
// week is refused with its key, its value and its range; a week is taken.
func TestValidateBoundsBackoffMax(t *testing.T) {
	c := testConfig()
	c.MaxAttempts, c.BackoffMax = 40, 1<<62
	want := "notify.backoff_max = 1281023h53m38.427387904s: must be in [1m0s, 168h0m0s]"
	if err := c.Validate(); err == nil || !strings.Contains(err.Error(), want) {
		t.Errorf("Validate() = %v, want %q", err, want)
	}
	c.BackoffMax = 168 * time.Hour
	if err := c.Validate(); err != nil {
		t.Errorf("Validate() of a week = %v, want nil", err)
	}
}
