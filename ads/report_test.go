package ads

import (
	"testing"
)

// TestReportKeepsTheStatisticsOfRemovedPhrases: a phrase dropped from an
// ad (by an update, or before the ad was revoked) vanished from the
// report with its impressions, clicks and spend, so the report no longer
// added up to what the advertiser was charged. They now show in one row
// per ad, and the report's totals equal the charges, also after a restart.
func TestReportKeepsTheStatisticsOfRemovedPhrases(t *testing.T) {
	e := newEnv(t, testConfig())
	adv := e.advertiser(0, "")
	var charged Money
	var shown int64
	showAndClick := func(phrase string, n int) {
		t.Helper()
		var u string
		for range n {
			s := e.selectAds(phrase, 1)
			if len(s) != 1 {
				t.Fatalf("%q shows %d ads, want 1", phrase, len(s))
			}
			u = s[0].ClickURL
			shown++
		}
		res := e.click(u)
		if res.Outcome != ClickCharged {
			t.Fatalf("click on %q: %s, want charged", phrase, res.Outcome)
		}
		charged += res.Charged
	}
	update := func(ad Ad, phrases ...string) {
		t.Helper()
		var targets []Target
		for _, p := range phrases {
			targets = append(targets, Target{Phrase: p, Bid: MoneyFromUnits(0.3)})
		}
		if _, err := e.s.UpdateAd(t.Context(), adv.ID, ad.ID, AdUpdate{Targets: &targets}); err != nil {
			t.Fatal(err)
		}
	}

	kept := e.submit(adv.ID, 0.1, "a", "b")
	showAndClick("a", 2)
	showAndClick("b", 3)
	update(kept, "a") // b dropped
	revoked := e.submit(adv.ID, 0.2, "c", "d")
	showAndClick("c", 1)
	showAndClick("d", 4)
	update(revoked, "c", "e") // d dropped before the revocation
	if _, err := e.s.RevokeAd(t.Context(), adv.ID, revoked.ID); err != nil {
		t.Fatal(err)
	}

	check := func(when string, wantRemoved map[uint64]PhraseStats) {
		t.Helper()
		r, err := e.s.Report(t.Context(), adv.ID)
		if err != nil {
			t.Fatal(err)
		}
		var spend Money
		var impressions, clicks int64
		for _, ar := range r.Ads {
			var removed []PhraseStats
			for _, p := range ar.Phrases {
				spend += p.Spend
				impressions += p.Impressions
				clicks += p.Clicks
				if p.Removed {
					removed = append(removed, p)
				}
			}
			want, ok := wantRemoved[ar.Ad.ID]
			switch {
			case !ok && len(removed) > 0:
				t.Errorf("%s: ad %d has a removed-phrases row %+v, want none", when, ar.Ad.ID, removed)
			case ok && (len(removed) != 1 || removed[0] != want):
				t.Errorf("%s: ad %d's removed phrases %+v, want one row %+v", when, ar.Ad.ID, removed, want)
			}
		}
		if spend != charged || impressions != shown || clicks != 4 {
			t.Errorf("%s: the report adds up to spend %v, %d impressions, %d clicks; charged %v for %d impressions, 4 clicks",
				when, spend, impressions, clicks, charged, shown)
		}
	}
	removedRow := func(impressions int64, spend float64) PhraseStats {
		return PhraseStats{Phrase: RemovedPhrases, Removed: true, Impressions: impressions, Clicks: 1, Spend: MoneyFromUnits(spend)}
	}
	want := map[uint64]PhraseStats{kept.ID: removedRow(3, 0.1), revoked.ID: removedRow(4, 0.2)}
	check("after the phrases were removed", want)
	e.restart()
	check("after a restart", want)

	// A phrase targeted again takes its statistics back (attachLocked),
	// so they show in its own row, not twice.
	update(kept, "a", "b")
	check("after b was targeted again", map[uint64]PhraseStats{revoked.ID: removedRow(4, 0.2)})
}
