package feeds

import (
	"context"
	"net/url"
	"strings"
	"time"
)

// Subscribe is Add for what a subscriber gives (deltaq feeds add, import
// and discover --add; POST /api/v1/feeds): it first refuses, as a
// SettingError, what Add would take but not as meant. A URL without a
// host ("http:///nohost") would have its path taken for the host; one
// with credentials ("http://user:pass@host/feed") would be stored without
// them, since URLs are normalized without userinfo, and the feed fetched
// unauthenticated; and a poll interval under feeds.step cannot be kept,
// since polls fall on a grid of that step.
func (s *Store) Subscribe(ctx context.Context, rawURL string, o AddOptions, now time.Time) (Feed, bool, error) {
	if err := s.checkSubscription(rawURL, o); err != nil {
		return Feed{}, false, err
	}
	return s.Add(ctx, rawURL, o, now)
}

func (s *Store) checkSubscription(rawURL string, o AddOptions) error {
	// A URL url.Parse refuses, or of another scheme, is Add's to refuse.
	if u, err := url.Parse(strings.TrimSpace(rawURL)); err == nil && (strings.EqualFold(u.Scheme, "http") || strings.EqualFold(u.Scheme, "https")) {
		switch {
		case u.User != nil:
			return &SettingError{Setting: "url", Value: rawURL,
				Limit: "without credentials (user:pass@): feeds are fetched without them, and the URL is stored without them"}
		case u.Host == "":
			return &SettingError{Setting: "url", Value: rawURL, Limit: "an absolute http or https URL that names a host (http://HOST/...)"}
		}
	}
	for _, iv := range []struct {
		setting string
		d       *time.Duration
	}{{"min_interval", o.MinInterval}, {"max_interval", o.MaxInterval}} {
		if iv.d != nil && *iv.d > 0 && *iv.d < s.cfg.Step {
			return &SettingError{Setting: iv.setting, Value: iv.d.String(),
				Limit: "≥ feeds.step (" + s.cfg.Step.String() + "): polls are placed on a grid of that step"}
		}
	}
	return nil
}
