package ads

import (
	"context"
	"errors"
	"net/url"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/deltaq/deltaq/internal/clock"
	"github.com/deltaq/deltaq/repo"
)

var t0 = time.Date(2026, 3, 10, 10, 0, 0, 0, time.UTC)

func testConfig() Config {
	return Config{
		Policy: "bmix-e", PerQuery: 2, TimeZone: "UTC", QueryCount: QueryCountTotal,
		MaxAdsPerAdvertiser: 5, MaxPhrasesPerAd: 3, MinBid: 0.01, MaxBid: 10, MaxDailyBudget: 1000,
		Secret: strings.Repeat("k", 32), ClickTTL: time.Hour, RecentClicks: 4,
		FlushInterval: time.Minute, MaxRequestBytes: 4096,
	}
}

// env is a Store on a real Pebble repository in a temporary directory,
// with a manual clock.
type env struct {
	t   testing.TB
	dir string
	cfg Config
	clk *clock.Manual
	db  *repo.DB
	s   *Store
}

func newEnv(t testing.TB, cfg Config) *env {
	t.Helper()
	e := &env{t: t, dir: t.TempDir(), cfg: cfg, clk: clock.NewManual(t0)}
	e.open()
	t.Cleanup(e.close)
	return e
}

func (e *env) open() {
	e.t.Helper()
	db, err := repo.Open(e.dir, repo.Config{VersionsKept: 1, FetchLogKept: 2, StatsKept: 1, CacheBytes: 1 << 20}, repo.Options{})
	if err != nil {
		e.t.Fatal(err)
	}
	s, err := Open(e.t.Context(), db, e.cfg, Options{Clock: e.clk})
	if err != nil {
		db.Close()
		e.t.Fatal(err)
	}
	e.db, e.s = db, s
}

func (e *env) close() {
	if e.s == nil {
		return
	}
	if err := e.s.Close(context.Background()); err != nil {
		e.t.Error(err)
	}
	if err := e.db.Close(); err != nil {
		e.t.Error(err)
	}
	e.s = nil
}

// restart closes the store and the repository and opens both again.
func (e *env) restart() {
	e.t.Helper()
	e.close()
	e.open()
}

func (e *env) advertiser(budget float64, tz string) Advertiser {
	e.t.Helper()
	a, key, err := e.s.CreateAdvertiser(e.t.Context(), AdvertiserParams{Name: "acme", DailyBudget: MoneyFromUnits(budget), TimeZone: tz})
	if err != nil {
		e.t.Fatal(err)
	}
	if !strings.HasPrefix(key, keyPrefix) {
		e.t.Fatalf("key %q lacks prefix %q", key, keyPrefix)
	}
	return a
}

func (e *env) submit(adv uint64, bid float64, phrases ...string) Ad {
	e.t.Helper()
	spec := AdSpec{Title: "Shoes for all", Text: "Cheap", URL: "https://shop.example/p?x=1"}
	for _, p := range phrases {
		spec.Targets = append(spec.Targets, Target{Phrase: p, Bid: MoneyFromUnits(bid)})
	}
	a, err := e.s.SubmitAd(e.t.Context(), adv, spec)
	if err != nil {
		e.t.Fatal(err)
	}
	return a
}

func (e *env) selectAds(phrase string, c int) []Shown {
	e.t.Helper()
	shown, err := e.s.Select(e.t.Context(), phrase, c)
	if err != nil {
		e.t.Fatal(err)
	}
	return shown
}

func (e *env) spentToday(adv uint64) Money {
	e.t.Helper()
	r, err := e.s.Report(e.t.Context(), adv)
	if err != nil {
		e.t.Fatal(err)
	}
	return r.SpentToday
}

func (e *env) click(rawURL string) ClickResult {
	e.t.Helper()
	_, q, _ := strings.Cut(rawURL, "?")
	res, err := e.s.Click(e.t.Context(), q)
	if err != nil {
		e.t.Fatal(err)
	}
	return res
}

func TestAdsCanBeSubmittedAndRevokedAtAnyTime(t *testing.T) {
	e := newEnv(t, testConfig())
	adv := e.advertiser(0, "")
	if got := e.selectAds("shoes", 0); len(got) != 0 {
		t.Fatalf("before any ad: %d shown", len(got))
	}
	ad := e.submit(adv.ID, 1, "Running  Shoes")
	got := e.selectAds("  RUNNING shoes ", 0)
	if len(got) != 1 || got[0].AdID != ad.ID || !strings.HasPrefix(got[0].ClickURL, ClickPath+"?") {
		t.Fatalf("after submit: %+v", got)
	}
	if _, err := e.s.RevokeAd(t.Context(), adv.ID, ad.ID); err != nil {
		t.Fatal(err)
	}
	if got := e.selectAds("running shoes", 0); len(got) != 0 {
		t.Fatalf("after revoke: %+v", got)
	}
	again, err := e.s.RevokeAd(t.Context(), adv.ID, ad.ID)
	if err != nil || again.Status != StatusRevoked || again.Revoked.IsZero() {
		t.Fatalf("revoking twice = %+v, %v; want the revoked ad", again, err)
	}
}

func TestSelectCountsImpressionsAndQueries(t *testing.T) {
	e := newEnv(t, testConfig())
	adv := e.advertiser(0, "")
	e.submit(adv.ID, 1, "shoes")
	e.submit(adv.ID, 2, "shoes")
	e.submit(adv.ID, 3, "shoes")
	for range 10 {
		if got := e.selectAds("shoes", 2); len(got) != 2 {
			t.Fatalf("shown %d, want C = 2", len(got))
		}
	}
	r, err := e.s.Report(t.Context(), adv.ID)
	if err != nil {
		t.Fatal(err)
	}
	var total int64
	for _, a := range r.Ads {
		for _, p := range a.Phrases {
			if p.Impressions == 0 {
				t.Errorf("ad %d never shown: MIX-style policies show every ad before repeating", a.Ad.ID)
			}
			total += p.Impressions
		}
	}
	if total != 20 {
		t.Fatalf("impressions = %d, want 10 queries × 2", total)
	}
	if n := e.s.mu.phrases["shoes"].total; n != 10 {
		t.Fatalf("n_j = %d, want 10", n)
	}
}

func TestClickChargesTheBid(t *testing.T) {
	e := newEnv(t, testConfig())
	adv := e.advertiser(5, "")
	e.submit(adv.ID, 0.25, "shoes")
	shown := e.selectAds("shoes", 1)
	if res := e.click(shown[0].ClickURL); res.Outcome != ClickCharged || res.URL != "https://shop.example/p?x=1" {
		t.Fatalf("click = %+v, want charged and the ad's URL", res)
	}
	if got := e.spentToday(adv.ID); got != MoneyFromUnits(0.25) {
		t.Fatalf("spent %v, want the bid 0.25", got)
	}
	r, _ := e.s.Report(t.Context(), adv.ID)
	if p := r.Ads[0].Phrases[0]; p.Clicks != 1 || p.Impressions != 1 || p.CTR() != 1 || p.Spend != MoneyFromUnits(0.25) {
		t.Fatalf("stats = %+v", p)
	}
}

func TestRepeatedClickIsChargedOnce(t *testing.T) {
	e := newEnv(t, testConfig())
	adv := e.advertiser(5, "")
	e.submit(adv.ID, 0.25, "shoes")
	u := e.selectAds("shoes", 1)[0].ClickURL
	for i := range 3 {
		if res := e.click(u); res.URL != "https://shop.example/p?x=1" || (i > 0) != (res.Outcome == ClickDuplicate) {
			t.Fatalf("click %d = %+v", i, res)
		}
	}
	if got := e.spentToday(adv.ID); got != MoneyFromUnits(0.25) {
		t.Fatalf("spent %v after three clicks on one impression, want 0.25", got)
	}
	if res := e.click(u); res.Outcome != ClickDuplicate || res.Charged != 0 {
		t.Fatalf("fourth click = %+v, want a free duplicate", res)
	}
}

func TestForgedClickURLsAreRejected(t *testing.T) {
	e := newEnv(t, testConfig())
	adv := e.advertiser(5, "")
	e.submit(adv.ID, 0.25, "shoes")
	good := e.selectAds("shoes", 1)[0].ClickURL
	_, rawQuery, _ := strings.Cut(good, "?")
	q, _ := url.ParseQuery(rawQuery)
	with := func(k, v string) string {
		q2, _ := url.ParseQuery(rawQuery)
		if v == "" {
			q2.Del(k)
		} else {
			q2.Set(k, v)
		}
		return ClickPath + "?" + q2.Encode()
	}
	other := newClickSigner([]byte(strings.Repeat("x", 32)), nil)
	forgedImp, _ := e.s.links.parseClick(rawQuery)
	forgedImp.Bid = 1
	for _, tc := range []struct{ name, url string }{
		{"a raised bid", with("b", "9000000")},
		{"another ad", with("a", "999")},
		{"another phrase", with("p", "boots")},
		{"another impression id", with("i", "AAAAAAAAAAAAAAAA")},
		{"an older time", with("t", "1")},
		{"no signature", with("s", "")},
		{"a truncated signature", with("s", q.Get("s")[:10])},
		{"a signature under another secret", other.clickURL(forgedImp)},
		{"no parameters", ClickPath},
		{"garbage", ClickPath + "?%zz"},
	} {
		t.Run("with "+tc.name, func(t *testing.T) {
			_, raw, _ := strings.Cut(tc.url, "?")
			if res, err := e.s.Click(t.Context(), raw); !errors.Is(err, ErrBadClick) {
				t.Fatalf("Click = %+v, %v; want ErrBadClick", res, err)
			}
		})
	}
	if got := e.spentToday(adv.ID); got != 0 {
		t.Fatalf("forged clicks spent %v", got)
	}
}

func TestClicksThatAreNotCharged(t *testing.T) {
	t.Run("an expired impression redirects without a charge", func(t *testing.T) {
		e := newEnv(t, testConfig())
		adv := e.advertiser(5, "")
		e.submit(adv.ID, 0.25, "shoes")
		u := e.selectAds("shoes", 1)[0].ClickURL
		e.clk.Advance(e.cfg.ClickTTL + time.Second)
		if res := e.click(u); res.Outcome != ClickExpired || res.URL == "" || e.spentToday(adv.ID) != 0 {
			t.Fatalf("outcome %s, spent %v; want expired and nothing", res.Outcome, e.spentToday(adv.ID))
		}
	})
	t.Run("a revoked ad redirects without a charge", func(t *testing.T) {
		e := newEnv(t, testConfig())
		adv := e.advertiser(5, "")
		ad := e.submit(adv.ID, 0.25, "shoes")
		u := e.selectAds("shoes", 1)[0].ClickURL
		if _, err := e.s.RevokeAd(t.Context(), adv.ID, ad.ID); err != nil {
			t.Fatal(err)
		}
		if res := e.click(u); res.Outcome != ClickRevoked || res.URL != ad.URL || e.spentToday(adv.ID) != 0 {
			t.Fatalf("outcome %s, spent %v; want revoked and nothing", res.Outcome, e.spentToday(adv.ID))
		}
	})
}

func TestExhaustedBudgetRemovesAdsUntilTheDailyReset(t *testing.T) {
	e := newEnv(t, testConfig())
	adv := e.advertiser(1, "")
	e.submit(adv.ID, 0.40, "shoes")
	var urls []string
	for range 4 {
		urls = append(urls, e.selectAds("shoes", 1)[0].ClickURL)
	}
	wantCharges := []Money{MoneyFromUnits(0.40), MoneyFromUnits(0.40), MoneyFromUnits(0.20), 0}
	wantOutcomes := []ClickOutcome{ClickCharged, ClickCharged, ClickCharged, ClickExhausted}
	for i, u := range urls {
		res := e.click(u)
		if res.Charged != wantCharges[i] || res.Outcome != wantOutcomes[i] {
			t.Fatalf("click %d = %+v, want %v %s", i, res, wantCharges[i], wantOutcomes[i])
		}
	}
	if got := e.spentToday(adv.ID); got != Unit {
		t.Fatalf("spent %v, want exactly the budget 1", got)
	}
	if got := e.selectAds("shoes", 1); len(got) != 0 {
		t.Fatalf("exhausted advertiser still shown: %+v", got)
	}
	e.clk.Set(time.Date(2026, 3, 10, 23, 59, 59, 0, time.UTC))
	if got := e.selectAds("shoes", 1); len(got) != 0 {
		t.Fatal("shown again before midnight")
	}
	e.clk.Set(time.Date(2026, 3, 11, 0, 0, 0, 0, time.UTC))
	if got := e.selectAds("shoes", 1); len(got) != 1 {
		t.Fatal("not shown after the midnight reset")
	}
	if got := e.spentToday(adv.ID); got != 0 {
		t.Fatalf("spent today after reset = %v, want 0", got)
	}
}

func TestBudgetResetsAtMidnightInTheAdvertisersTimeZone(t *testing.T) {
	e := newEnv(t, testConfig())
	ny := e.advertiser(0.5, "America/New_York") // UTC−4 in March 2026
	utc := e.advertiser(0.5, "")
	e.submit(ny.ID, 0.5, "boots")
	e.submit(utc.ID, 0.5, "boots")
	for range 2 {
		for _, sh := range e.selectAds("boots", 2) {
			e.click(sh.ClickURL)
		}
	}
	if e.spentToday(ny.ID) != MoneyFromUnits(0.5) || e.spentToday(utc.ID) != MoneyFromUnits(0.5) {
		t.Fatal("budgets not exhausted")
	}
	for _, tc := range []struct {
		at       time.Time
		wantAds  int
		resetFor string
	}{
		{time.Date(2026, 3, 10, 23, 59, 0, 0, time.UTC), 0, "nobody"},
		{time.Date(2026, 3, 11, 0, 0, 0, 0, time.UTC), 1, "the UTC advertiser"},
		{time.Date(2026, 3, 11, 3, 59, 0, 0, time.UTC), 1, "the UTC advertiser"},
		{time.Date(2026, 3, 11, 4, 0, 0, 0, time.UTC), 2, "both (midnight in New York)"},
	} {
		e.clk.Set(tc.at)
		if got := e.selectAds("boots", 2); len(got) != tc.wantAds {
			t.Fatalf("at %s: %d ads shown, want %d (reset for %s)", tc.at.Format(time.RFC3339), len(got), tc.wantAds, tc.resetFor)
		}
	}
}

func TestConcurrentClicksNeverOverspend(t *testing.T) {
	e := newEnv(t, testConfig())
	adv := e.advertiser(1, "")
	e.submit(adv.ID, 0.30, "shoes")
	const impressions = 40
	var urls []string
	for range impressions {
		urls = append(urls, e.selectAds("shoes", 1)[0].ClickURL)
	}
	var (
		wg      sync.WaitGroup
		mu      sync.Mutex
		charged Money
		paid    int
	)
	for _, u := range urls {
		for range 2 { // each impression clicked twice, concurrently
			wg.Go(func() {
				_, q, _ := strings.Cut(u, "?")
				res, err := e.s.Click(t.Context(), q)
				if err != nil {
					t.Error(err)
					return
				}
				mu.Lock()
				charged += res.Charged
				if res.Charged > 0 {
					paid++
				}
				mu.Unlock()
			})
		}
	}
	wg.Wait()
	if charged != Unit || e.spentToday(adv.ID) != Unit {
		t.Fatalf("charged %v, recorded %v; want exactly the budget 1", charged, e.spentToday(adv.ID))
	}
	if paid != 4 { // 0.3 + 0.3 + 0.3 + 0.1
		t.Fatalf("%d clicks paid, want 4", paid)
	}
	r, _ := e.s.Report(t.Context(), adv.ID)
	if c := r.Ads[0].Phrases[0].Clicks; c != impressions {
		t.Fatalf("clicks counted = %d, want %d (one per impression)", c, impressions)
	}
}

func TestStateSurvivesARestart(t *testing.T) {
	cfg := testConfig()
	cfg.Secret = "" // generated and kept in the repository
	e := newEnv(t, cfg)
	adv := e.advertiser(2, "")
	ad := e.submit(adv.ID, 0.5, "shoes", "boots")
	if err := e.s.SetPrior(t.Context(), ad.ID, Prior{Alpha: 1, Beta: 99}); err != nil {
		t.Fatal(err)
	}
	u := e.selectAds("shoes", 1)[0].ClickURL
	e.selectAds("shoes", 1)
	e.click(u)
	e.restart()

	r, err := e.s.Report(t.Context(), adv.ID)
	if err != nil {
		t.Fatal(err)
	}
	if r.SpentToday != MoneyFromUnits(0.5) {
		t.Fatalf("spend after restart = %v, want 0.5", r.SpentToday)
	}
	p := r.Ads[0].Phrases[0]
	if p.Phrase != "shoes" || p.Impressions != 2 || p.Clicks != 1 {
		t.Fatalf("stats after restart = %+v, want 2 impressions, 1 click", p)
	}
	if res := e.click(u); res.Outcome != ClickDuplicate {
		t.Fatalf("click from before the restart = %s, want duplicate (and a verifying signature)", res.Outcome)
	}
	if got, _ := e.s.Ad(adv.ID, ad.ID); got.Prior != (Prior{Alpha: 1, Beta: 99}) {
		t.Fatalf("prior after restart = %+v", got.Prior)
	}
	if n := e.s.mu.phrases["shoes"].total; n != 2 {
		t.Fatalf("n_j after restart = %d, want 2", n)
	}
	if got := e.selectAds("boots", 1); len(got) != 1 {
		t.Fatal("index not rebuilt")
	}
}

func TestRecentClicksAreBoundedAndBackedByTheRepository(t *testing.T) {
	e := newEnv(t, testConfig()) // recent_clicks = 4
	adv := e.advertiser(0, "")
	e.submit(adv.ID, 0.1, "shoes")
	var urls []string
	for range 10 {
		u := e.selectAds("shoes", 1)[0].ClickURL
		urls = append(urls, u)
		e.click(u)
	}
	if n := e.s.clicked.len(); n > 4 {
		t.Fatalf("%d ids in memory, want at most 4", n)
	}
	if res := e.click(urls[0]); res.Outcome != ClickDuplicate {
		t.Fatalf("oldest click again = %s, want duplicate", res.Outcome)
	}
}

func TestOldClickRecordsArePruned(t *testing.T) {
	e := newEnv(t, testConfig())
	adv := e.advertiser(0, "")
	e.submit(adv.ID, 0.1, "shoes")
	e.click(e.selectAds("shoes", 1)[0].ClickURL)
	count := func() int {
		n := 0
		for _, err := range e.db.BucketScan(t.Context(), bucket, prefixClicked) {
			if err != nil {
				t.Fatal(err)
			}
			n++
		}
		return n
	}
	if err := e.s.pruneClicked(t.Context()); err != nil || count() != 1 {
		t.Fatalf("young record pruned (err %v, %d left)", err, count())
	}
	e.clk.Advance(e.cfg.ClickTTL + time.Second)
	if err := e.s.pruneClicked(t.Context()); err != nil || count() != 0 {
		t.Fatalf("old record kept (err %v, %d left)", err, count())
	}
}

func TestRunFlushesCountsWhenStopped(t *testing.T) {
	e := newEnv(t, testConfig())
	adv := e.advertiser(0, "")
	ad := e.submit(adv.ID, 0.1, "shoes")
	e.selectAds("shoes", 1)
	ctx, cancel := context.WithCancel(t.Context())
	done := make(chan error)
	go func() { done <- e.s.Run(ctx) }()
	cancel()
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	v, err := e.db.Bucket(bucket, keyStats(ad.ID, "shoes"))
	if err != nil {
		t.Fatal(err)
	}
	var r statsRecord
	if err := decode("", v, &r); err != nil || r.Impressions != 1 {
		t.Fatalf("stored stats %+v (%v), want 1 impression", r, err)
	}
}

func TestUpdateKeepsTheStatisticsOfKeptPhrases(t *testing.T) {
	e := newEnv(t, testConfig())
	adv := e.advertiser(0, "")
	ad := e.submit(adv.ID, 0.1, "a", "b")
	for range 3 {
		e.selectAds("a", 1)
	}
	targets := []Target{{Phrase: "A", Bid: MoneyFromUnits(0.2)}, {Phrase: "c", Bid: MoneyFromUnits(0.3)}}
	if _, err := e.s.UpdateAd(t.Context(), adv.ID, ad.ID, AdUpdate{Targets: &targets}); err != nil {
		t.Fatal(err)
	}
	if got := e.selectAds("b", 1); len(got) != 0 {
		t.Fatal("dropped phrase still served")
	}
	sh := e.selectAds("a", 1)
	if len(sh) != 1 || !strings.Contains(sh[0].ClickURL, "b=200000") {
		t.Fatalf("kept phrase: %+v, want the new bid 0.2 in the click URL", sh)
	}
	if len(e.selectAds("c", 1)) != 1 {
		t.Fatal("new phrase not served")
	}
	r, _ := e.s.Report(t.Context(), adv.ID)
	if p := r.Ads[0].Phrases[0]; p.Phrase != "a" || p.Impressions != 4 {
		t.Fatalf("kept phrase stats %+v, want 4 impressions", p)
	}
}

func TestOperatorCalls(t *testing.T) {
	e := newEnv(t, testConfig())
	adv := e.advertiser(0, "")
	ad := e.submit(adv.ID, 0.1, "a")
	t.Run("SetPrior rejects a non-positive parameter", func(t *testing.T) {
		var fe *FieldError
		if err := e.s.SetPrior(t.Context(), ad.ID, Prior{Alpha: -1, Beta: 2}); !errors.As(err, &fe) || fe.Field != "prior.alpha" {
			t.Fatalf("err = %v, want a FieldError on prior.alpha", err)
		}
	})
	t.Run("SetPrior on an unknown ad is ErrNotFound", func(t *testing.T) {
		if err := e.s.SetPrior(t.Context(), 999, Prior{Alpha: 1, Beta: 2}); !errors.Is(err, ErrNotFound) {
			t.Fatalf("err = %v, want ErrNotFound", err)
		}
	})
	t.Run("CreateAdvertiser rejects an unknown time zone", func(t *testing.T) {
		var fe *FieldError
		if _, _, err := e.s.CreateAdvertiser(t.Context(), AdvertiserParams{Name: "x", TimeZone: "Mars/Olympus"}); !errors.As(err, &fe) || fe.Field != "time_zone" {
			t.Fatalf("err = %v, want a FieldError on time_zone", err)
		}
	})
	t.Run("a prior changes what GREEDY shows first", func(t *testing.T) {
		cfg := testConfig()
		cfg.Policy = "greedy"
		g := newEnv(t, cfg)
		a := g.advertiser(0, "")
		low := g.submit(a.ID, 1, "z")
		high := g.submit(a.ID, 1, "z")
		// Both have priors, so neither is ∞; the higher prior mean wins.
		if err := g.s.SetPrior(t.Context(), low.ID, Prior{Alpha: 1, Beta: 99}); err != nil {
			t.Fatal(err)
		}
		if err := g.s.SetPrior(t.Context(), high.ID, Prior{Alpha: 5, Beta: 95}); err != nil {
			t.Fatal(err)
		}
		if got := g.selectAds("z", 1); got[0].AdID != high.ID {
			t.Fatalf("shown ad %d, want %d (higher prior mean)", got[0].AdID, high.ID)
		}
	})
}
