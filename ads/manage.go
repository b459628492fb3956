package ads

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"math"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/deltaq/deltaq/repo"
)

// keyPrefix starts every advertiser API key, so a leaked key is easy to
// recognize in logs and scanners.
const keyPrefix = "dqa_"

// CreateAdvertiser registers an advertiser and returns it with its API
// key. The key is shown only here: the repository keeps its SHA-256 hash
// (the key carries 256 random bits, so a plain hash is enough). It is the
// operator's call, meant for a command line.
func (s *Store) CreateAdvertiser(ctx context.Context, p AdvertiserParams) (Advertiser, string, error) {
	name := strings.TrimSpace(p.Name)
	if err := checkText("name", name, 1, MaxNameRunes); err != nil {
		return Advertiser{}, "", err
	}
	if err := s.cfg.checkBudget("daily_budget", p.DailyBudget); err != nil {
		return Advertiser{}, "", err
	}
	tz := p.TimeZone
	if tz == "" {
		tz = s.cfg.TimeZone
	}
	loc, err := time.LoadLocation(tz)
	if err != nil {
		return Advertiser{}, "", &FieldError{Field: "time_zone", Value: strconv.Quote(tz), Limit: "must name an IANA time zone"}
	}
	var raw [32]byte
	if _, err := io.ReadFull(s.random, raw[:]); err != nil {
		return Advertiser{}, "", fmt.Errorf("ads: generate key: %w", err)
	}
	key := keyPrefix + b64.EncodeToString(raw[:])
	now := s.clock.Now()

	s.mu.Lock()
	defer s.mu.Unlock()
	a := &advertiser{id: s.mu.nextAdvertiser, name: name, keyHash: sha256.Sum256([]byte(key)), tz: tz, loc: loc, created: now.UTC()}
	a.state.Store(&budgetState{budget: p.DailyBudget, resetAt: nextMidnight(now, loc).UnixNano()})
	b := s.db.NewBatch(ctx)
	defer b.Close()
	err = errors.Join(
		b.PutBucket(bucket, keyAdvertiser(a.id), encode(recordOfAdvertiser(a))),
		b.PutBucket(bucket, keyNextAdvertiser, []byte(strconv.FormatUint(a.id+1, 10))),
	)
	if err == nil {
		err = b.Commit()
	}
	if err != nil {
		return Advertiser{}, "", fmt.Errorf("ads: create advertiser: %w", err)
	}
	s.mu.nextAdvertiser++
	s.mu.advertisers[a.id] = a
	s.mu.byKey[a.keyHash] = a
	s.logger.Info("ads advertiser created", "advertiser", a.id, "name", name)
	return a.public(), key, nil
}

func recordOfAdvertiser(a *advertiser) advertiserRecord {
	return advertiserRecord{
		ID: a.id, Name: a.name, KeyHash: hex.EncodeToString(a.keyHash[:]),
		DailyBudget: int64(a.state.Load().budget), TimeZone: a.tz, Created: a.created,
	}
}

func decodeKeyHash(s string, dst *[32]byte) error {
	b, err := hex.DecodeString(s)
	if err != nil || len(b) != 32 {
		return errors.New("bad key hash")
	}
	copy(dst[:], b)
	return nil
}

// Authenticate returns the advertiser whose API key is key.
func (s *Store) Authenticate(key string) (Advertiser, bool) {
	if !strings.HasPrefix(key, keyPrefix) || len(key) > 128 {
		return Advertiser{}, false
	}
	h := sha256.Sum256([]byte(key))
	s.mu.RLock()
	defer s.mu.RUnlock()
	a := s.mu.byKey[h]
	if a == nil {
		return Advertiser{}, false
	}
	return a.public(), true
}

// Advertiser returns an advertiser by id.
func (s *Store) Advertiser(id uint64) (Advertiser, error) {
	s.mu.RLock()
	defer s.mu.RUnlock()
	a := s.mu.advertisers[id]
	if a == nil {
		return Advertiser{}, ErrNotFound
	}
	return a.public(), nil
}

// SetDailyBudget changes an advertiser's daily budget d_i (zero: none).
// Today's spend is kept: a budget lowered below it stops the advertiser's
// ads until the next reset.
func (s *Store) SetDailyBudget(ctx context.Context, advertiserID uint64, budget Money) (Advertiser, error) {
	if err := s.cfg.checkBudget("daily_budget", budget); err != nil {
		return Advertiser{}, err
	}
	s.mu.RLock()
	a := s.mu.advertisers[advertiserID]
	s.mu.RUnlock()
	if a == nil {
		return Advertiser{}, ErrNotFound
	}
	a.chargeMu.Lock()
	defer a.chargeMu.Unlock()
	st := *a.state.Load()
	st.budget = budget
	rec := recordOfAdvertiser(a)
	rec.DailyBudget = int64(budget)
	b := s.db.NewBatch(ctx)
	defer b.Close()
	err := b.PutBucket(bucket, keyAdvertiser(a.id), encode(rec))
	if err == nil {
		err = b.Commit()
	}
	if err != nil {
		return Advertiser{}, fmt.Errorf("ads: set budget of advertiser %d: %w", a.id, err)
	}
	a.state.Store(&st)
	return a.public(), nil
}

// SubmitAd adds an active ad for an advertiser. It competes from the next
// query on (§6.8.3).
func (s *Store) SubmitAd(ctx context.Context, advertiserID uint64, spec AdSpec) (Ad, error) {
	if err := s.cfg.checkSpec(&spec); err != nil {
		return Ad{}, err
	}
	now := s.clock.Now()
	s.flushMu.Lock()
	defer s.flushMu.Unlock()
	s.mu.Lock()
	defer s.mu.Unlock()
	adv := s.mu.advertisers[advertiserID]
	if adv == nil {
		return Ad{}, ErrNotFound
	}
	if adv.active >= s.cfg.MaxAdsPerAdvertiser {
		return Ad{}, &FieldError{Field: "ads", Value: strconv.Itoa(adv.active),
			Limit: fmt.Sprintf("an advertiser may have at most %d active ads (ads.max_ads_per_advertiser)", s.cfg.MaxAdsPerAdvertiser)}
	}
	ad := Ad{
		ID: s.mu.nextAd, Advertiser: advertiserID, Title: spec.Title, Text: spec.Text, URL: spec.URL,
		Targets: spec.Targets, Status: StatusActive, Created: now.UTC(),
	}
	b := s.db.NewBatch(ctx)
	defer b.Close()
	err := errors.Join(
		b.PutBucket(bucket, keyAd(ad.ID), encode(recordOfAd(&ad))),
		b.PutBucket(bucket, keyOwned(advertiserID, ad.ID), nil),
		b.PutBucket(bucket, keyNextAd, []byte(strconv.FormatUint(ad.ID+1, 10))),
	)
	if err == nil {
		err = b.Commit()
	}
	if err != nil {
		return Ad{}, fmt.Errorf("ads: submit ad: %w", err)
	}
	s.mu.nextAd++
	la := &liveAd{ad: ad, adv: adv, targets: map[string]*target{}}
	s.mu.ads[ad.ID] = la
	adv.active++
	for _, t := range ad.Targets {
		if err := s.attachLocked(la, t); err != nil {
			return Ad{}, err
		}
	}
	s.logger.Debug("ads submitted", "ad", ad.ID, "advertiser", advertiserID)
	return cloneAd(ad), nil
}

// UpdateAd changes an active ad of the advertiser. An ad of another
// advertiser is ErrNotFound; a revoked ad cannot be changed.
func (s *Store) UpdateAd(ctx context.Context, advertiserID, adID uint64, u AdUpdate) (Ad, error) {
	s.flushMu.Lock()
	defer s.flushMu.Unlock()
	s.mu.Lock()
	defer s.mu.Unlock()
	la, err := s.ownedLocked(advertiserID, adID)
	if err != nil {
		return Ad{}, err
	}
	spec := AdSpec{Title: la.ad.Title, Text: la.ad.Text, URL: la.ad.URL, Targets: la.ad.Targets}
	if u.Title != nil {
		spec.Title = *u.Title
	}
	if u.Text != nil {
		spec.Text = *u.Text
	}
	if u.URL != nil {
		spec.URL = *u.URL
	}
	if u.Targets != nil {
		spec.Targets = *u.Targets
	}
	if err := s.cfg.checkSpec(&spec); err != nil {
		return Ad{}, err
	}
	next := cloneAd(la.ad)
	next.Title, next.Text, next.URL, next.Targets = spec.Title, spec.Text, spec.URL, spec.Targets
	keep := make(map[string]bool, len(next.Targets))
	for _, t := range next.Targets {
		keep[t.Phrase] = true
	}
	var dropped []*target
	for p, tg := range la.targets {
		if !keep[p] {
			dropped = append(dropped, tg)
		}
	}
	b := s.db.NewBatch(ctx)
	defer b.Close()
	if err := s.writeDetached(b, dropped); err != nil {
		return Ad{}, err
	}
	if err := b.PutBucket(bucket, keyAd(adID), encode(recordOfAd(&next))); err != nil {
		return Ad{}, fmt.Errorf("ads: update ad %d: %w", adID, err)
	}
	if err := b.Commit(); err != nil {
		return Ad{}, fmt.Errorf("ads: update ad %d: %w", adID, err)
	}
	for _, tg := range dropped {
		s.unlinkLocked(tg)
	}
	la.ad.Title, la.ad.Text, la.ad.URL, la.ad.Targets = next.Title, next.Text, next.URL, next.Targets
	for _, t := range next.Targets {
		if tg := la.targets[t.Phrase]; tg != nil {
			tg.bid = t.Bid
			continue
		}
		if err := s.attachLocked(la, t); err != nil {
			return Ad{}, err
		}
	}
	return cloneAd(la.ad), nil
}

// RevokeAd takes an ad out of competition for good (§6.8.3). Its
// statistics stay for reports. Revoking a revoked ad returns it unchanged.
func (s *Store) RevokeAd(ctx context.Context, advertiserID, adID uint64) (Ad, error) {
	s.flushMu.Lock()
	defer s.flushMu.Unlock()
	s.mu.Lock()
	defer s.mu.Unlock()
	la, err := s.ownedLocked(advertiserID, adID)
	var fe *FieldError
	if errors.As(err, &fe) && fe.Field == "status" {
		return s.storedAd(adID) // already revoked
	}
	if err != nil {
		return Ad{}, err
	}
	next := cloneAd(la.ad)
	next.Status, next.Revoked = StatusRevoked, s.clock.Now().UTC()
	targets := make([]*target, 0, len(la.targets))
	for _, tg := range la.targets {
		targets = append(targets, tg)
	}
	b := s.db.NewBatch(ctx)
	defer b.Close()
	if err := s.writeDetached(b, targets); err != nil {
		return Ad{}, err
	}
	if err := b.PutBucket(bucket, keyAd(adID), encode(recordOfAd(&next))); err != nil {
		return Ad{}, fmt.Errorf("ads: revoke ad %d: %w", adID, err)
	}
	if err := b.Commit(); err != nil {
		return Ad{}, fmt.Errorf("ads: revoke ad %d: %w", adID, err)
	}
	for _, tg := range targets {
		s.unlinkLocked(tg)
	}
	delete(s.mu.ads, adID)
	la.adv.active--
	s.logger.Debug("ads revoked", "ad", adID, "advertiser", advertiserID)
	return next, nil
}

// SetPrior sets the Beta(α, β) prior on the CTR of each of the ad's
// (ad, phrase) pairs (§6.8.1); the zero Prior removes it. Priors express
// the engine's belief, so only operators set them, never advertisers.
func (s *Store) SetPrior(ctx context.Context, adID uint64, p Prior) error {
	if p != (Prior{}) {
		for _, f := range []struct {
			name string
			v    float64
		}{{"prior.alpha", p.Alpha}, {"prior.beta", p.Beta}} {
			if !(f.v > 0 && f.v <= 1e9) || math.IsInf(f.v, 0) {
				return &FieldError{Field: f.name, Value: strconv.FormatFloat(f.v, 'g', -1, 64), Limit: "must be in (0, 1e9]"}
			}
		}
	}
	s.flushMu.Lock()
	defer s.flushMu.Unlock()
	s.mu.Lock()
	defer s.mu.Unlock()
	la := s.mu.ads[adID]
	if la == nil {
		return ErrNotFound
	}
	next := cloneAd(la.ad)
	next.Prior = p
	b := s.db.NewBatch(ctx)
	defer b.Close()
	err := b.PutBucket(bucket, keyAd(adID), encode(recordOfAd(&next)))
	if err == nil {
		err = b.Commit()
	}
	if err != nil {
		return fmt.Errorf("ads: set prior of ad %d: %w", adID, err)
	}
	la.ad.Prior = p
	return nil
}

// ownedLocked returns the active ad adID of the advertiser. Another
// advertiser's ad, or none, is ErrNotFound; a revoked ad of the advertiser
// is a FieldError on "status".
func (s *Store) ownedLocked(advertiserID, adID uint64) (*liveAd, error) {
	if la := s.mu.ads[adID]; la != nil {
		if la.adv.id != advertiserID {
			return nil, ErrNotFound
		}
		return la, nil
	}
	a, err := s.storedAd(adID)
	if err != nil {
		return nil, err
	}
	if a.Advertiser != advertiserID {
		return nil, ErrNotFound
	}
	return nil, &FieldError{Field: "status", Value: string(a.Status), Limit: "a revoked ad cannot be changed"}
}

// writeDetached puts the final counts of targets about to leave the index
// into b, and the query counts of phrases that lose their last ad.
// Callers hold flushMu and mu.
func (s *Store) writeDetached(b *repo.Batch, targets []*target) error {
	leaving := map[string]int{}
	for _, tg := range targets {
		tg.persistMu.Lock()
		err := b.PutBucket(bucket, keyStats(tg.adID, tg.phrase), encode(tg.record()))
		tg.persistMu.Unlock()
		if err != nil {
			return fmt.Errorf("ads: write stats: %w", err)
		}
		leaving[tg.phrase]++
	}
	for p, n := range leaving {
		pe := s.mu.phrases[p]
		if pe != nil && len(pe.targets) == n {
			if err := b.PutBucket(bucket, keyPhrase(p), encode(pe.snapshot())); err != nil {
				return fmt.Errorf("ads: write phrase: %w", err)
			}
		}
	}
	return nil
}

// unlinkLocked removes a target from the index. Callers hold mu.
func (s *Store) unlinkLocked(tg *target) {
	delete(tg.ad.targets, tg.phrase)
	pe := s.mu.phrases[tg.phrase]
	if pe == nil {
		return
	}
	pe.targets = slices.DeleteFunc(pe.targets, func(x *target) bool { return x == tg })
	if len(pe.targets) == 0 {
		delete(s.mu.phrases, tg.phrase)
	}
}

// storedAd reads an ad record from the repository.
func (s *Store) storedAd(id uint64) (Ad, error) {
	var r adRecord
	found, err := s.read(keyAd(id), &r)
	if err != nil {
		return Ad{}, err
	}
	if !found {
		return Ad{}, ErrNotFound
	}
	return r.ad(), nil
}

// Ad returns one of the advertiser's ads; another advertiser's ad is
// ErrNotFound.
func (s *Store) Ad(advertiserID, adID uint64) (Ad, error) {
	s.mu.RLock()
	la := s.mu.ads[adID]
	var a Ad
	if la != nil {
		a = cloneAd(la.ad)
	}
	s.mu.RUnlock()
	if la == nil {
		var err error
		if a, err = s.storedAd(adID); err != nil {
			return Ad{}, err
		}
	}
	if a.Advertiser != advertiserID {
		return Ad{}, ErrNotFound
	}
	return a, nil
}

// Ads lists the advertiser's ads, active and revoked, by id.
func (s *Store) Ads(ctx context.Context, advertiserID uint64) ([]Ad, error) {
	var ids []uint64
	prefix := keyOwnedPrefix(advertiserID)
	for kv, err := range s.db.BucketScan(ctx, bucket, prefix) {
		if err != nil {
			return nil, fmt.Errorf("ads: list ads: %w", err)
		}
		id, err := parseHex16(string(kv[0][len(prefix):]))
		if err != nil {
			return nil, err
		}
		ids = append(ids, id)
	}
	out := make([]Ad, 0, len(ids))
	for _, id := range ids {
		a, err := s.Ad(advertiserID, id)
		if err != nil {
			return nil, err
		}
		out = append(out, a)
	}
	return out, nil
}

// Report returns the advertiser's budget, today's spend, and impressions,
// clicks, CTR and spend of every (ad, phrase) pair. Each phrase an ad no
// longer targets but was shown for keeps a row of its own after the live
// ones (Removed, bid 0), so an ad's rows add up to everything it was shown
// and charged and still say which phrase earned what.
func (s *Store) Report(ctx context.Context, advertiserID uint64) (Report, error) {
	r, err := s.Account(advertiserID)
	if err != nil {
		return Report{}, err
	}
	list, err := s.Ads(ctx, advertiserID)
	if err != nil {
		return Report{}, err
	}
	for _, a := range list {
		ar := AdReport{Ad: a}
		// targeted is the phrases listed in their own rows; every other
		// stats record of the ad is a removed phrase's. Taken with the
		// rows, so a concurrent update counts a phrase in one place.
		targeted := map[string]bool{}
		s.mu.RLock()
		la := s.mu.ads[a.ID]
		if la != nil {
			for _, t := range la.ad.Targets {
				if tg := la.targets[t.Phrase]; tg != nil {
					ar.Phrases = append(ar.Phrases, tg.record().phraseStats(t.Phrase, tg.bid))
					targeted[t.Phrase] = true
				}
			}
		}
		s.mu.RUnlock()
		if la == nil {
			for _, t := range a.Targets {
				var rec statsRecord
				if _, err := s.read(keyStats(a.ID, t.Phrase), &rec); err != nil {
					return Report{}, err
				}
				ar.Phrases = append(ar.Phrases, rec.phraseStats(t.Phrase, t.Bid))
				targeted[t.Phrase] = true
			}
		}
		removed, err := s.removedStats(ctx, a.ID, targeted)
		if err != nil {
			return Report{}, err
		}
		ar.Phrases = append(ar.Phrases, removed...)
		r.Ads = append(r.Ads, ar)
	}
	return r, nil
}

// removedStats returns a row for each stats record of the ad whose phrase
// is not in targeted, in phrase order. A dropped phrase's record is
// written when it leaves the index (writeDetached) and never changes
// after, since a click on it is no longer charged. A phrase dropped
// before it was ever shown adds nothing to the totals and gets no row.
func (s *Store) removedStats(ctx context.Context, adID uint64, targeted map[string]bool) ([]PhraseStats, error) {
	var rows []PhraseStats
	prefix := keyStatsPrefix(adID)
	for kv, err := range s.db.BucketScan(ctx, bucket, prefix) {
		if err != nil {
			return nil, fmt.Errorf("ads: stats of ad %d: %w", adID, err)
		}
		key := string(kv[0])
		phrase := key[len(prefix):]
		if targeted[phrase] {
			continue
		}
		var rec statsRecord
		if err := decode(key, kv[1], &rec); err != nil {
			return nil, err
		}
		if rec == (statsRecord{}) {
			continue
		}
		row := rec.phraseStats(phrase, 0)
		row.Removed = true
		rows = append(rows, row)
	}
	return rows, nil
}

// Account is Report without the per-ad statistics: budget, spend today
// and the next reset.
func (s *Store) Account(advertiserID uint64) (Report, error) {
	s.mu.RLock()
	adv := s.mu.advertisers[advertiserID]
	s.mu.RUnlock()
	if adv == nil {
		return Report{}, ErrNotFound
	}
	st := adv.today(s.clock.Now())
	r := Report{Advertiser: adv.public(), SpentToday: st.spent, ResetsAt: time.Unix(0, st.resetAt).UTC()}
	if st.budget > 0 {
		r.RemainingToday = max(0, st.budget-st.spent)
	}
	return r, nil
}

func cloneAd(a Ad) Ad {
	a.Targets = slices.Clone(a.Targets)
	return a
}
