package ads

import (
	"fmt"
	"net/url"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"
)

// Limits on what an advertiser may write. They are properties of the
// format (what fits on a results page, what a browser follows), not
// settings.
const (
	MaxTitleRunes = 80
	MaxTextRunes  = 300
	MaxURLBytes   = 2048
	MaxNameRunes  = 200
)

// checkSpec validates and normalizes an ad's text and targets: phrases are
// normalized and must be distinct.
func (c Config) checkSpec(spec *AdSpec) error {
	if err := checkText("title", spec.Title, 1, MaxTitleRunes); err != nil {
		return err
	}
	if err := checkText("text", spec.Text, 0, MaxTextRunes); err != nil {
		return err
	}
	if err := checkURL(spec.URL); err != nil {
		return err
	}
	targets, err := c.checkTargets(spec.Targets)
	if err != nil {
		return err
	}
	spec.Targets = targets
	return nil
}

// checkText checks an ad's title or text: well formed (checkChars) and
// within its length.
func checkText(field, v string, minRunes, maxRunes int) error {
	if err := checkChars(field, v); err != nil {
		return err
	}
	n := utf8.RuneCountInString(strings.TrimSpace(v))
	if n < minRunes {
		return &FieldError{Field: field, Value: strconv.Quote(v), Limit: fmt.Sprintf("must have at least %d characters", minRunes)}
	}
	if utf8.RuneCountInString(v) > maxRunes {
		return &FieldError{Field: field, Value: fmt.Sprintf("(%d characters)", utf8.RuneCountInString(v)), Limit: fmt.Sprintf("must have at most %d characters", maxRunes)}
	}
	return nil
}

// checkChars checks what an advertiser writes that a results page shows
// (a title, a text, a target phrase): valid UTF-8 and printable.
func checkChars(field, v string) error {
	if !utf8.ValidString(v) {
		return &FieldError{Field: field, Limit: "must be valid UTF-8"}
	}
	return checkPrintable(field, v)
}

// checkPrintable refuses the characters that would let an ad change how a
// results page looks beyond its own words: C0 and C1 controls (BEL, ESC,
// and the newline and tab too, since the page shows text on one line)
// and the bidi controls, which can reverse the text after them, the "Ad"
// label of the next ad included.
func checkPrintable(field, v string) error {
	for i, r := range v {
		if unicode.IsControl(r) || isBidiControl(r) {
			return &FieldError{Field: field, Value: fmt.Sprintf("U+%04X at byte %d", r, i),
				Limit: "must not contain control characters (U+0000–U+001F, U+007F–U+009F) or bidi controls (U+200E, U+200F, U+202A–U+202E, U+2066–U+2069)"}
		}
	}
	return nil
}

// isBidiControl reports whether r is an explicit directional mark,
// embedding, override or isolate.
func isBidiControl(r rune) bool {
	return r == '\u200e' || r == '\u200f' || (r >= '\u202a' && r <= '\u202e') || (r >= '\u2066' && r <= '\u2069')
}

// checkURL checks an ad's target URL.
func checkURL(v string) error {
	if len(v) > MaxURLBytes {
		return &FieldError{Field: "url", Value: fmt.Sprintf("(%d bytes)", len(v)), Limit: fmt.Sprintf("must have at most %d bytes", MaxURLBytes)}
	}
	// url.Parse is lenient: it keeps spaces, quotes and angle brackets,
	// which would then reach a Location header and a page as they are.
	for i, r := range v {
		if r >= utf8.RuneSelf || !isURLByte(byte(r)) {
			return &FieldError{Field: "url", Value: strconv.Quote(v),
				Limit: fmt.Sprintf("must not contain %q (U+%04X, byte %d): a URL may hold only ASCII letters, digits and %s; percent-encode anything else", r, r, i, urlPunctuation)}
		}
	}
	u, err := url.Parse(v)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" || u.User != nil {
		return &FieldError{Field: "url", Value: strconv.Quote(v), Limit: "must be an absolute http or https URL without credentials"}
	}
	return nil
}

// urlPunctuation is the punctuation RFC 3986 allows in a URL: the
// unreserved and reserved characters, and % for escapes.
const urlPunctuation = "-._~:/?#[]@!$&'()*+,;=%"

// isURLByte reports whether b may appear in a URL as it is.
func isURLByte(b byte) bool {
	return 'a' <= b && b <= 'z' || 'A' <= b && b <= 'Z' || '0' <= b && b <= '9' || strings.IndexByte(urlPunctuation, b) >= 0
}

func (c Config) checkTargets(in []Target) ([]Target, error) {
	if len(in) < 1 || len(in) > c.MaxPhrasesPerAd {
		return nil, &FieldError{Field: "targets", Value: fmt.Sprintf("(%d phrases)", len(in)), Limit: fmt.Sprintf("must list 1 to %d phrases (ads.max_phrases_per_ad)", c.MaxPhrasesPerAd)}
	}
	out := make([]Target, len(in))
	seen := make(map[string]int, len(in))
	for i, t := range in {
		field := fmt.Sprintf("targets[%d].phrase", i)
		// A phrase is checked as a title is before it is normalized:
		// NormalizePhrase would turn a NUL into a space and invalid
		// UTF-8 into U+FFFD, and store something other than what was given.
		if err := checkChars(field, t.Phrase); err != nil {
			return nil, err
		}
		p := NormalizePhrase(t.Phrase)
		switch {
		case p == "":
			return nil, &FieldError{Field: field, Value: strconv.Quote(t.Phrase), Limit: "must not be empty"}
		case !hasWord(p):
			return nil, &FieldError{Field: field, Value: strconv.Quote(t.Phrase), Limit: "must contain a letter, a digit or _: search finds no words in other punctuation and symbols alone"}
		case len(p) > MaxPhraseBytes:
			return nil, &FieldError{Field: field, Value: fmt.Sprintf("(%d bytes)", len(p)), Limit: fmt.Sprintf("must have at most %d bytes after normalization", MaxPhraseBytes)}
		}
		if j, dup := seen[p]; dup {
			return nil, &FieldError{Field: field, Value: strconv.Quote(p), Limit: fmt.Sprintf("must differ from targets[%d].phrase after normalization", j)}
		}
		seen[p] = i
		if err := c.checkBid(fmt.Sprintf("targets[%d].bid", i), t.Bid); err != nil {
			return nil, err
		}
		out[i] = Target{Phrase: p, Bid: t.Bid}
	}
	return out, nil
}

// BidIn converts a bid in currency units given for field (a request or
// command-line field) to Money, refusing NaN, bids outside [ads.min_bid,
// ads.max_bid] and bids finer than one micro (UnitsIn).
func (c Config) BidIn(field string, u float64) (Money, error) {
	if !(u >= c.MinBid && u <= c.MaxBid) {
		return 0, &FieldError{Field: field, Value: formatUnits(u), Limit: c.bidLimit()}
	}
	return UnitsIn(field, u)
}

// BudgetIn converts a daily budget in currency units given for field to
// Money, refusing NaN, budgets outside [0, ads.max_daily_budget] and
// budgets finer than one micro (UnitsIn).
func (c Config) BudgetIn(field string, u float64) (Money, error) {
	if !(u >= 0 && u <= c.MaxDailyBudget) {
		return 0, &FieldError{Field: field, Value: formatUnits(u), Limit: c.budgetLimit()}
	}
	return UnitsIn(field, u)
}

func (c Config) checkBid(field string, b Money) error {
	if b < MoneyFromUnits(c.MinBid) || b > MoneyFromUnits(c.MaxBid) {
		return &FieldError{Field: field, Value: b.String(), Limit: c.bidLimit()}
	}
	return nil
}

func (c Config) checkBudget(field string, b Money) error {
	if b < 0 || b > MoneyFromUnits(c.MaxDailyBudget) {
		return &FieldError{Field: field, Value: b.String(), Limit: c.budgetLimit()}
	}
	return nil
}

// bidLimit states the configured range of a bid, for every error about one.
func (c Config) bidLimit() string {
	return fmt.Sprintf("must be in [%s, %s] (ads.min_bid, ads.max_bid)", MoneyFromUnits(c.MinBid), MoneyFromUnits(c.MaxBid))
}

// budgetLimit states the configured range of a daily budget, for every
// error about one.
func (c Config) budgetLimit() string {
	return fmt.Sprintf("must be 0 (no budget) or in (0, %s] (ads.max_daily_budget)", MoneyFromUnits(c.MaxDailyBudget))
}
