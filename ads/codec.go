package ads

import (
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"time"

	"github.com/deltaq/deltaq/repo"
)

// bucket is the repository bucket holding all ads state. Keys within it
// (see doc.go for the table):
//
//	v/<advertiser>            advertiserRecord
//	a/<ad>                    adRecord
//	o/<advertiser>/<ad>       empty: the advertiser's ads, for listing
//	s/<ad>/<phrase>           statsRecord: n_ij, s_ij, spend
//	q/<phrase>                phraseRecord: n_j (total and today)
//	d/<advertiser>            spendRecord: spend today and the next reset
//	x/<issued>/<impression>   empty: a clicked impression, pruned after ads.click_ttl
//	n/advertiser, n/ad        the next id, decimal
//	secret                    the generated HMAC secret, when ads.secret is empty
//
// <advertiser> and <ad> are 16 lower-case hex digits and <issued> is the
// impression's Unix second in 16 hex digits, so scans come out in id and
// time order. Values are JSON.
const bucket = "ads"

func hex16(v uint64) string {
	const digits = "0123456789abcdef"
	var b [16]byte
	for i := 15; i >= 0; i-- {
		b[i] = digits[v&0xf]
		v >>= 4
	}
	return string(b[:])
}

func keyAdvertiser(id uint64) string   { return "v/" + hex16(id) }
func keyAd(id uint64) string           { return "a/" + hex16(id) }
func keyOwned(adv, ad uint64) string   { return "o/" + hex16(adv) + "/" + hex16(ad) }
func keyOwnedPrefix(adv uint64) string { return "o/" + hex16(adv) + "/" }
func keyStats(ad uint64, phrase string) string {
	return keyStatsPrefix(ad) + phrase
}
func keyStatsPrefix(ad uint64) string { return "s/" + hex16(ad) + "/" }
func keyPhrase(phrase string) string  { return "q/" + phrase }
func keySpend(adv uint64) string      { return "d/" + hex16(adv) }
func keyClicked(issued int64, imp string) string {
	return "x/" + hex16(uint64(issued)) + "/" + imp
}

const (
	keyNextAdvertiser = "n/advertiser"
	keyNextAd         = "n/ad"
	keySecret         = "secret"
	prefixAdvertisers = "v/"
	prefixAds         = "a/"
	prefixClicked     = "x/"
)

// parseHex16 decodes a 16-digit id.
func parseHex16(s string) (uint64, error) {
	if len(s) != 16 {
		return 0, fmt.Errorf("ads: bad id %q", s)
	}
	return strconv.ParseUint(s, 16, 64)
}

type advertiserRecord struct {
	ID          uint64    `json:"id"`
	Name        string    `json:"name"`
	KeyHash     string    `json:"key_hash"` // hex SHA-256 of the API key
	DailyBudget int64     `json:"daily_budget_micros"`
	TimeZone    string    `json:"time_zone"`
	Created     time.Time `json:"created"`
}

type targetRecord struct {
	Phrase string `json:"phrase"`
	Bid    int64  `json:"bid_micros"`
}

type adRecord struct {
	ID         uint64         `json:"id"`
	Advertiser uint64         `json:"advertiser"`
	Title      string         `json:"title"`
	Text       string         `json:"text"`
	URL        string         `json:"url"`
	Targets    []targetRecord `json:"targets"`
	Alpha      float64        `json:"prior_alpha,omitempty"`
	Beta       float64        `json:"prior_beta,omitempty"`
	Status     Status         `json:"status"`
	Created    time.Time      `json:"created"`
	Revoked    time.Time      `json:"revoked,omitzero"`
}

func recordOfAd(a *Ad) adRecord {
	r := adRecord{
		ID: a.ID, Advertiser: a.Advertiser, Title: a.Title, Text: a.Text, URL: a.URL,
		Alpha: a.Prior.Alpha, Beta: a.Prior.Beta, Status: a.Status, Created: a.Created, Revoked: a.Revoked,
	}
	for _, t := range a.Targets {
		r.Targets = append(r.Targets, targetRecord{Phrase: t.Phrase, Bid: int64(t.Bid)})
	}
	return r
}

func (r adRecord) ad() Ad {
	a := Ad{
		ID: r.ID, Advertiser: r.Advertiser, Title: r.Title, Text: r.Text, URL: r.URL,
		Prior: Prior{Alpha: r.Alpha, Beta: r.Beta}, Status: r.Status, Created: r.Created, Revoked: r.Revoked,
	}
	for _, t := range r.Targets {
		a.Targets = append(a.Targets, Target{Phrase: t.Phrase, Bid: Money(t.Bid)})
	}
	return a
}

type statsRecord struct {
	Impressions int64 `json:"impressions"`
	Clicks      int64 `json:"clicks"`
	Spend       int64 `json:"spend_micros"`
}

func (r statsRecord) phraseStats(phrase string, bid Money) PhraseStats {
	return PhraseStats{Phrase: phrase, Bid: bid, Impressions: r.Impressions, Clicks: r.Clicks, Spend: Money(r.Spend)}
}

type phraseRecord struct {
	Total  int64 `json:"total"`
	Today  int64 `json:"today"`
	DayEnd int64 `json:"day_end_unix_nano"` // when Today resets
}

type spendRecord struct {
	Spent   int64 `json:"spent_micros"`
	ResetAt int64 `json:"reset_at_unix_nano"`
}

func encode(v any) []byte {
	b, err := json.Marshal(v)
	if err != nil {
		// Only plain structs of numbers, strings and times are encoded
		// here; Marshal cannot fail on them.
		panic(fmt.Sprintf("ads: encode %T: %v", v, err))
	}
	return b
}

func decode(key string, b []byte, v any) error {
	if err := json.Unmarshal(b, v); err != nil {
		return fmt.Errorf("ads: decode %s: %w", key, err)
	}
	return nil
}

// read decodes the record at key into v and reports whether there is one.
func (s *Store) read(key string, v any) (bool, error) {
	b, err := s.db.Bucket(bucket, key)
	if errors.Is(err, repo.ErrNotFound) {
		return false, nil
	}
	if err != nil {
		return false, fmt.Errorf("ads: read %s: %w", key, err)
	}
	return true, decode(key, b, v)
}
