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
