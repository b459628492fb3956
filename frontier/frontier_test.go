package frontier

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/cockroachdb/pebble/v2/vfs"

	"github.com/deltaq/deltaq/internal/clock"
	"github.com/deltaq/deltaq/repo"
)

var testRepoConfig = repo.Config{VersionsKept: 1, FetchLogKept: 4, StatsKept: 4, CacheBytes: 4 << 20}

type fixedGate struct {
	capacity int
	interval time.Duration
}

func (g fixedGate) Capacity(string) int           { return g.capacity }
func (g fixedGate) Interval(string) time.Duration { return g.interval }

// memDB opens a repository in memory, closed when the test ends.
func memDB(t testing.TB) *repo.DB {
	t.Helper()
	db, err := repo.Open("", testRepoConfig, repo.Options{FS: vfs.NewMem()})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	return db
}

func openFrontier(t testing.TB, db *repo.DB, cfg Config, g Gate, c clock.Clock) *Frontier {
	t.Helper()
	f, err := New(context.Background(), db, cfg, g, Uniform{}, Options{Clock: c})
	if err != nil {
		t.Fatal(err)
	}
	return f
}

func add(t testing.TB, db *repo.DB, f *Frontier, urls []string, reason repo.Reason, due time.Time) {
	t.Helper()
	b := db.NewBatch(context.Background())
	defer b.Close()
	var items []repo.QueueItem
	for _, u := range urls {
		it, err := f.Enqueue(b, u, reason, due)
		if err != nil {
			t.Fatal(err)
		}
		items = append(items, it)
	}
	if err := b.Commit(); err != nil {
		t.Fatal(err)
	}
	f.Publish(items...)
}

// takeAll takes and finishes every job f hands out now, returning their
// URLs in order.
func takeAll(t testing.TB, db *repo.DB, f *Frontier) []string {
	t.Helper()
	var urls []string
	for {
		job, ok := f.TryNext()
		if !ok {
			return urls
		}
		urls = append(urls, job.URL)
		finish(t, db, f, job)
	}
}

func finish(t testing.TB, db *repo.DB, f *Frontier, job Job) {
	t.Helper()
	b := db.NewBatch(context.Background())
	defer b.Close()
	if err := f.Complete(b, job, true); err != nil {
		t.Fatal(err)
	}
	if err := b.Commit(); err != nil {
		t.Fatal(err)
	}
	f.Done(job, DoneInfo{})
}

// TestRandomOperationsHandOutEveryEntryExactlyOnce drives the frontier with
// seeded random adds, completions, deferrals and restarts, and checks that
// no entry is handed out while already in flight, that every committed
// entry is eventually fetched exactly once, and that no period spends more
// than its budget.
func TestRandomOperationsHandOutEveryEntryExactlyOnce(t *testing.T) {
	for seed := range uint64(20) {
		t.Run(fmt.Sprint("seed ", seed), func(t *testing.T) {
			rng := rand.New(rand.NewPCG(seed, 1))
			fs := vfs.NewMem()
			db, err := repo.Open("db", testRepoConfig, repo.Options{FS: fs})
			if err != nil {
				t.Fatal(err)
			}
			defer func() { db.Close() }()
			start := time.Date(2024, 1, 1, 0, 0, 0, 0, time.UTC)
			clk := clock.NewManual(start)
			cfg := Config{Policy: "uniform", Budget: BudgetConfig{Fetches: 7, Period: time.Minute}, HostBuffer: 1 + rng.IntN(3), Window: 8, Exploration: "thompson", Changes: "accumulate"}
			gate := fixedGate{capacity: 1 + rng.IntN(3), interval: time.Duration(rng.IntN(3)) * time.Second}
			f := openFrontier(t, db, cfg, gate, clk)
			added, fetched := map[string]bool{}, map[string]int{}
			inflight := map[string]Job{}
			perPeriod := map[time.Time]int{}
			next := 0
			for step := 0; step < 400; step++ {
				switch op := rng.IntN(10); {
				case op < 3:
					var urls []string
					for range 1 + rng.IntN(4) {
						u := fmt.Sprintf("http://h%d.test/%d", rng.IntN(3), next)
						next++
						urls = append(urls, u)
						added[u] = true
					}
					add(t, db, f, urls, repo.ReasonLink, clk.Now().Add(time.Duration(rng.IntN(5))*time.Second))
				case op < 6:
					job, ok := f.TryNext()
					if !ok {
						break
					}
					if _, dup := inflight[job.URL]; dup {
						t.Fatalf("step %d: %s handed out while in flight", step, job.URL)
					}
					inflight[job.URL] = job
					perPeriod[clk.Now().Truncate(time.Minute)]++
				case op < 8:
					for u, job := range inflight {
						if rng.IntN(3) == 0 {
							f.Release(job) // request over, result not committed
							break
						}
						if rng.IntN(2) == 0 {
							finish(t, db, f, job)
							fetched[u]++
						} else {
							f.Defer(job, clk.Now().Add(time.Second))
							perPeriod[clk.Now().Truncate(time.Minute)]--
						}
						delete(inflight, u)
						break
					}
				case op < 9:
					clk.Advance(time.Duration(1+rng.IntN(20)) * time.Second)
				default:
					// Crash: in-flight work is lost and must come back; it
					// never completed, so it does not count as spent.
					for range inflight {
						perPeriod[clk.Now().Truncate(time.Minute)]--
					}
					inflight = map[string]Job{}
					f = openFrontier(t, db, cfg, gate, clk)
				}
			}
			// Drain: everything left must come out exactly once.
			for {
				for u, job := range inflight {
					finish(t, db, f, job)
					fetched[u]++
					delete(inflight, u)
				}
				job, ok := f.TryNext()
				if ok {
					inflight[job.URL] = job
					continue
				}
				if f.Drained(0) && queueLen(db) == 0 {
					break
				}
				clk.Advance(time.Minute)
			}
			for u := range added {
				if fetched[u] != 1 {
					t.Errorf("%s fetched %d times, want 1", u, fetched[u])
				}
			}
			for p, n := range perPeriod {
				if n > cfg.Budget.Fetches {
					t.Errorf("period %s handed out %d, budget %d", p, n, cfg.Budget.Fetches)
				}
			}
		})
	}
}

func TestConcurrentWorkersUnderRace(t *testing.T) {
	db := memDB(t)
	f := openFrontier(t, db, Config{Policy: "uniform", Budget: BudgetConfig{Fetches: 1 << 20, Period: time.Hour}, HostBuffer: 4, Window: 8, Exploration: "thompson", Changes: "accumulate"}, fixedGate{capacity: 2}, clock.Real{})
	const n = 400
	var urls []string
	for i := range n {
		urls = append(urls, fmt.Sprintf("http://h%d.test/%d", i%7, i))
	}
	add(t, db, f, urls, repo.ReasonSeed, time.Now())
	var mu sync.Mutex
	seen := map[string]int{}
	var wg sync.WaitGroup
	for range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				job, err := f.Next(t.Context(), NextOptions{Drain: true})
				if errors.Is(err, ErrDrained) {
					return
				}
				if err != nil {
					t.Error(err)
					return
				}
				mu.Lock()
				seen[job.URL]++
				mu.Unlock()
				f.Release(job) // as the crawler does before its result commits
				finish(t, db, f, job)
			}
		}()
	}
	wg.Wait()
	if len(seen) != n {
		t.Fatalf("fetched %d distinct URLs, want %d", len(seen), n)
	}
	for u, c := range seen {
		if c != 1 {
			t.Fatalf("%s fetched %d times", u, c)
		}
	}
}

// TestReleaseFreesTheHostSlotOnce checks that a released job gives its
// politeness slot to the next job of its host while staying in flight,
// and that releasing it again, or ending it, frees nothing more.
func TestReleaseFreesTheHostSlotOnce(t *testing.T) {
	db := memDB(t)
	clk := clock.NewManual(time.Unix(0, 0))
	f := openFrontier(t, db, Config{Policy: "uniform", Budget: BudgetConfig{Fetches: 10, Period: time.Hour}, HostBuffer: 4, Window: 8, Exploration: "thompson", Changes: "accumulate"}, fixedGate{capacity: 1}, clk)
	add(t, db, f, []string{"http://a.test/1", "http://a.test/2", "http://a.test/3"}, repo.ReasonLink, clk.Now())
	first, ok := f.TryNext()
	if !ok {
		t.Fatal("no job from a host with three queued")
	}
	if job, ok := f.TryNext(); ok {
		t.Fatalf("capacity 1: second job %s handed out while the first is requesting", job.URL)
	}
	f.Release(first)
	second, ok := f.TryNext()
	if !ok || second.URL == first.URL {
		t.Fatalf("after Release: job %q, %v; want another URL than %s", second.URL, ok, first.URL)
	}
	if st := f.Stats(); st.InFlight != 2 {
		t.Fatalf("in flight = %d, want 2 (the released job stays until Done)", st.InFlight)
	}
	f.Release(first)
	finish(t, db, f, first)
	if job, ok := f.TryNext(); ok {
		t.Fatalf("capacity 1: %s handed out while %s is requesting", job.URL, second.URL)
	}
	f.Release(second)
	f.Defer(second, time.Time{})
	third, ok := f.TryNext()
	if !ok {
		t.Fatal("no job after the requesting one was released and deferred")
	}
	if job, ok := f.TryNext(); ok {
		t.Fatalf("capacity 1: %s handed out while %s is requesting", job.URL, third.URL)
	}
}

func TestNextEndsWithContext(t *testing.T) {
	db := memDB(t)
	f := openFrontier(t, db, Config{Policy: "uniform", Budget: BudgetConfig{Fetches: 10, Period: time.Hour}, HostBuffer: 4, Window: 8, Exploration: "thompson", Changes: "accumulate"}, fixedGate{capacity: 1}, clock.NewManual(time.Unix(0, 0)))
	ctx, cancel := context.WithCancel(t.Context())
	cancel()
	if _, err := f.Next(ctx, NextOptions{}); !errors.Is(err, context.Canceled) {
		t.Fatalf("Next on an empty frontier with a cancelled context = %v", err)
	}
}

func TestConfigValidateNamesEveryBadKey(t *testing.T) {
	err := Config{Policy: "nope", Budget: BudgetConfig{Fetches: 0, Period: time.Millisecond}, Split: SplitConfig{Recrawl: 0.8, Discovery: 0.5}, HostBuffer: 0}.Validate([]string{"uniform"})
	for _, want := range []string{
		`frontier.policy = "nope": must be one of [uniform]`,
		"frontier.budget.fetches = 0: must be >= 1",
		"frontier.budget.period = 1ms: must be >= 1s",
		"frontier.split.recrawl + split.discovery = 1.3: must be <= 1",
		"frontier.host_buffer = 0: must be in [1, 1024]",
	} {
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("Validate() = %v\nwant it to contain %q", err, want)
		}
	}
}

// The adaptive split's step and floor are refused past what adaptive
// could take even while it is off; 0, their value in a literal, is not.
func TestConfigValidateBoundsTheSplitStepAndFloorWithAdaptiveOff(t *testing.T) {
	valid := Config{Policy: "uniform", Budget: BudgetConfig{Fetches: 10, Period: time.Hour}, HostBuffer: 4, Window: 8, Exploration: "thompson", Changes: "accumulate"}
	if err := valid.Validate([]string{"uniform"}); err != nil {
		t.Fatalf("step and floor 0 with adaptive off: %v", err)
	}
	for _, tc := range []struct {
		split SplitConfig
		want  string
	}{
		{SplitConfig{Step: 1e300}, "frontier.split.step = 1e+300: must be in [0, 1]"},
		{SplitConfig{Step: -0.1}, "frontier.split.step = -0.1: must be in [0, 1]"},
		{SplitConfig{Floor: 0.6}, "frontier.split.floor = 0.6: must be in [0, 0.5]"},
	} {
		c := valid
		c.Split = tc.split
		if err := c.Validate([]string{"uniform"}); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%+v: Validate() = %v, want %q", tc.split, err, tc.want)
		}
	}
}

// BenchmarkMemoryPerQueuedURL reports the heap held per queued URL once the
// queue is loaded: only per-host heads stay in memory, the rest in Pebble.
// The repository is reopened before measuring so that its memtable and
// caches are settled and not counted.
func BenchmarkMemoryPerQueuedURL(b *testing.B) {
	for _, hosts := range []int{10, 1000, 100000} {
		b.Run(fmt.Sprint("hosts=", hosts), func(b *testing.B) {
			const n = 200000
			dir := b.TempDir()
			db, err := repo.Open(dir, testRepoConfig, repo.Options{})
			if err != nil {
				b.Fatal(err)
			}
			cfg := Config{Policy: "uniform", Budget: BudgetConfig{Fetches: n, Period: time.Hour}, HostBuffer: 8, Window: 8, Exploration: "thompson", Changes: "accumulate"}
			f := openFrontier(b, db, cfg, fixedGate{capacity: 1}, clock.Real{})
			batch := db.NewBatch(context.Background())
			for i := range n {
				if _, err := f.Enqueue(batch, fmt.Sprintf("http://host-%d.example.com/section/page-%d.html", i%hosts, i), repo.ReasonLink, time.Now()); err != nil {
					b.Fatal(err)
				}
			}
			if err := batch.Commit(); err != nil {
				b.Fatal(err)
			}
			if err := db.Close(); err != nil {
				b.Fatal(err)
			}
			if db, err = repo.Open(dir, testRepoConfig, repo.Options{}); err != nil {
				b.Fatal(err)
			}
			defer db.Close()
			openFrontier(b, db, cfg, fixedGate{capacity: 1}, clock.Real{}) // warm the block cache
			var held float64
			for b.Loop() {
				var before, after runtime.MemStats
				runtime.GC()
				runtime.GC()
				runtime.ReadMemStats(&before)
				f2 := openFrontier(b, db, cfg, fixedGate{capacity: 1}, clock.Real{})
				runtime.GC()
				runtime.GC()
				runtime.ReadMemStats(&after)
				held = float64(after.HeapAlloc) - float64(before.HeapAlloc)
				runtime.KeepAlive(f2)
			}
			b.ReportMetric(held/n, "B/queued-url")
		})
	}
}

func queueLen(db *repo.DB) int {
	n := 0
	for range db.AllQueued(context.Background()) {
		n++
	}
	return n
}

// A frontier given Options.Only hands out the URLs it holds, in order,
// even where the entries it does not hold lie between them on disk beyond
// its host buffer, and drains with those left queued for a frontier
// without it.
func TestOnlyHandsOutTheURLsItHoldsAndLeavesTheRestQueued(t *testing.T) {
	db := memDB(t)
	clk := clock.NewManual(time.Unix(1000, 0))
	cfg := Config{Policy: "uniform", Budget: BudgetConfig{Fetches: 100, Period: time.Hour}, HostBuffer: 2, Window: 8, Exploration: "thompson", Changes: "accumulate"}
	all := openFrontier(t, db, cfg, fixedGate{capacity: 1}, clk)
	// On disk, by due time: h1, h2, u1 … u8, h3.
	held := []string{"http://a.test/h1", "http://a.test/h2", "http://a.test/h3"}
	add(t, db, all, held[:1], repo.ReasonLink, time.Unix(0, 0))
	add(t, db, all, held[1:2], repo.ReasonLink, time.Unix(1, 0))
	for i := range 8 {
		add(t, db, all, []string{fmt.Sprintf("http://a.test/u%d", i+1)}, repo.ReasonLink, time.Unix(int64(2+i), 0))
	}
	add(t, db, all, held[2:], repo.ReasonLink, time.Unix(10, 0))

	holds := map[string]bool{}
	for _, u := range held {
		holds[u] = true
	}
	f, err := New(t.Context(), db, cfg, fixedGate{capacity: 1}, Uniform{}, Options{Clock: clk, Only: func(url string) bool { return holds[url] }})
	if err != nil {
		t.Fatal(err)
	}
	if got := takeAll(t, db, f); strings.Join(got, " ") != strings.Join(held, " ") {
		t.Errorf("handed out %v, want %v", got, held)
	}
	if !f.Drained(time.Hour) {
		t.Error("not drained once every URL it holds was fetched")
	}
	if f.Holds("http://a.test/u1") || !f.Holds(held[0]) {
		t.Error("Holds disagrees with Only")
	}
	if n := queueLen(db); n != 8 {
		t.Errorf("%d entries left on disk, want the 8 it does not hold", n)
	}
	rest := takeAll(t, db, openFrontier(t, db, cfg, fixedGate{capacity: 1}, clk))
	for _, u := range rest {
		if holds[u] {
			t.Errorf("%s handed out again", u)
		}
	}
	if len(rest) != 8 {
		t.Errorf("a frontier without Only handed out %d of the 8 left", len(rest))
	}
}

// DueNow hands out an entry planned for later at once, as a poll asked for
// now needs; without it the entry waits for its time.
func TestDueNowHandsOutAnEntryPlannedForLater(t *testing.T) {
	db := memDB(t)
	clk := clock.NewManual(time.Unix(1000, 0))
	cfg := Config{Policy: "uniform", Budget: BudgetConfig{Fetches: 100, Period: time.Hour}, HostBuffer: 4, Window: 8, Exploration: "thompson", Changes: "accumulate"}
	planned := openFrontier(t, db, cfg, fixedGate{capacity: 1}, clk)
	add(t, db, planned, []string{"http://a.test/feed"}, repo.ReasonRecrawl, clk.Now().Add(40*time.Minute))
	if job, ok := planned.TryNext(); ok {
		t.Fatalf("%s handed out 40 minutes before it is due", job.URL)
	}
	now, err := New(t.Context(), db, cfg, fixedGate{capacity: 1}, Uniform{}, Options{Clock: clk, DueNow: true})
	if err != nil {
		t.Fatal(err)
	}
	job, ok := now.TryNext()
	if !ok || job.URL != "http://a.test/feed" {
		t.Fatalf("DueNow: TryNext = %q, %v; want the feed at once", job.URL, ok)
	}
	finish(t, db, now, job)
	if n := queueLen(db); n != 0 {
		t.Errorf("%d entries left: the planned entry is the one fetched", n)
	}
}
