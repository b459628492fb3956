package ads

import (
	"slices"
	"testing"
)

// TestReportKeepsTheStatisticsOfRemovedPhrases: a phrase dropped from an
// ad (by an update, or before the ad was revoked) vanished from the
// report with its impressions, clicks and spend, so the report no longer
// added up to what the advertiser was charged. They were then summed in
// one row labelled "(removed phrases)", which lost which phrase earned
// what and could not be told from a live phrase of that spelling. Each
// removed phrase now has its own row, under its own name, after the live
// ones, and the report's totals equal the charges, also after a restart.
func TestReportKeepsTheStatisticsOfRemovedPhrases(t *testing.T) {
	e := newEnv(t, testConfig())
	adv := e.advertiser(0, "")
	// earned is what each phrase was shown and charged, phrases being
	// distinct across the two ads.
	earned := map[string]PhraseStats{}
	showAndClick := func(phrase string, n int) {
		t.Helper()
		var u string
		for range n {
			s := e.selectAds(phrase, 1)
			if len(s) != 1 {
				t.Fatalf("%q shows %d ads, want 1", phrase, len(s))
			}
			u = s[0].ClickURL
		}
		res := e.click(u)
		if res.Outcome != ClickCharged {
			t.Fatalf("click on %q: %s, want charged", phrase, res.Outcome)
		}
		p := earned[phrase]
		p.Impressions += int64(n)
		p.Clicks++
		p.Spend += res.Charged
		earned[phrase] = p
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
	removedRow := func(phrase string) PhraseStats {
		p := earned[phrase]
		p.Phrase, p.Removed = phrase, true
		return p
	}

	// The old summed row's label, now an ordinary phrase an advertiser
	// may target.
	const label = "(removed phrases)"
	kept := e.submit(adv.ID, 0.1, "a", "b", "f")
	showAndClick("a", 2)
	showAndClick("b", 3)
	showAndClick("f", 6)
	update(kept, "a", label) // b and f dropped
	showAndClick(label, 1)
	revoked := e.submit(adv.ID, 0.2, "c", "d")
	showAndClick("c", 1)
	showAndClick("d", 4)
	update(revoked, "c", "e") // d dropped before the revocation
	if _, err := e.s.RevokeAd(t.Context(), adv.ID, revoked.ID); err != nil {
		t.Fatal(err)
	}

	check := func(when string, wantLive map[uint64][]string, wantRemoved map[uint64][]PhraseStats) {
		t.Helper()
		r, err := e.s.Report(t.Context(), adv.ID)
		if err != nil {
			t.Fatal(err)
		}
		var got PhraseStats
		for _, ar := range r.Ads {
			var live []string
			var removed []PhraseStats
			for _, p := range ar.Phrases {
				got.Spend += p.Spend
				got.Impressions += p.Impressions
				got.Clicks += p.Clicks
				if p.Removed {
					removed = append(removed, p)
					continue
				}
				if len(removed) > 0 {
					t.Errorf("%s: ad %d's live phrase %q follows a removed one: %+v", when, ar.Ad.ID, p.Phrase, ar.Phrases)
				}
				if e := earned[p.Phrase]; p.Impressions != e.Impressions || p.Clicks != e.Clicks || p.Spend != e.Spend {
					t.Errorf("%s: ad %d's live phrase %+v, want what it earned %+v", when, ar.Ad.ID, p, e)
				}
				live = append(live, p.Phrase)
			}
			if want := wantLive[ar.Ad.ID]; !slices.Equal(live, want) {
				t.Errorf("%s: ad %d's live phrases %q, want %q", when, ar.Ad.ID, live, want)
			}
			if want := wantRemoved[ar.Ad.ID]; !slices.Equal(removed, want) {
				t.Errorf("%s: ad %d's removed phrases %+v, want %+v", when, ar.Ad.ID, removed, want)
			}
		}
		var want PhraseStats
		for _, p := range earned {
			want.Spend += p.Spend
			want.Impressions += p.Impressions
			want.Clicks += p.Clicks
		}
		if got != want {
			t.Errorf("%s: the report adds up to spend %v, %d impressions, %d clicks; charged %v for %d impressions, %d clicks",
				when, got.Spend, got.Impressions, got.Clicks, want.Spend, want.Impressions, want.Clicks)
		}
	}
	live := map[uint64][]string{kept.ID: {"a", label}, revoked.ID: {"c", "e"}}
	removed := map[uint64][]PhraseStats{
		kept.ID:    {removedRow("b"), removedRow("f")},
		revoked.ID: {removedRow("d")},
	}
	check("after the phrases were removed", live, removed)
	e.restart()
	check("after a restart", live, removed)

	// A phrase targeted again takes its statistics back (attachLocked),
	// so they show in its own row, not twice.
	update(kept, "a", "b", label)
	live[kept.ID] = []string{"a", "b", label}
	removed[kept.ID] = []PhraseStats{removedRow("f")}
	check("after b was targeted again", live, removed)
	e.restart()
	check("after b was targeted again and a restart", live, removed)
}
