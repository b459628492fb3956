package watch

import (
	"fmt"
	"math"
	"net/url"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/deltaq/deltaq/internal/urlnorm"
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
	return "", &FieldError{Field: "type", Value: s, Limit: "one of " + typeNames(Types)}
}

// typeNames lists types as "a, b, c".
func typeNames(types []Type) string {
	names := make([]string, len(types))
	for i, t := range types {
		names[i] = string(t)
	}
	return strings.Join(names, ", ")
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
	Type Type   `json:"type"` // default any
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
	// EveryN fires on every n-th detected change; 0 or 1 on each. At
	// most MaxEveryN.
	EveryN int `json:"every_n,omitempty"`
	// Every is how often the user would like the page checked: a wish the
	// scheduler weighs (urgency), not a timer; default DefaultEvery.
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

// DefaultEvery is the check interval a spec that names none wishes for.
const DefaultEvery = 24 * time.Hour

// withDefaults sets what a spec may leave out and that needs no
// configuration: type any (the whole page), every DefaultEvery, mode eager.
func (s *Spec) withDefaults() {
	if s.Type == "" {
		s.Type = Any
	}
	if s.Every == 0 {
		s.Every = DefaultEvery
	}
	if s.Mode == "" {
		s.Mode = Eager
	}
}

// ParseTimes sets the spec's Every, Period and Stop from their text as
// the watch API and the command line take them: durations such as 30m or
// 6h; until a date (YYYY-MM-DD, midnight UTC) or an RFC 3339 time. Empty
// text leaves the field to its default. An every of 0 is refused, not
// read as the default: it would quietly become a day, where whoever wrote
// it wanted checks as often as they come.
func (s *Spec) ParseTimes(every, period, until string) error {
	for _, d := range []struct {
		field, v string
		to       *time.Duration
	}{{"every", every, &s.Every}, {"period", period, &s.Period}} {
		if d.v == "" {
			continue
		}
		v, err := time.ParseDuration(d.v)
		if err != nil {
			return &FieldError{Field: d.field, Value: d.v, Limit: fmt.Sprintf("a duration such as 30m or 6h, at most %dh", math.MaxInt64/int64(time.Hour))}
		}
		if d.field == "every" && v <= 0 {
			return &FieldError{Field: d.field, Value: d.v, Limit: "a duration > 0 such as 30m or 6h; leave it out for the default (" + DefaultEvery.String() + ")"}
		}
		*d.to = v
	}
	if until == "" {
		return nil
	}
	for _, layout := range []string{time.DateOnly, time.RFC3339} {
		if t, err := time.Parse(layout, until); err == nil {
			s.Stop = t
			return nil
		}
	}
	return &FieldError{Field: "until", Value: until, Limit: "a date (YYYY-MM-DD) or an RFC 3339 time"}
}

// FieldError is a spec refused for one field, named as the watch API and
// the command line name it (url, type, select, keywords, ...): the value
// given as it was given (a count or a size where the value is long), what
// the field must be, and the underlying error if one says more (a regex's
// parse error).
type FieldError struct {
	Field, Value, Limit string
	Err                 error
}

func (e *FieldError) Error() string {
	v := e.Value
	if strings.TrimSpace(v) == "" {
		v = strconv.Quote(v) // an empty value shows as ""
	}
	msg := fmt.Sprintf("%s = %s: must be %s", e.Field, v, e.Limit)
	if e.Err != nil {
		msg += ": " + e.Err.Error()
	}
	return msg
}

func (e *FieldError) Unwrap() error { return e.Err }

// validate checks a spec and fills its defaults; errors (a *FieldError)
// name the field, the value and the limit.
// MaxEveryN bounds Spec.EveryN: a page checked every minute changes at
// most about 525,600 times a year, so a larger n would never fire.
const MaxEveryN = 1_000_000

func (s *Spec) validate(cfg Config, now time.Time) error {
	s.withDefaults()
	if s.User != "" { // no owner: a watch of the operator's
		if err := CheckUser(s.User); err != nil {
			return err
		}
	}
	if len(s.URL) > urlnorm.MaxLength {
		return &FieldError{Field: "url", Value: fmt.Sprintf("%d bytes", len(s.URL)), Limit: fmt.Sprintf("at most %d bytes", urlnorm.MaxLength)}
	}
	u, err := url.Parse(s.URL)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return &FieldError{Field: "url", Value: s.URL, Limit: "an absolute http(s) URL"}
	}
	if _, err := ParseType(string(s.Type)); err != nil {
		return err
	}
	if s.Selector != "" {
		if _, err := compileSelector(s.Selector); err != nil {
			return &FieldError{Field: "select", Value: s.Selector, Limit: "a CSS selector of the supported forms", Err: err}
		}
	}
	switch s.Type {
	case Keywords:
		if len(s.Keywords) == 0 || len(s.Keywords) > cfg.MaxKeywords {
			return &FieldError{Field: "keywords", Value: fmt.Sprintf("%d keywords", len(s.Keywords)),
				Limit: fmt.Sprintf("1 to %d keywords (watch.max_keywords)", cfg.MaxKeywords)}
		}
		for _, k := range s.Keywords {
			if strings.TrimSpace(k) == "" {
				return &FieldError{Field: "keywords", Value: k, Limit: "words, none of them empty"}
			}
		}
		if s.Direction != Both && s.Direction != Appear && s.Direction != Disappear {
			return &FieldError{Field: "direction", Value: string(s.Direction), Limit: "appear, disappear or empty (both)"}
		}
	case Regex:
		if s.Regex == "" || len(s.Regex) > cfg.MaxRegexBytes {
			return &FieldError{Field: "regex", Value: fmt.Sprintf("%d bytes", len(s.Regex)),
				Limit: fmt.Sprintf("1 to %d bytes (watch.max_regex_bytes)", cfg.MaxRegexBytes)}
		}
		// Go's regexp (RE2) runs in time linear in the input, so a regex
		// needs a size limit but no evaluation timeout.
		if _, err := regexp.Compile(s.Regex); err != nil {
			return &FieldError{Field: "regex", Value: s.Regex, Limit: "an RE2 regular expression", Err: err}
		}
	case Phrase:
		if n := len(strings.Fields(s.Object)); s.Selector == "" && n < cfg.PhraseMinWords {
			return &FieldError{Field: "object", Value: fmt.Sprintf("%d words", n),
				Limit: fmt.Sprintf("at least %d words (watch.phrase_min_words), or a selector", cfg.PhraseMinWords)}
		}
	}
	// A field only another type reads would be stored and never used, so
	// the sentinel would not watch what its user asked for.
	for _, f := range []struct {
		name  string
		set   bool
		value string
		types []Type
	}{
		{"keywords", len(s.Keywords) > 0, strings.Join(s.Keywords, ", "), []Type{Keywords}},
		{"direction", s.Direction != Both, string(s.Direction), []Type{Keywords}},
		{"regex", s.Regex != "", s.Regex, []Type{Regex}},
		{"object", s.Object != "", s.Object, []Type{Phrase, Table, List}},
	} {
		if f.set && !slices.Contains(f.types, s.Type) {
			return &FieldError{Field: f.name, Value: f.value,
				Limit: fmt.Sprintf("left out for type %s: only type %s reads it", s.Type, typeNames(f.types))}
		}
	}
	if !(s.MinChange >= 0 && s.MinChange <= 1) { // NaN too
		return &FieldError{Field: "min_change", Value: fmt.Sprint(s.MinChange), Limit: "in [0, 1]"}
	}
	if s.EveryN < 0 || s.EveryN > MaxEveryN {
		return &FieldError{Field: "every_n", Value: strconv.Itoa(s.EveryN), Limit: fmt.Sprintf("≥ 0 and ≤ %d", MaxEveryN)}
	}
	if s.Every < 0 {
		return &FieldError{Field: "every", Value: s.Every.String(), Limit: "> 0"}
	}
	switch s.Mode {
	case Eager:
		if s.Period != 0 {
			return &FieldError{Field: "period", Value: s.Period.String(), Limit: "left out for mode eager: only mode digest reads it"}
		}
	case Digest:
		if s.Period <= 0 {
			return &FieldError{Field: "period", Value: s.Period.String(), Limit: "> 0 with mode digest"}
		}
	default:
		return &FieldError{Field: "mode", Value: string(s.Mode), Limit: "eager or digest"}
	}
	if s.Start.IsZero() {
		s.Start = now
	}
	if s.Stop.IsZero() {
		s.Stop = s.Start.Add(cfg.Duration)
	}
	if !s.Stop.After(s.Start) {
		return &FieldError{Field: "until", Value: s.Stop.Format(time.RFC3339), Limit: "after the start " + s.Start.Format(time.RFC3339)}
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
	// Pending holds triggered changes waiting for the next digest;
	// PendingDropped counts those it let go, past watch.digest_kept.
	Pending        []Change  `json:"pending,omitempty"`
	PendingDropped int       `json:"pending_dropped,omitempty"`
	NextDigest     time.Time `json:"next_digest,omitzero"`
}

// Record is a sentinel's evaluation record: when it was installed and
// last evaluated, and what it has found and told.
type Record struct {
	Installed    time.Time `json:"installed"`
	LastEval     time.Time `json:"last_eval,omitzero"`
	LastChange   time.Time `json:"last_change,omitzero"`
	LastNotified time.Time `json:"last_notified,omitzero"`
	// Evaluations counts the evaluations of the trigger condition, one per
	// change of the object (WebCQ §4.3), so it equals Changes; a check
	// that finds the page unchanged evaluates nothing (LastChecked says
	// when the page was last checked).
	Evaluations   int `json:"evaluations"`
	Changes       int `json:"changes"`
	Notifications int `json:"notifications"`
}

// active reports whether the sentinel runs at now (start and stop
// conditions).
func (s *Sentinel) active(now time.Time) bool {
	return !now.Before(s.Start) && now.Before(s.Stop)
}
