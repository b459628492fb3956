package ads

import (
	"context"
	"time"
)

// Shown is an ad chosen for a query, ready to render.
type Shown struct {
	AdID  uint64 `json:"ad_id"`
	Title string `json:"title"`
	Text  string `json:"text"`
	// URL is the ad's target, for display; links must use ClickURL.
	URL string `json:"url"`
	// ClickURL is the signed, relative click URL (ClickPath?...).
	ClickURL string `json:"click_url"`
}

// Select chooses up to c ads for a query (c <= 0 means ads.per_query) with
// the configured policy, among active ads targeting the normalized phrase
// whose advertisers have budget left today, and records one impression
// for each. It counts the query toward n_j even when no ad is eligible.
// A phrase no ad targets costs one map lookup.
func (s *Store) Select(ctx context.Context, phrase string, c int) ([]Shown, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	if c <= 0 {
		c = s.cfg.PerQuery
	}
	c = min(c, MaxPerQuery)
	phrase = NormalizePhrase(phrase)
	now := s.clock.Now()

	type pick struct {
		tg  *target
		bid Money
	}
	var picksBuf [MaxPerQuery]pick
	picks := picksBuf[:0]
	var shown []Shown

	s.mu.RLock()
	pe := s.mu.phrases[phrase]
	if pe == nil {
		s.mu.RUnlock()
		return nil, nil
	}
	n := pe.next(now, s.loc, s.cfg.QueryCount)
	cp := s.cands.Get().(*[]Candidate)
	cands := (*cp)[:0]
	for _, tg := range pe.targets {
		cands = append(cands, s.candidateLocked(tg, now))
	}
	var idxBuf [MaxPerQuery]int
	idx := Select(s.policy, cands, n, c, idxBuf[:0])
	*cp = cands
	s.cands.Put(cp)
	if len(idx) > 0 {
		shown = make([]Shown, len(idx))
	}
	for k, i := range idx {
		tg := pe.targets[i]
		tg.shown.Add(1)
		tg.dirty.Store(true)
		ad := &tg.ad.ad
		shown[k] = Shown{AdID: ad.ID, Title: ad.Title, Text: ad.Text, URL: ad.URL}
		picks = append(picks, pick{tg: tg, bid: tg.bid})
	}
	s.mu.RUnlock()

	for k, p := range picks {
		id, err := s.links.newImpressionID()
		if err != nil {
			return nil, err
		}
		shown[k].ClickURL = s.links.clickURL(impression{ID: id, Ad: p.tg.adID, Phrase: phrase, Bid: p.bid, Issued: now.Unix()})
	}
	s.logger.Debug("ads selected", "phrase", phrase, "n", len(shown), "policy", s.policy.Name())
	return shown, nil
}

// candidateLocked snapshots a target for the policies. Callers hold mu for
// reading.
func (s *Store) candidateLocked(tg *target, now time.Time) Candidate {
	c := Candidate{
		ID:     tg.adID,
		Bid:    float64(tg.bid),
		Shown:  tg.shown.Load(),
		Clicks: tg.clicks.Load(),
		Prior:  tg.ad.ad.Prior,
	}
	st := tg.ad.adv.state.Load()
	if st.budget > 0 {
		spent := st.spent
		if now.UnixNano() >= st.resetAt {
			spent = 0 // a new day: the budget has reset
		}
		c.Budgeted = true
		c.Budget = float64(st.budget)
		c.Remaining = float64(st.budget - spent)
	}
	return c
}
