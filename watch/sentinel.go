package watch

import (
	"errors"
	"fmt"
	"net/url"
	"regexp"
	"slices"
	"strings"
	"time"

	"github.com/deltaq/deltaq/notify"
)

// Type is a sentinel type (WebCQ Table 1).
type Type string

const (
	Any      Type = "any"      // any change to the page (MD5 of the body)
	Links    Type = "links"    // links added or removed
	Images   Type = "images"   // images added or removed
	Words    Type = "words"    // words added or removed
	Keywords Type = "keywords" // all keywords appear, or stop appearing
	Regex    Type = "regex"    // the text a regular expression matches
	Phrase   Type = "phrase"   // a run of words, located by its bounding box
	Table    Type = "table"    // a <table>
	List     Type = "list"     // a <ul> or <ol>
)

// Types lists every sentinel type.
var Types = []Type{Any, Links, Images, Words, Keywords, Regex, Phrase, Table, List}

// ParseType reads a sentinel type name.
func ParseType(s string) (Type, error) {
	for _, t := range Types {
		if string(t) == s {
			return t, nil
		}
	}
	return "", fmt.Errorf("type %q: must be one of any, links, images, words, keywords, regex, phrase, table, list", s)
}

// Direction filters keyword flips.
type Direction string

const (
	Both      Direction = ""          // appear and disappear
	Appear    Direction = "appear"    // only when all keywords come to be present
	Disappear Direction = "disappear" // only when they stop being present
)

// Mode is a notification condition (WebCQ §5).
type Mode string

const (
	Eager  Mode = "eager"  // notify at each triggered change
	Digest Mode = "digest" // collect triggered changes; notify once per Period
)

// Spec is what a user asks to be told about: a sentinel before it is
// installed. The fields mirror WebCQ's CREATE Sentinel statement (§2).
type Spec struct {
	User string `json:"user,omitempty"`
	URL  string `json:"url"`
	Type Type   `json:"type"`
	// Selector is a CSS selector scoping the object (any type).
	Selector string `json:"selector,omitempty"`
	// Object is the phrase itself (phrase) or text identifying the table
	// or list; phrases are then located by their bounding box.
	Object    string    `json:"object,omitempty"`
	Keywords  []string  `json:"keywords,omitempty"`
	Direction Direction `json:"direction,omitempty"`
	Regex     string    `json:"regex,omitempty"`
	// MinChange fires only when at least this fraction of the object
	// changed (WebCQ's "> 50 % of the object" trigger); 0 fires on any.
	MinChange float64 `json:"min_change,omitempty"`
	// EveryN fires on every n-th detected change; 0 or 1 on each.
	EveryN int `json:"every_n,omitempty"`
	// Every is how often the user would like the page checked: a wish the
	// scheduler weighs (urgency), not a timer.
	Every  time.Duration   `json:"every"`
	Mode   Mode            `json:"mode"`
	Period time.Duration   `json:"period,omitempty"` // digest period
	Notify []notify.Target `json:"notify,omitempty"`
	Start  time.Time       `json:"start,omitzero"`
	Stop   time.Time       `json:"stop,omitzero"`
}

// diffsPage reports whether the spec watches the whole page for any
// change, the one kind whose change is the page diff.
func (s *Spec) diffsPage() bool { return s.Type == Any && s.Selector == "" }

// FieldError is a spec refused for one field, named as the watch API and
// the command line name it (url, type, select, keywords, ...); Err says
// what is wrong, beginning with the field.
type FieldError struct {
	Field string
	Err   error
}

func (e *FieldError) Error() string { return e.Err.Error() }
func (e *FieldError) Unwrap() error { return e.Err }

func fieldErr(field string, err error) error { return &FieldError{Field: field, Err: err} }

// validate checks a spec and fills its defaults; errors (a *FieldError)
// name the field, the value and the limit.
func (s *Spec) validate(cfg Config, now time.Time) error {
	u, err := url.Parse(s.URL)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return fieldErr("url", fmt.Errorf("url %q: must be an absolute http(s) URL", s.URL))
	}
	if _, err := ParseType(string(s.Type)); err != nil {
		return fieldErr("type", err)
	}
	if s.Selector != "" {
		if _, err := compileSelector(s.Selector); err != nil {
			return fieldErr("select", err)
		}
	}
	switch s.Type {
	case Keywords:
		if len(s.Keywords) == 0 || len(s.Keywords) > cfg.MaxKeywords {
			return fieldErr("keywords", fmt.Errorf("keywords: %d given, must be 1 to %d", len(s.Keywords), cfg.MaxKeywords))
		}
		for _, k := range s.Keywords {
			if strings.TrimSpace(k) == "" {
				return fieldErr("keywords", errors.New("keywords: an empty keyword"))
			}
		}
		if s.Direction != Both && s.Direction != Appear && s.Direction != Disappear {
			return fieldErr("direction", fmt.Errorf("direction %q: must be appear, disappear or empty (both)", s.Direction))
		}
	case Regex:
		if s.Regex == "" || len(s.Regex) > cfg.MaxRegexBytes {
			return fieldErr("regex", fmt.Errorf("regex: %d bytes, must be 1 to %d", len(s.Regex), cfg.MaxRegexBytes))
		}
		// Go's regexp (RE2) runs in time linear in the input, so a regex
		// needs a size limit but no evaluation timeout.
		if _, err := regexp.Compile(s.Regex); err != nil {
			return fieldErr("regex", fmt.Errorf("regex %q: %w", s.Regex, err))
		}
	case Phrase:
		if s.Selector == "" && len(strings.Fields(s.Object)) < cfg.PhraseMinWords {
			return fieldErr("object", fmt.Errorf("object %q: a phrase needs at least %d words (or a selector)", s.Object, cfg.PhraseMinWords))
		}
	}
	// A field only another type reads would be stored and never used, so
	// the sentinel would not watch what its user asked for.
	for _, f := range []struct {
		name  string
		set   bool
		types []Type
	}{
		{"keywords", len(s.Keywords) > 0, []Type{Keywords}},
		{"direction", s.Direction != Both, []Type{Keywords}},
		{"regex", s.Regex != "", []Type{Regex}},
		{"object", s.Object != "", []Type{Phrase, Table, List}},
	} {
		if f.set && !slices.Contains(f.types, s.Type) {
			names := make([]string, len(f.types))
			for i, t := range f.types {
				names[i] = string(t)
			}
			return fieldErr(f.name, fmt.Errorf("%s: not read by type %s, only by %s", f.name, s.Type, strings.Join(names, ", ")))
		}
	}
	if !(s.MinChange >= 0 && s.MinChange <= 1) { // NaN too
		return fieldErr("min_change", fmt.Errorf("min_change = %v: must be in [0, 1]", s.MinChange))
	}
	if s.EveryN < 0 {
		return fieldErr("every_n", fmt.Errorf("every_n = %d: must be ≥ 0", s.EveryN))
	}
	if s.Every <= 0 {
		return fieldErr("every", fmt.Errorf("every = %v: must be > 0", s.Every))
	}
	switch s.Mode {
	case "":
		s.Mode = Eager
	case Eager:
	case Digest:
		if s.Period <= 0 {
			return fieldErr("period", fmt.Errorf("period = %v: a digest needs a period > 0", s.Period))
		}
	default:
		return fieldErr("mode", fmt.Errorf("mode %q: must be eager or digest", s.Mode))
	}
	if s.Start.IsZero() {
		s.Start = now
	}
	if s.Stop.IsZero() {
		s.Stop = s.Start.Add(cfg.Duration)
	}
	if !s.Stop.After(s.Start) {
		return fieldErr("until", fmt.Errorf("until %s: must be after the start %s", s.Stop.Format(time.RFC3339), s.Start.Format(time.RFC3339)))
	}
	return nil
}

// tableKey names the constant table a spec belongs to: sentinels on one
// page with the same type and object share extraction and comparison
// (WebCQ §6.1.1).
func (s *Spec) tableKey() string {
	k := string(s.Type) + "\x00" + s.Selector + "\x00" + s.Object
	switch s.Type {
	case Keywords:
		k += "\x00" + strings.ToLower(strings.Join(s.Keywords, "\x01"))
	case Regex:
		k += "\x00" + s.Regex
	}
	return k
}

// Sentinel is an installed spec with its evaluation record (WebCQ §4.3).
type Sentinel struct {
	ID string `json:"id"`
	Spec
	Record
	// Pending holds triggered changes waiting for the next digest.
	Pending    []Change  `json:"pending,omitempty"`
	NextDigest time.Time `json:"next_digest,omitzero"`
}

// Record is a sentinel's evaluation record: when it was installed and
// last evaluated, and what it has found and told.
type Record struct {
	Installed     time.Time `json:"installed"`
	LastEval      time.Time `json:"last_eval,omitzero"`
	LastChange    time.Time `json:"last_change,omitzero"`
	LastNotified  time.Time `json:"last_notified,omitzero"`
	Evaluations   int       `json:"evaluations"`
	Changes       int       `json:"changes"`
	Notifications int       `json:"notifications"`
}

// active reports whether the sentinel runs at now (start and stop
// conditions).
func (s *Sentinel) active(now time.Time) bool {
	return !now.Before(s.Start) && now.Before(s.Stop)
}
