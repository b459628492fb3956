package ranking

import (
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/deltaq/deltaq/internal/clock"
)

func TestMonitoredUsersAreAStableShare(t *testing.T) {
	const users = 20000
	in := 0
	for i := range users {
		id := fmt.Sprintf("user-%d", i)
		m := Monitored(id, 0.1)
		if m != Monitored(id, 0.1) {
			t.Fatalf("%s: decision changed between calls", id)
		}
		if m {
			in++
			if !Monitored(id, 0.2) {
				t.Fatalf("%s monitored at 10%% but not at 20%%", id)
			}
		}
	}
	if share := float64(in) / users; share < 0.09 || share > 0.11 { // sd ≈ 0.002
		t.Fatalf("monitored share %.4f, want 0.1", share)
	}
	if Monitored("anyone", 0) || !Monitored("anyone", 1) {
		t.Fatal("fractions 0 and 1 must exclude and include everyone")
	}
}

func TestRecordClickCountsClicksAndAwareness(t *testing.T) {
	cfg := testConfig()
	cfg.MonitoredFraction = 0.5
	_, s := openStore(t, cfg, clock.NewManual(time.Date(2024, 3, 1, 0, 0, 0, 0, time.UTC)))
	var monitored, unmonitored string
	for i := 0; monitored == "" || unmonitored == ""; i++ {
		id := fmt.Sprintf("u%d", i)
		if Monitored(id, 0.5) {
			monitored = id
		} else {
			unmonitored = id
		}
	}
	const page = "http://a.test/p"
	for _, c := range []struct {
		user      string
		wantAware bool
	}{
		{monitored, true},    // first click of a monitored user
		{monitored, false},   // counted once
		{unmonitored, false}, // not in U_m
	} {
		got, err := s.RecordClick(t.Context(), page, c.user)
		if err != nil {
			t.Fatal(err)
		}
		if got != c.wantAware {
			t.Errorf("click by %s: newly aware = %v, want %v", c.user, got, c.wantAware)
		}
	}
	st, err := s.Lookup(t.Context(), []string{page})
	if err != nil {
		t.Fatal(err)
	}
	if st[0].Clicks != 3 || st[0].Aware != 1 {
		t.Fatalf("stats = %+v, want 3 clicks and 1 aware user", st[0])
	}
}

func TestRecordClickRejectsBadInput(t *testing.T) {
	_, s := openStore(t, testConfig(), nil)
	for _, c := range []struct{ name, url, user string }{
		{"an empty url", "", "u"},
		{"an empty user", "http://a.test/", ""},
		{"a url with a NUL byte", "http://a.test/\x00", "u"},
		{"an oversized user id", "http://a.test/", strings.Repeat("u", MaxUserIDLen+1)},
	} {
		t.Run(c.name+" is refused", func(t *testing.T) {
			if _, err := s.RecordClick(t.Context(), c.url, c.user); !errors.Is(err, ErrBadClick) {
				t.Fatalf("err = %v, want ErrBadClick", err)
			}
		})
	}
}

func TestConcurrentClicksAreAllCounted(t *testing.T) {
	_, s := openStore(t, testConfig(), nil) // every user monitored
	const workers, each = 8, 25
	var wg sync.WaitGroup
	errs := make(chan error, workers*each)
	for w := range workers {
		wg.Go(func() {
			for i := range each {
				if _, err := s.RecordClick(t.Context(), "http://a.test/", fmt.Sprintf("w%d-%d", w, i%5)); err != nil {
					errs <- err
				}
			}
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
	st, err := s.Lookup(t.Context(), []string{"http://a.test/"})
	if err != nil {
		t.Fatal(err)
	}
	if st[0].Clicks != workers*each || st[0].Aware != workers*5 {
		t.Fatalf("stats = %+v, want %d clicks and %d aware users", st[0], workers*each, workers*5)
	}
}

func TestSecretIsGeneratedOnceAndKept(t *testing.T) {
	db, s := openStore(t, testConfig(), nil)
	a, err := s.Secret(t.Context(), "")
	if err != nil || len(a) != MinSecretLen {
		t.Fatalf("Secret = %x, %v", a, err)
	}
	s2, err := NewStore(db, testConfig(), StoreOptions{})
	if err != nil {
		t.Fatal(err)
	}
	b, err := s2.Secret(t.Context(), "")
	if err != nil || string(a) != string(b) {
		t.Fatal("the stored secret was not reused")
	}
	conf := strings.Repeat("k", MinSecretLen)
	if c, err := s.Secret(t.Context(), conf); err != nil || string(c) != conf {
		t.Fatal("a configured secret must win")
	}
	if _, err := s.Secret(t.Context(), "short"); err == nil {
		t.Fatal("a short configured secret was accepted")
	}
}

// TestLookupFollowsWritesAfterLoading checks the in-memory column: once
// loaded, Lookup sees later clicks and PageRank recomputations, and a
// second Store over the same repository loads the same statistics.
func TestLookupFollowsWritesAfterLoading(t *testing.T) {
	db, s := openStore(t, testConfig(), nil)
	setLinks(t, db, map[string][]string{"http://a.test/": {"http://a.test/x"}})
	const url = "http://a.test/x"
	if st, err := s.Lookup(t.Context(), []string{url}); err != nil || st[0] != (PageStats{}) {
		t.Fatalf("before any write: %+v, %v", st, err)
	}
	if _, err := s.RecordClick(t.Context(), url, "u1"); err != nil {
		t.Fatal(err)
	}
	if _, err := s.ComputePageRank(t.Context()); err != nil {
		t.Fatal(err)
	}
	st, err := s.Lookup(t.Context(), []string{url, "http://a.test/unknown"})
	if err != nil || st[0].Clicks != 1 || st[0].PageRank <= 0 || st[0].InLinks != 1 || st[1] != (PageStats{}) {
		t.Fatalf("after a click and PageRank: %+v, %v", st, err)
	}
	again, err := NewStore(db, testConfig(), StoreOptions{})
	if err != nil {
		t.Fatal(err)
	}
	fresh, err := again.Lookup(t.Context(), []string{url})
	if err != nil || fresh[0] != st[0] {
		t.Fatalf("a new store reads %+v, %v; the first one %+v", fresh, err, st[0])
	}
}
