package crawler_test

import (
	"strings"
	"testing"
	"time"

	"github.com/deltaq/deltaq/crawler"
	"github.com/deltaq/deltaq/repo"
)

// TestCheckHostTakesHostsAsTheRepositoryKeysThem: rm --host and queue
// --host used to take any text, and found nothing for a URL, a pattern or
// a default port.
func TestCheckHostTakesHostsAsTheRepositoryKeysThem(t *testing.T) {
	for _, c := range []struct{ host, want string }{
		{"site1.synth.test", ""},
		{"site1.synth.test:8080", ""},
		{"site1.synth.test:80", ""}, // the host of https://site1.synth.test:80/
		{"127.0.0.1:9000", ""},
		{"http://site1.synth.test/", "a URL, not a host[:port]: its host is site1.synth.test"},
		{"Site1.Synth.Test", "give site1.synth.test"},
		{"site1.synth.test/", "give site1.synth.test"},
		{"*", "not a host[:port]"},
		{"a b", "not a host[:port]"},
	} {
		err := crawler.CheckHost(c.host)
		if c.want == "" && err != nil || c.want != "" && (err == nil || !strings.Contains(err.Error(), c.want)) {
			t.Errorf("CheckHost(%q) = %v, want %q", c.host, err, c.want)
		}
	}
}

func TestHostKnownLooksAtPagesQueueAndHostRecord(t *testing.T) {
	cfg := defaults(t)
	db, err := repo.Open(t.TempDir(), cfg.Repo, repo.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	now := time.Date(2026, 1, 5, 0, 0, 0, 0, time.UTC)
	b := db.NewBatch(t.Context())
	b.PutPage(&repo.Page{URL: "http://page.test/", FirstSeen: now})
	b.Enqueue(&repo.QueueEntry{URL: "http://queued.test/", Enqueued: now}, now)
	b.PutHost(&repo.HostState{Host: "record.test"})
	if err := b.Commit(); err != nil {
		t.Fatal(err)
	}
	for host, want := range map[string]bool{"page.test": true, "queued.test": true, "record.test": true, "nosuch.test": false, "page.test:8080": false} {
		if got, err := crawler.HostKnown(t.Context(), db, host); err != nil || got != want {
			t.Errorf("HostKnown(%q) = %v, %v; want %v", host, got, err, want)
		}
	}
}
