package ads

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"time"

	"github.com/deltaq/deltaq/repo"
)

// ClickOutcome says what a click did to the advertiser's account.
type ClickOutcome string

// Click outcomes. Only ClickCharged moves money; every outcome but a bad
// URL redirects the user to the ad's target.
const (
	// ClickCharged: the click was charged the bid, or what was left of the
	// budget if that was less.
	ClickCharged ClickOutcome = "charged"
	// ClickExhausted: the advertiser had no budget left today; the click
	// counts toward the CTR but costs nothing.
	ClickExhausted ClickOutcome = "exhausted"
	// ClickDuplicate: this impression was clicked before.
	ClickDuplicate ClickOutcome = "duplicate"
	// ClickExpired: the impression is older than ads.click_ttl.
	ClickExpired ClickOutcome = "expired"
	// ClickRevoked: the ad was revoked, or no longer targets the phrase,
	// since the impression.
	ClickRevoked ClickOutcome = "revoked"
)

// ClickResult is the effect of one click.
type ClickResult struct {
	URL     string // the ad's target
	Outcome ClickOutcome
	Charged Money
}

// Click verifies a click URL's query (everything after "?"), charges the
// advertiser the bid carried in it while the daily budget lasts, and
// returns where to send the user. A second click on the same impression
// is never charged. Charges of one advertiser are serialized, and each
// one commits the new spend, the clicked impression and the pair's counts
// in one synced batch, so the day's spend never exceeds the budget, also
// across restarts. A malformed or forged URL returns an error wrapping
// ErrBadClick.
func (s *Store) Click(ctx context.Context, rawQuery string) (ClickResult, error) {
	imp, err := s.links.parseClick(rawQuery)
	if err != nil {
		return ClickResult{}, err
	}
	now := s.clock.Now()

	s.mu.RLock()
	la := s.mu.ads[imp.Ad]
	var tg *target
	var adURL string
	var adv *advertiser
	if la != nil {
		tg = la.targets[imp.Phrase]
		adURL = la.ad.URL
		adv = la.adv
	}
	s.mu.RUnlock()

	if la == nil {
		a, err := s.storedAd(imp.Ad)
		if errors.Is(err, ErrNotFound) {
			return ClickResult{}, &BadClickError{Field: "a", Value: strconv.FormatUint(imp.Ad, 10), Limit: "must name an ad of this server"}
		}
		if err != nil {
			return ClickResult{}, err
		}
		adURL = a.URL
	}
	// An ad stored before its URL was checked as strictly as today is
	// neither charged nor followed: the user would be sent to whatever a
	// browser makes of it.
	if err := checkURL(adURL); err != nil {
		return ClickResult{}, fmt.Errorf("ads: ad %d has a target the server will not redirect to: %w", imp.Ad, err)
	}
	if la == nil {
		return ClickResult{URL: adURL, Outcome: ClickRevoked}, nil
	}
	res := ClickResult{URL: adURL}
	if now.Sub(time.Unix(imp.Issued, 0)) > s.cfg.ClickTTL {
		res.Outcome = ClickExpired
		return res, nil
	}
	if tg == nil {
		res.Outcome = ClickRevoked
		return res, nil
	}

	adv.chargeMu.Lock()
	defer adv.chargeMu.Unlock()
	dup, err := s.clickedBefore(imp)
	if err != nil {
		return res, err
	}
	if dup {
		res.Outcome = ClickDuplicate
		return res, nil
	}
	st := adv.today(now)
	charge := Charge(imp.Bid, st.budget > 0, st.budget-st.spent)
	st.spent += charge
	res.Outcome, res.Charged = ClickCharged, charge
	if charge == 0 {
		res.Outcome = ClickExhausted
	}

	tg.persistMu.Lock()
	defer tg.persistMu.Unlock()
	tg.clicks.Add(1)
	tg.spend.Add(int64(charge))
	b := s.db.NewBatch(ctx)
	defer b.Close()
	err = errors.Join(
		b.PutBucket(bucket, keyClicked(imp.Issued, imp.ID), nil),
		b.PutBucket(bucket, keySpend(adv.id), encode(spendRecord{Spent: int64(st.spent), ResetAt: st.resetAt})),
		b.PutBucket(bucket, keyStats(tg.adID, tg.phrase), encode(tg.record())),
	)
	if err == nil {
		err = b.Commit()
	}
	if err != nil {
		tg.clicks.Add(-1)
		tg.spend.Add(-int64(charge))
		return res, fmt.Errorf("ads: record click on ad %d: %w", imp.Ad, err)
	}
	adv.state.Store(&st)
	s.clicked.add(imp.ID)
	s.logger.Debug("ads click", "ad", imp.Ad, "phrase", imp.Phrase, "outcome", string(res.Outcome), "charged", charge.String())
	return res, nil
}

// clickedBefore reports whether the impression was clicked before: in the
// recent set, or else in the repository. Callers hold the advertiser's
// chargeMu.
func (s *Store) clickedBefore(imp impression) (bool, error) {
	if s.clicked.contains(imp.ID) {
		return true, nil
	}
	_, err := s.db.Bucket(bucket, keyClicked(imp.Issued, imp.ID))
	switch {
	case err == nil:
		s.clicked.add(imp.ID)
		return true, nil
	case errors.Is(err, repo.ErrNotFound):
		return false, nil
	default:
		return false, fmt.Errorf("ads: look up click %s: %w", imp.ID, err)
	}
}

// pruneClicked deletes clicked-impression records older than
// ads.click_ttl: such impressions can no longer be charged, so they need
// not be remembered. Records are keyed by time, so the scan stops at the
// first young one.
func (s *Store) pruneClicked(ctx context.Context) error {
	limit := s.clock.Now().Add(-s.cfg.ClickTTL).Unix()
	var old []string
	for kv, err := range s.db.BucketScan(ctx, bucket, prefixClicked) {
		if err != nil {
			return fmt.Errorf("ads: scan clicks: %w", err)
		}
		k := string(kv[0])
		if len(k) < 2+16 {
			continue
		}
		issued, err := parseHex16(k[2:18])
		if err != nil || int64(issued) >= limit {
			break
		}
		old = append(old, k)
		if len(old) >= 10_000 {
			break // the rest goes next time
		}
	}
	if len(old) == 0 {
		return nil
	}
	b := s.db.NewBatch(ctx)
	defer b.Close()
	for _, k := range old {
		if err := b.DeleteBucket(bucket, k); err != nil {
			return fmt.Errorf("ads: prune clicks: %w", err)
		}
	}
	if err := b.Commit(); err != nil {
		return fmt.Errorf("ads: prune clicks: %w", err)
	}
	return nil
}
