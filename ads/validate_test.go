package ads

import (
	"errors"
	"strings"
	"testing"
)

// TestSubmitAdRefusesControlAndBidiCharacters: a title or text that could
// ring a bell, break the line or reverse what follows on the results page
// is refused, naming the field, the character and where it is.
func TestSubmitAdRefusesControlAndBidiCharacters(t *testing.T) {
	e := newEnv(t, testConfig())
	adv := e.advertiser(0, "")
	for _, tc := range []struct {
		name, title, text, field, value string
	}{
		{"a NUL in the title", "x\x00y", "", "title", "U+0000 at byte 1"},
		{"a BEL in the title", "xy\a", "", "title", "U+0007 at byte 2"},
		{"a right-to-left override in the title", "ab\u202e", "", "title", "U+202E at byte 2"},
		{"a newline in the text", "t", "line1\nline2", "text", "U+000A at byte 5"},
		{"a tab in the text", "t", "a\tb", "text", "U+0009 at byte 1"},
		{"a C1 control in the text", "t", "é\u0085", "text", "U+0085 at byte 2"},
		{"a left-to-right mark in the text", "t", "\u200e", "text", "U+200E at byte 0"},
		{"a first-strong isolate in the text", "t", "ok \u2068", "text", "U+2068 at byte 3"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			spec := AdSpec{Title: tc.title, Text: tc.text, URL: "https://a.example/", Targets: []Target{{Phrase: "p", Bid: Unit}}}
			_, err := e.s.SubmitAd(t.Context(), adv.ID, spec)
			var fe *FieldError
			if !errors.As(err, &fe) || fe.Field != tc.field || fe.Value != tc.value || !strings.Contains(fe.Limit, "control characters") {
				t.Fatalf("err = %v, want %s = %s refused as a control character", err, tc.field, tc.value)
			}
		})
	}
	t.Run("accepts letters of any script and an ordinary space", func(t *testing.T) {
		spec := AdSpec{Title: "Schuhe für alle", Text: "مرحبا — שלום 你好", URL: "https://a.example/", Targets: []Target{{Phrase: "p", Bid: Unit}}}
		if _, err := e.s.SubmitAd(t.Context(), adv.ID, spec); err != nil {
			t.Fatal(err)
		}
	})
}

// TestSubmitAdRefusesURLsABrowserWouldRepair: a URL with characters RFC
// 3986 does not allow is refused, naming the first one, rather than stored
// as typed and sent on in a Location header.
func TestSubmitAdRefusesURLsABrowserWouldRepair(t *testing.T) {
	e := newEnv(t, testConfig())
	adv := e.advertiser(0, "")
	for _, tc := range []struct{ url, char string }{
		{`https://a.example/ spaced <tag>"`, `' ' (U+0020, byte 18)`},
		{`https://a.example/"onmouseover`, `'"' (U+0022, byte 18)`},
		{`https://a.example/<script>`, `'<' (U+003C, byte 18)`},
		{"https://a.example/\r\nSet-Cookie: x=1", `'\r' (U+000D, byte 18)`},
		{"https://a.example/\x7f", `'\x7f' (U+007F, byte 18)`},
		{"https://a.example/a{b}", `'{' (U+007B, byte 19)`},
		{"https://a.example/caf\u00e9", `'é' (U+00E9, byte 21)`},
	} {
		t.Run(tc.url, func(t *testing.T) {
			spec := AdSpec{Title: "t", URL: tc.url, Targets: []Target{{Phrase: "p", Bid: Unit}}}
			_, err := e.s.SubmitAd(t.Context(), adv.ID, spec)
			var fe *FieldError
			if !errors.As(err, &fe) || fe.Field != "url" || !strings.Contains(fe.Limit, "must not contain "+tc.char) || !strings.Contains(fe.Limit, "percent-encode") {
				t.Fatalf("err = %v, want url refused for %s", err, tc.char)
			}
		})
	}
	t.Run("accepts a URL with every kind of part", func(t *testing.T) {
		spec := AdSpec{Title: "t", URL: "https://a.example:8443/p%20q/[x]?a=1&b=caf%C3%A9;c=~'d'#top", Targets: []Target{{Phrase: "p", Bid: Unit}}}
		if _, err := e.s.SubmitAd(t.Context(), adv.ID, spec); err != nil {
			t.Fatal(err)
		}
	})
}

// TestClickRefusesAStoredURLThatIsNotWellFormed: an ad stored before URLs
// were checked strictly is neither charged nor redirected to.
func TestClickRefusesAStoredURLThatIsNotWellFormed(t *testing.T) {
	e := newEnv(t, testConfig())
	adv := e.advertiser(5, "")
	ad := e.submit(adv.ID, 0.25, "shoes")
	e.s.mu.Lock()
	e.s.mu.ads[ad.ID].ad.URL = `https://a.example/ spaced <tag>"`
	e.s.mu.Unlock()
	_, q, _ := strings.Cut(e.selectAds("shoes", 1)[0].ClickURL, "?")
	res, err := e.s.Click(t.Context(), q)
	if err == nil || res.URL != "" {
		t.Fatalf("Click = %+v, %v; want an error and no URL", res, err)
	}
	if got := e.spentToday(adv.ID); got != 0 {
		t.Fatalf("spent %v on a click that went nowhere", got)
	}
}

// TestPhrasesAreCheckedAsTitlesAre: a target phrase is refused for what a
// title is refused for (invalid UTF-8, control and bidi characters), and
// for holding no word a search could match, naming targets[i].phrase, on
// submission and on change alike; nothing is stored instead.
func TestPhrasesAreCheckedAsTitlesAre(t *testing.T) {
	e := newEnv(t, testConfig())
	adv := e.advertiser(0, "")
	kept := e.submit(adv.ID, 1, "shoes")
	const noWord = "must contain a letter, a digit or _: search finds no words in other punctuation and symbols alone"
	for _, tc := range []struct {
		name, phrase, value, limit string
	}{
		{"a NUL after a replacement character", "\ufffd\x00", "U+0000 at byte 3", "must not contain control characters"},
		{"a tab", "red\tshoes", "U+0009 at byte 3", "must not contain control characters"},
		{"a right-to-left override", "shoes\u202e", "U+202E at byte 5", "bidi controls"},
		{"invalid UTF-8", "sho\xffes", "", "must be valid UTF-8"},
		{"query syntax alone", `+-:^~*?\/()[]{}`, `"+-:^~*?\\/()[]{}"`, noWord},
		{"a lone replacement character", "\ufffd", "\"\ufffd\"", noWord},
		{"symbols alone", "€ ★", `"€ ★"`, noWord},
	} {
		targets := []Target{{Phrase: "boots", Bid: Unit}, {Phrase: tc.phrase, Bid: Unit}}
		check := func(t *testing.T, err error) {
			t.Helper()
			var fe *FieldError
			if !errors.As(err, &fe) || fe.Field != "targets[1].phrase" || fe.Value != tc.value || !strings.Contains(fe.Limit, tc.limit) {
				t.Fatalf("err = %v, want targets[1].phrase = %s refused: %s", err, tc.value, tc.limit)
			}
		}
		t.Run("SubmitAd refuses "+tc.name, func(t *testing.T) {
			_, err := e.s.SubmitAd(t.Context(), adv.ID, AdSpec{Title: "t", URL: "https://a.example/", Targets: targets})
			check(t, err)
		})
		t.Run("UpdateAd refuses "+tc.name, func(t *testing.T) {
			_, err := e.s.UpdateAd(t.Context(), adv.ID, kept.ID, AdUpdate{Targets: &targets})
			check(t, err)
			if a, err := e.s.Ad(adv.ID, kept.ID); err != nil || len(a.Targets) != 1 || a.Targets[0].Phrase != "shoes" {
				t.Fatalf("ad after the refused change: %+v, %v; want its one phrase kept", a, err)
			}
		})
	}
	t.Run("accepts words of any script, with punctuation", func(t *testing.T) {
		for _, p := range []string{"c++", "Straße", "你好", "ＡＢＣ 3", "node.js?"} {
			if _, err := e.s.UpdateAd(t.Context(), adv.ID, kept.ID, AdUpdate{Targets: &[]Target{{Phrase: p, Bid: Unit}}}); err != nil {
				t.Errorf("%q: %v", p, err)
			}
		}
	})
}
