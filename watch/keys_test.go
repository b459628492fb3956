package watch

import (
	"strings"
	"testing"
)

// TestCreateKeyNamesEveryBadLimit: each limit out of range is named with
// its value, where the error used to list every field at once.
func TestCreateKeyNamesEveryBadLimit(t *testing.T) {
	e := newEngine(t, openRepo(t), nil, newClock(t0), Options{})
	_, err := e.CreateKey(t.Context(), Key{User: "ada", MaxWatches: -1, MinEvery: 0, MaxRegexBytes: 10})
	if err == nil {
		t.Fatal("a key with max_watches -1 was created")
	}
	for _, want := range []string{`key for "ada"`, "max_watches = -1: must be > 0", "min_every = 0s: must be > 0"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error %q does not say %q", err, want)
		}
	}
	if strings.Contains(err.Error(), "max_regex_bytes") {
		t.Errorf("error %q names max_regex_bytes, which is fine", err)
	}
	if _, err := e.CreateKey(t.Context(), Key{User: "ada", MaxWatches: 1, MinEvery: 1, MaxRegexBytes: 1}); err != nil {
		t.Fatal(err)
	}
}
