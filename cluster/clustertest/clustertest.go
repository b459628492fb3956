// Package clustertest serves the web the cluster tests crawl and compares
// what the nodes of a cluster crawl stored with what one node crawling
// alone stored, for the tests of package cluster and of
// `deltaq crawl --cluster`.
package clustertest

import (
	"bytes"
	"context"
	"fmt"
	"maps"
	"runtime/pprof"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/deltaq/deltaq/eval/archive"
	"github.com/deltaq/deltaq/eval/replay"
	"github.com/deltaq/deltaq/internal/datasets"
	"github.com/deltaq/deltaq/internal/urlnorm"
	"github.com/deltaq/deltaq/repo"
)

// Fetched maps each URL db holds a fetch of to its state.
func Fetched(tb testing.TB, db *repo.DB) map[string]repo.PageState {
	tb.Helper()
	out := map[string]repo.PageState{}
	for p, err := range db.Pages(context.Background()) {
		if err != nil {
			tb.Fatal(err)
		}
		if p.Fetches > 0 {
			out[p.URL] = p.State
		}
	}
	return out
}

// Union is the nodes' repositories taken together.
type Union struct {
	Pages  map[string]repo.PageState // every page fetched, in the last node's state
	Twice  []string                  // pages fetched by two nodes or more, sorted
	ByHost map[string][]int          // host → the nodes that fetched its pages
}

// Merge takes the nodes' pages (Fetched of each repository) together.
func Merge(nodes []map[string]repo.PageState) Union {
	u := Union{Pages: map[string]repo.PageState{}, ByHost: map[string][]int{}}
	for i, pages := range nodes {
		for url, st := range pages {
			if _, dup := u.Pages[url]; dup {
				u.Twice = append(u.Twice, url)
			}
			u.Pages[url] = st
			h := urlnorm.Host(url)
			if !slices.Contains(u.ByHost[h], i) {
				u.ByHost[h] = append(u.ByHost[h], i)
			}
		}
	}
	slices.Sort(u.Twice)
	return u
}

// OneNodePerHost fails tb for each host whose pages two nodes fetched.
func (u Union) OneNodePerHost(tb testing.TB) {
	tb.Helper()
	for _, h := range slices.Sorted(maps.Keys(u.ByHost)) {
		if by := u.ByHost[h]; len(by) > 1 {
			tb.Errorf("host %s fetched by nodes %v", h, by)
		}
	}
}

// Equal fails tb unless the union holds exactly want's pages, in want's
// states.
func (u Union) Equal(tb testing.TB, want map[string]repo.PageState) {
	tb.Helper()
	var missing, extra, differ []string
	for url, st := range want {
		got, ok := u.Pages[url]
		switch {
		case !ok:
			missing = append(missing, url)
		case got != st:
			differ = append(differ, fmt.Sprintf("%s: %s, alone %s", url, got, st))
		}
	}
	for url := range u.Pages {
		if _, ok := want[url]; !ok {
			extra = append(extra, url)
		}
	}
	if len(missing)+len(extra)+len(differ) > 0 {
		slices.Sort(missing)
		slices.Sort(extra)
		slices.Sort(differ)
		tb.Errorf("union of the nodes (%d pages) differs from one node (%d): %d missing %v, %d extra %v, %d in another state %v",
			len(u.Pages), len(want), len(missing), first(missing), len(extra), first(extra), len(differ), first(differ))
	}
}

func first(s []string) []string { return s[:min(5, len(s))] }

// Replay is the replay of week 0 of both archives, tldr-en.test and
// digitalgov-2023.test, the web the cluster tests crawl.
func Replay(tb testing.TB) *replay.Server {
	tb.Helper()
	var as []*archive.Archive
	for _, name := range []string{"tldr-en", "digitalgov-2023"} {
		a, err := archive.Open(datasets.Path(tb, "archives", name))
		if err != nil {
			tb.Fatal(err)
		}
		as = append(as, a)
	}
	rs, err := replay.New(as, replay.Options{})
	if err != nil {
		tb.Fatal(err)
	}
	return rs
}

// Wait returns what wait returns, or fails tb if wait has not returned
// within d (a guard against a hang, not a measurement), showing the
// goroutines in this module's code, grouped by stack: where the nodes
// wait, which go test's own timeout would bury under the NATS servers'
// goroutines.
func Wait(tb testing.TB, what string, d time.Duration, wait func() error) error {
	tb.Helper()
	done := make(chan error, 1)
	go func() { done <- wait() }()
	select {
	case err := <-done:
		return err
	case <-time.After(d):
		tb.Fatalf("%s: not done after %v; the goroutines in deltaq's code:\n%s", what, d, ownGoroutines())
		return nil
	}
}

// Until calls cond every 20 ms until it returns nil, and fails tb if it
// has not within d, with what and cond's last answer: the state it saw.
func Until(tb testing.TB, what string, d time.Duration, cond func() error) {
	tb.Helper()
	for deadline := time.Now().Add(d); ; time.Sleep(20 * time.Millisecond) {
		err := cond()
		if err == nil {
			return
		}
		if time.Now().After(deadline) {
			tb.Fatalf("%s: %v", what, err)
		}
	}
}

// ownGoroutines lists the stacks, grouped, that pass through this module
// outside package testing's frames.
func ownGoroutines() string {
	var buf bytes.Buffer
	if err := pprof.Lookup("goroutine").WriteTo(&buf, 1); err != nil {
		return err.Error()
	}
	var out strings.Builder
	for _, group := range strings.Split(buf.String(), "\n\n") {
		if strings.Contains(group, "github.com/deltaq/deltaq/") && !strings.Contains(group, "clustertest.ownGoroutines") {
			out.WriteString(group)
			out.WriteString("\n\n")
		}
	}
	return out.String()
}
