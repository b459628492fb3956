package main

import (
	"strings"
	"testing"
)

// TestFeedsAddRefusesWhatItWouldNotKeepAsGiven: a URL without a host
// (whose path was taken for one), a URL with credentials (stored without
// them) and an interval under feeds.step (polls fall on its grid) are
// refused, each naming what is wrong, and nothing is subscribed.
func TestFeedsAddRefusesWhatItWouldNotKeepAsGiven(t *testing.T) {
	for _, c := range []struct {
		name string
		args []string
		want string
	}{
		{"a URL without a host", []string{"http:///nohost"}, `URL "http:///nohost": must be an absolute http or https URL that names a host`},
		{"a URL with credentials", []string{"http://user:pass@e.test/feed"}, `URL "http://user:pass@e.test/feed": must be without credentials (user:pass@)`},
		{"a min interval under feeds.step", []string{"http://e.test/feed", "--min-interval", "1ns"}, `--min-interval = "1ns": must be ≥ feeds.step (5m0s)`},
		{"a max interval under feeds.step", []string{"http://e.test/feed", "--max-interval", "1m"}, `--max-interval = "1m0s": must be ≥ feeds.step (5m0s)`},
	} {
		t.Run(c.name, func(t *testing.T) {
			data := t.TempDir()
			_, _, err := run(t, append(append([]string{"feeds", "add"}, c.args...), "--data", data)...)
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Fatalf("feeds add %s: %v, want %q", strings.Join(c.args, " "), err, c.want)
			}
			if out, _, err := run(t, "feeds", "list", "--data", data); err != nil || strings.Count(out, "\n") != 1 {
				t.Errorf("feeds list after the refused add: %v\n%s, want no feed", err, out)
			}
		})
	}
}
