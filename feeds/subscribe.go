package feeds

import (
	"context"
	"errors"
	"fmt"
	"net/url"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/deltaq/deltaq/internal/urlnorm"
)

// Subscribe is Add for what a subscriber gives (deltaq feeds add, import
// and discover --add; POST /api/v1/feeds): it first refuses, as a
// SettingError, what Add would take but not as meant. A URL holding a
// control character would be taken for the URL without it
// (urlnorm.NormalizeGiven); one without a host ("http:///nohost") would
// have its path taken for the host; one with credentials
// ("http://user:pass@host/feed") would be stored without them, since URLs
// are normalized without userinfo, and the feed fetched unauthenticated;
// and a poll interval under feeds.step cannot be kept, since polls fall on
// a grid of that step. A name or folders the subscriber sets (SetName,
// SetFolders) that Add would cut are refused too (checkLabels); an
// import's, from a list another reader wrote, are cut as Add cuts them.
func (s *Store) Subscribe(ctx context.Context, rawURL string, o AddOptions, now time.Time) (Feed, bool, error) {
	return one(s.addMany(ctx, []Subscription{{URL: rawURL, Options: o}}, now, true))
}

// SubscribeMany is Subscribe for each of subs in order (an import of a
// list), a refusal that subscription's Err, with the subscriptions
// written a thousand to a batch rather than one: each batch is committed
// whole or not at all, so that after an error, or once ctx is done, the
// feeds of the batches committed are stored, those returned with the
// error, and none after them.
func (s *Store) SubscribeMany(ctx context.Context, subs []Subscription, now time.Time) ([]Subscribed, error) {
	return s.addMany(ctx, subs, now, true)
}

func (s *Store) checkSubscription(rawURL string, o AddOptions) error {
	// Other faults of the URL are Add's to refuse.
	if _, err := urlnorm.NormalizeGiven(rawURL); errors.Is(err, urlnorm.ErrControl) {
		return &SettingError{Setting: "url", Value: rawURL, Limit: "an absolute http or https URL with " + urlnorm.GivenRule}
	}
	if err := checkLabels(o); err != nil {
		return err
	}
	// A URL url.Parse refuses, or of another scheme, is Add's to refuse.
	if u, err := url.Parse(strings.TrimSpace(rawURL)); err == nil && (strings.EqualFold(u.Scheme, "http") || strings.EqualFold(u.Scheme, "https")) {
		switch {
		case u.User != nil:
			return &SettingError{Setting: "url", Value: rawURL,
				Limit: "without credentials (user:pass@): feeds are fetched without them, and the URL is stored without them"}
		case u.Host == "":
			return &SettingError{Setting: "url", Value: rawURL, Limit: "an absolute http or https URL that names a host (http://HOST/...)"}
		case strings.TrimLeft(u.Port(), "0") == "" && u.Port() != "":
			return &SettingError{Setting: "url", Value: rawURL, Limit: "a URL of a port a server can answer on, not 0 (give none for the scheme's default)"}
		}
	}
	return s.cfg.checkStep(o)
}

// checkStep refuses a poll interval under feeds.step: polls fall on a
// grid of that step. One not > 0 is checkValues' to refuse.
func (c Config) checkStep(o AddOptions) error {
	for _, iv := range []struct {
		setting string
		d       *time.Duration
	}{{"min_interval", o.MinInterval}, {"max_interval", o.MaxInterval}} {
		if iv.d != nil && *iv.d > 0 && *iv.d < c.Step {
			return &SettingError{Setting: iv.setting, Value: iv.d.String(),
				Limit: "≥ feeds.step (" + c.Step.String() + "): polls are placed on a grid of that step"}
		}
	}
	return nil
}

// CheckOptions refuses, as Subscribe would, a weight or poll interval of
// o that no feed can take, whatever its URL and whatever is stored: a
// weight that is not a finite number > 0, an interval not > 0 or under
// feeds.step, a min interval over the max given. The command line checks
// its flags with it once, before an import reads its list, rather than
// refusing each outline for them.
func (c Config) CheckOptions(o AddOptions) error {
	if err := checkValues(o); err != nil {
		return err
	}
	if err := c.checkStep(o); err != nil {
		return err
	}
	if o.MinInterval != nil && o.MaxInterval != nil && *o.MinInterval > *o.MaxInterval {
		return minOverMax(*o.MinInterval, *o.MaxInterval)
	}
	return nil
}

// labelRule is what a name or a folder a subscriber sets must be: kept
// whole (labelsOf cuts a longer one at MaxTitleBytes, after trimming
// spaces) and shown as given.
var labelRule = fmt.Sprintf("at most %d bytes of UTF-8 without control characters", MaxTitleBytes)

// checkLabels refuses a name or folders set by a subscriber (SetName,
// SetFolders) that labelsOf would not keep as given: over MaxTitleBytes,
// more than MaxFolders folders, an empty folder, or one with invalid UTF-8
// or a control character (a tab or newline too: a label is one line).
func checkLabels(o AddOptions) error {
	if o.SetName && badLabel(o.Name) {
		return &SettingError{Setting: "name", Value: o.Name, Limit: labelRule}
	}
	if !o.SetFolders {
		return nil
	}
	if n := len(o.Folders); n > MaxFolders {
		return &SettingError{Setting: "folders", Value: fmt.Sprintf("%d folders", n), Limit: fmt.Sprintf("at most %d folders (levels)", MaxFolders)}
	}
	for i, f := range o.Folders {
		if strings.TrimSpace(f) == "" || badLabel(f) {
			return &SettingError{Setting: fmt.Sprintf("folders[%d]", i), Value: f, Limit: "a folder name, not empty, of " + labelRule}
		}
	}
	return nil
}

// badLabel reports whether labelsOf would not keep l as given.
func badLabel(l string) bool {
	if len(strings.TrimSpace(l)) > MaxTitleBytes || !utf8.ValidString(l) {
		return true
	}
	return strings.ContainsFunc(l, unicode.IsControl)
}
