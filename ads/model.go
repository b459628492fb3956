package ads

import (
	"errors"
	"fmt"
	"time"
)

// ErrNotFound is returned for an advertiser or ad that does not exist, or
// that belongs to another advertiser.
var ErrNotFound = errors.New("ads: not found")

// Status is the state of an ad.
type Status string

// Ad states: an active ad competes for queries; a revoked one never does
// again, but its history stays for reports (§6.8.3).
const (
	StatusActive  Status = "active"
	StatusRevoked Status = "revoked"
)

// Advertiser is A_i of §6.1: who pays for clicks, with an optional daily
// budget d_i.
type Advertiser struct {
	ID   uint64
	Name string
	// DailyBudget is d_i; zero means no budget.
	DailyBudget Money
	// TimeZone is the IANA zone whose midnight resets the budget.
	TimeZone string
	Created  time.Time
}

// AdvertiserParams describes a new advertiser.
type AdvertiserParams struct {
	Name        string
	DailyBudget Money  // zero: no budget
	TimeZone    string // empty: ads.time_zone
}

// Target is one query phrase an ad targets, with its bid b_ij per click.
type Target struct {
	Phrase string
	Bid    Money
}

// Ad is an advertisement: the text shown, where a click leads, and the
// phrases it targets. Each (ad, phrase) pair is the ad a_ij of §6.1, with
// its own click-through rate.
type Ad struct {
	ID         uint64
	Advertiser uint64
	Title      string
	Text       string
	URL        string
	Targets    []Target
	// Prior is the engine's Beta prior on the CTR of each (ad, phrase)
	// pair (§6.8.1), set by an operator with SetPrior, never by the
	// advertiser; zero means none.
	Prior   Prior
	Status  Status
	Created time.Time
	Revoked time.Time // zero while active
}

// AdSpec is what an advertiser submits.
type AdSpec struct {
	Title   string
	Text    string
	URL     string
	Targets []Target
}

// AdUpdate changes an ad; nil fields are left as they are. Targets, when
// set, replaces the whole list: phrases kept keep their statistics and take
// the new bid, phrases dropped stop competing (their statistics stay in the
// report, in a Removed row each), new phrases start fresh.
type AdUpdate struct {
	Title   *string
	Text    *string
	URL     *string
	Targets *[]Target
}

// PhraseStats is what happened to one (ad, phrase) pair.
type PhraseStats struct {
	Phrase      string
	Bid         Money
	Impressions int64 // n_ij
	Clicks      int64 // s_ij
	Spend       Money // charged for these clicks, all days
	// Removed marks a phrase the ad no longer targets; its Bid is zero.
	// What was shown and charged for a phrase stays in the report after
	// the phrase is dropped, so the report adds up to what the advertiser
	// paid. A flag rather than a label in Phrase, since an advertiser may
	// target any phrase, a label's spelling included.
	Removed bool
}

// CTR returns clicks per impression, 0 before the first impression.
func (p PhraseStats) CTR() float64 {
	if p.Impressions == 0 {
		return 0
	}
	return float64(p.Clicks) / float64(p.Impressions)
}

// AdReport is an ad with its statistics per target phrase.
type AdReport struct {
	Ad      Ad
	Phrases []PhraseStats
}

// Report is an advertiser's account: budget, today's spend and every ad.
type Report struct {
	Advertiser     Advertiser
	SpentToday     Money
	RemainingToday Money     // zero without a budget
	ResetsAt       time.Time // the next daily reset
	Ads            []AdReport
}

// FieldError is bad input: the field, the value given and the limit it
// breaks. The advertiser API answers it with 400 and the field name.
type FieldError struct {
	Field string
	Value string
	Limit string
}

func (e *FieldError) Error() string {
	if e.Value == "" {
		return fmt.Sprintf("ads: %s: %s", e.Field, e.Limit)
	}
	return fmt.Sprintf("ads: %s = %s: %s", e.Field, e.Value, e.Limit)
}
