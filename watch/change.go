package watch

import (
	"fmt"
	"time"

	"github.com/deltaq/deltaq/diff"
	"github.com/deltaq/deltaq/internal/plural"
)

// Change is one detected change of a table's object, as kept in a
// sentinel's history and sent in its notification (WebCQ §4.3).
type Change struct {
	At   time.Time `json:"at"`
	URL  string    `json:"url"`
	Type Type      `json:"type"`
	// Kind is insert, delete or update for content; appeared or
	// disappeared for keywords; lost or found for an object that could not
	// be located, or was located again.
	Kind     string       `json:"kind"`
	Fraction float64      `json:"fraction"`
	Diff     *diff.Result `json:"diff,omitempty"`
	// Fired is set when the trigger condition held; Notification names the
	// eager notification that carried it. A digest is sent after the
	// change's entry is written and is not named here: it carries the
	// change itself (notify.Notification.Changes).
	Fired        bool   `json:"fired"`
	Notification string `json:"notification,omitempty"`
}

// compare describes how a table's object changed. page is the page-level
// difference, computed once per group and shared by every any-change
// table (WebCQ §6.1.2 step 5); its error is the kept copy's. A Change
// keeps the changes only: a text difference is cut to them as it is made
// (diff.TextChanges), and a set difference has no common run to cut.
func compare(s *Spec, old, cur *Object, page func() (*diff.Result, error), opts diff.Options) (Change, error) {
	t := s.Type
	c := Change{Type: t}
	switch {
	case old.Located && !cur.Located:
		c.Kind, c.Fraction = "lost", 1
		return c, nil
	case !old.Located && cur.Located:
		c.Kind, c.Fraction = "found", 1
		return c, nil
	}
	var d diff.Result
	switch t {
	case Any:
		if s.diffsPage() {
			pd, err := page()
			if err != nil {
				return c, err
			}
			d = *pd
		} else {
			d = diff.TextChanges(old.Text, cur.Text, opts)
		}
		c.Fraction = d.Fraction
		if c.Fraction == 0 {
			c.Fraction = 1 // the bytes changed but no word did: markup only
		}
	case Links, Images:
		d.Links = diff.Sets(old.Set, cur.Set)
		c.Fraction = diff.SetFraction(d.Links, len(old.Set), len(cur.Set))
	case Words:
		s := diff.Sets(old.Set, cur.Set)
		for _, w := range s.Removed {
			d.Words = append(d.Words, diff.Op{Kind: diff.Delete, Text: w, N: 1})
		}
		for _, w := range s.Added {
			d.Words = append(d.Words, diff.Op{Kind: diff.Insert, Text: w, N: 1})
		}
		c.Fraction = diff.SetFraction(s, len(old.Set), len(cur.Set))
	case Keywords:
		c.Kind, c.Fraction = "disappeared", 1
		if cur.Flag {
			c.Kind = "appeared"
		}
		return c, nil
	default:
		d = diff.TextChanges(old.Text, cur.Text, opts)
		c.Fraction = d.Fraction
	}
	added, removed := len(d.Added())+len(d.Links.Added), len(d.Removed())+len(d.Links.Removed)
	switch {
	case added > 0 && removed == 0:
		c.Kind = "insert"
	case removed > 0 && added == 0:
		c.Kind = "delete"
	default:
		c.Kind = "update"
	}
	d = d.Capped(opts.MaxBytes)
	c.Diff = &d
	return c, nil
}

// summary is a one-line account of a change for notifications.
func (c *Change) summary() string {
	switch c.Kind {
	case "appeared", "disappeared":
		return "the keywords " + c.Kind
	case "lost":
		return "the watched object can no longer be found on the page"
	case "found":
		return "the watched object is on the page again"
	}
	if c.Diff == nil {
		return c.Kind
	}
	return fmt.Sprintf("%s: %s added, %d removed, %s added, %d removed; %.0f%% of the object changed",
		c.Kind, plural.Count(len(c.Diff.Added()), "text run"), len(c.Diff.Removed()),
		plural.Count(len(c.Diff.Links.Added)+c.Diff.Links.AddedOmitted, "link"), len(c.Diff.Links.Removed)+c.Diff.Links.RemovedOmitted, 100*c.Fraction)
}

// fires evaluates the sentinel's trigger condition on a change of its
// object and counts the change (WebCQ §2, Trigger Condition).
func (s *Sentinel) fires(c *Change) bool {
	s.Changes++
	s.LastChange = c.At
	if s.Type == Keywords {
		if (s.Direction == Appear && c.Kind != "appeared") || (s.Direction == Disappear && c.Kind != "disappeared") {
			return false
		}
	}
	if c.Fraction < s.MinChange {
		return false
	}
	if s.EveryN > 1 && s.Changes%s.EveryN != 0 {
		return false
	}
	return true
}
