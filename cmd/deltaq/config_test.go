package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// config check prints OK for a valid configuration and fails naming every
// problem of an invalid one, each with where it was set.
func TestConfigCheck(t *testing.T) {
	dir := t.TempDir()
	good, bad := filepath.Join(dir, "good.yaml"), filepath.Join(dir, "bad.yaml")
	os.WriteFile(good, []byte("crawler:\n  politeness:\n    min_delay: 2s\n"), 0o644)
	os.WriteFile(bad, []byte("crawler:\n  politeness:\n    min_delay: -1s\nfrontier:\n  budget:\n    fetches: -3\n"), 0o644)

	if out, _, err := run(t, "config", "check"); err != nil || !strings.Contains(out, "configuration OK: the defaults") {
		t.Errorf("config check of the defaults: %v\n%s", err, out)
	}
	if out, _, err := run(t, "config", "check", "--config", good); err != nil || !strings.Contains(out, "configuration OK: "+good) {
		t.Errorf("config check --config %s: %v\n%s", good, err, out)
	}
	out, _, err := run(t, "config", "check", "--config", bad)
	if err == nil || strings.Contains(out, "OK") {
		t.Fatalf("config check of an invalid file succeeded:\n%s", out)
	}
	for _, want := range []string{bad + ":3: crawler.politeness.min_delay = -1s: must be >= 0", bad + ":6: frontier.budget.fetches = -3: must be >= 1"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error lacks %q:\n%v", want, err)
		}
	}
	// A value of the wrong kind and a misspelled key hide no other problem.
	mixed := filepath.Join(dir, "mixed.yaml")
	os.WriteFile(mixed, []byte("crawler:\n  politeness:\n    min_delay: 2 seconds\nlog:\n  levl: x\n  level: loud\nserver:\n  listen: notanaddr\n"), 0o644)
	_, _, err = run(t, "config", "check", "--config", mixed)
	for _, want := range []string{
		mixed + `:3: crawler.politeness.min_delay = "2 seconds": must be a duration such as 500ms, 2s or 1h30m`,
		mixed + ":5: log.levl: no such setting",
		mixed + `:6: log.level = "loud": must be one of debug, info, warn, error`,
		mixed + `:8: server.listen = "notanaddr": must be host:port`,
	} {
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("config check of %s: error lacks %q:\n%v", mixed, want, err)
		}
	}
	t.Setenv("DELTAQ_FRONTIER_BUDGET_FETCHES", "0")
	if _, _, err := run(t, "config", "check", "--config", good); err == nil || !strings.Contains(err.Error(), "DELTAQ_FRONTIER_BUDGET_FETCHES") {
		t.Errorf("config check with a bad variable: %v, want it named", err)
	}
}
