package notify

import (
	"fmt"
	"net/mail"
	"net/url"
	"strings"
	"time"

	"github.com/deltaq/deltaq/diff"
)

// Notification is one detected change (or one search-alert match) to tell a
// user about.
type Notification struct {
	// ID is unique and stable: it is the idempotency key of every delivery.
	ID     string    `json:"id"`
	Source string    `json:"source"` // "watch:ID" or "alert:ID"
	User   string    `json:"user,omitempty"`
	URL    string    `json:"url"`
	Title  string    `json:"title"`
	Kind   string    `json:"kind"`   // sentinel type, or "alert"
	Change string    `json:"change"` // insert, delete, update, new page, deleted page (WebCQ §4.3)
	At     time.Time `json:"at"`
	// Summary is a short plain-text account (a snippet for alerts).
	Summary string `json:"summary,omitempty"`
	// Diff is the changes-only difference; nil for alerts on new pages.
	// In a digest it is the last change's, for receivers that read only it.
	Diff *diff.Result `json:"diff,omitempty"`
	// Changes are a digest's changes, oldest first, each with its own
	// diff: changes-only diffs cannot be merged into one net diff. Nil for
	// one change (an eager watch, an alert) and in notifications stored
	// before digests carried them; those render Diff alone.
	Changes []ChangeDiff `json:"changes,omitempty"`
	// ChangesDropped counts a digest's earlier changes of the period left
	// out of Changes, which holds the last watch.digest_kept.
	ChangesDropped int      `json:"changes_dropped,omitempty"`
	Targets        []Target `json:"-"`
	// Feeds are the Atom feeds that get an entry ("watch:ID", "user:NAME").
	Feeds []string `json:"-"`
}

// ChangeDiff is one change of a digest: when it was seen, its one-line
// account and its changes-only diff.
type ChangeDiff struct {
	At      time.Time    `json:"at"`
	Summary string       `json:"summary,omitempty"`
	Diff    *diff.Result `json:"diff,omitempty"` // nil when no text changed (keywords, lost, found)
}

// heading is the line that heads the i-th of n's changes in a body.
func (n *Notification) heading(i int) string {
	c := &n.Changes[i]
	h := fmt.Sprintf("Change %d of %d, %s", i+1, len(n.Changes), c.At.UTC().Format(time.RFC3339))
	if c.Summary != "" {
		h += ": " + c.Summary
	}
	return h
}

// TargetKind says how a delivery travels.
type TargetKind string

const (
	Webhook TargetKind = "webhook"
	Email   TargetKind = "email"
	Feed    TargetKind = "feed"
)

// Target is one destination: a webhook URL or an e-mail address. Feed
// targets become Notification.Feeds.
type Target struct {
	Kind TargetKind `json:"kind"`
	Addr string     `json:"addr,omitempty"`
}

func (t Target) String() string {
	if t.Addr == "" {
		return string(t.Kind)
	}
	return string(t.Kind) + ":" + t.Addr
}

// TargetError is a list of targets refused: Value is the target at
// fault, or the count when there are too many; Limit is what is accepted.
type TargetError struct {
	Value string
	Limit string
	Err   error // ParseTarget's error, if that is the fault
}

func (e *TargetError) Error() string {
	if e.Err != nil {
		return e.Err.Error()
	}
	return fmt.Sprintf("notify: %s: %s", e.Value, e.Limit)
}

func (e *TargetError) Unwrap() error { return e.Err }

// ParseTargets reads each of in as ParseTarget does, at most max of them
// (notify.max_targets): every target costs a delivery per change, so a
// long list would turn each change into a flood.
func ParseTargets(in []string, max int) ([]Target, error) {
	if len(in) > max {
		return nil, &TargetError{Value: fmt.Sprintf("(%d targets)", len(in)), Limit: fmt.Sprintf("at most %d (notify.max_targets)", max)}
	}
	var out []Target
	for _, s := range in {
		t, err := ParseTarget(s)
		if err != nil {
			return nil, &TargetError{Value: s, Limit: "webhook:URL, email:ADDR or feed", Err: err}
		}
		out = append(out, t)
	}
	return out, nil
}

// maxAddress is the longest e-mail address a relay must accept: a path
// is at most 256 bytes with its angle brackets.
const maxAddress = 254

// ParseTarget reads "webhook:URL", "email:ADDR" or "feed".
func ParseTarget(s string) (Target, error) {
	kind, addr, _ := strings.Cut(s, ":")
	switch TargetKind(kind) {
	case Webhook:
		u, err := url.Parse(addr)
		if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
			return Target{}, fmt.Errorf("notify %q: the webhook must be an absolute http(s) URL", s)
		}
		return Target{Kind: Webhook, Addr: addr}, nil
	case Email:
		a, err := mail.ParseAddress(addr)
		if err != nil {
			return Target{}, fmt.Errorf("notify %q: not an e-mail address: %w", s, err)
		}
		// It goes into RCPT TO and the To header, whose lines are bounded.
		if len(a.Address) > maxAddress {
			return Target{}, fmt.Errorf("notify %q: the e-mail address is %d bytes, at most %d (RFC 5321 §4.5.3.1.3)", s, len(a.Address), maxAddress)
		}
		return Target{Kind: Email, Addr: a.Address}, nil
	case Feed:
		if addr != "" {
			return Target{}, fmt.Errorf("notify %q: feed takes no address", s)
		}
		return Target{Kind: Feed}, nil
	}
	return Target{}, fmt.Errorf("notify %q: must be webhook:URL, email:ADDR or feed", s)
}
