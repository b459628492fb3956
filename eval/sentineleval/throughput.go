package sentineleval

import (
	"context"
	"fmt"
	"io"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"time"

	"github.com/deltaq/deltaq/repo"
	"github.com/deltaq/deltaq/watch"
)

// throughputRow is one run: N sentinels, a placement, a group size.
type throughputRow struct {
	Sentinels   int
	Dist, Group string
	Placement   int     // the group size the sentinels were placed for
	Pages       int     // distinct pages watched
	Groups      int     // groups checked (pages, or sentinels when ungrouped)
	PageBytes   float64 // mean body size of the watched pages
	InstallUS   float64 // mean install cost per sentinel, µs
	CheckSec    float64 // wall time of checking every group once
	PerSec      float64 // sentinels checked per second
	Speedup     float64 // PerSec / PerSec of the same sentinels checked ungrouped
	BytesCheck  float64 // repository bytes read per group check
	BytesSent   float64 // repository bytes read per sentinel
	Fired       int64
	// Windows are the mean install costs (µs) of each run of 1,000
	// consecutive installs, for the install-cost-versus-size plot.
	Windows []float64
}

// placement assigns n sentinels to pages: page indexes, one per sentinel.
// Uniform puts the group size g on each of ⌈n/g⌉ pages; zipf spreads them
// over the same pages with weight 1/i^α (WebCQ Fig. 13).
func placement(n, g, pages int, dist string, alpha float64, rng *rand.Rand) []int {
	u := min(pages, (n+g-1)/g)
	out := make([]int, n)
	if dist == "uniform" {
		for i := range out {
			out[i] = i % u
		}
		return out
	}
	cum := make([]float64, u)
	sum := 0.0
	for i := range cum {
		sum += 1 / math.Pow(float64(i+1), alpha)
		cum[i] = sum
	}
	for i := range out {
		x := rng.Float64() * sum
		j, _ := slices.BinarySearch(cum, x)
		out[i] = min(j, u-1)
	}
	// Every page at least once, so the page count matches the uniform run.
	for i := 0; i < u && i < n; i++ {
		out[i] = i
	}
	return out
}

// checkPass opens a checkpoint and checks every group once, timing it.
func checkPass(ctx context.Context, s *served, dir string, gs []watch.Group, ungrouped bool) (time.Duration, watch.Stats, error) {
	db, err := repo.Open(dir, repoConfig, repo.Options{})
	if err != nil {
		return 0, watch.Stats{}, err
	}
	defer db.Close()
	e, err := watch.New(db, watchConfig(), nil, watch.Options{Fetcher: s.fetcher(), Ungrouped: ungrouped})
	if err != nil {
		return 0, watch.Stats{}, err
	}
	defer e.Close()
	start := time.Now()
	for _, gr := range gs {
		if _, err := e.Check(ctx, gr.Key); err != nil {
			return 0, watch.Stats{}, fmt.Errorf("sentinels: check %s: %w", gr.URL, err)
		}
	}
	return time.Since(start), e.Stats(), nil
}

// runThroughput installs n sentinels placed for group size g on week
// cfg.Week, moves the archive to the next week and checks every group
// once, timing both; ungrouped, each sentinel is checked alone. The
// placement and the objects depend on (seed, n, g) only, so a grouped run
// and an ungrouped run with the same g watch the same sentinels.
func runThroughput(ctx context.Context, s *served, pages []*pageInfo, cfg Config, n int, dist string, g int, ungrouped bool, queries [][]string, tmp string, progress io.Writer) (row throughputRow, err error) {
	group := strconv.Itoa(g)
	if ungrouped {
		group = "none"
	}
	row = throughputRow{Sentinels: n, Dist: dist, Group: group, Placement: g}
	rng := rand.New(rand.NewPCG(cfg.Seed, uint64(n)*31+uint64(g)))
	place := placement(n, g, len(pages), dist, cfg.ZipfAlpha, rng)
	if err := s.rs.SetWeek(cfg.Week); err != nil {
		return row, err
	}
	db, done, err := tempRepo(tmp)
	if err != nil {
		return row, err
	}
	defer func() {
		if cerr := done(); err == nil {
			err = cerr
		}
	}()
	e, err := watch.New(db, watchConfig(), nil, watch.Options{Fetcher: s.fetcher(), Ungrouped: ungrouped})
	if err != nil {
		return row, err
	}
	defer e.Close()
	seen := map[int]bool{}
	var total time.Duration
	var window time.Duration
	for i, pi := range place {
		p := pages[pi]
		if !seen[pi] {
			seen[pi] = true
			row.PageBytes += float64(len(p.body))
		}
		t := watch.Types[i%len(watch.Types)]
		spec, ok := specFor(t, p, queries, rng)
		if !ok {
			spec, _ = specFor(watch.Words, p, queries, rng)
		}
		start := time.Now()
		_, err := e.Install(ctx, spec)
		d := time.Since(start)
		if err != nil {
			// A generated object the page does not have (a regex whose
			// word sits in markup): fall back to a words sentinel.
			spec, _ = specFor(watch.Words, p, queries, rng)
			start = time.Now()
			if _, err = e.Install(ctx, spec); err != nil {
				return row, fmt.Errorf("sentinels: install %d on %s: %w", i, p.url, err)
			}
			d = time.Since(start)
		}
		total += d
		window += d
		if (i+1)%1000 == 0 {
			row.Windows = append(row.Windows, float64(window.Microseconds())/1000)
			window = 0
		}
		if (i+1)%10000 == 0 {
			fmt.Fprintf(progress, "  installed %d of %d\n", i+1, n)
		}
	}
	row.Pages = len(seen)
	row.PageBytes /= float64(len(seen))
	row.InstallUS = float64(total.Microseconds()) / float64(n)
	gs, err := e.Groups(ctx)
	if err != nil {
		return row, err
	}
	row.Groups = len(gs)
	// The check pass runs cfg.Repeats times, each on its own checkpoint of
	// the installed repository, and the fastest counts: the machine is
	// shared, and the slower passes measure the neighbours.
	var cps []string
	for r := range max(1, cfg.Repeats) {
		cp := filepath.Join(tmp, fmt.Sprintf("checkpoint-%d-%s-%s-%d-%d", n, dist, group, g, r))
		if err := db.Checkpoint(cp); err != nil {
			return row, err
		}
		defer os.RemoveAll(cp)
		cps = append(cps, cp)
	}
	if err := s.rs.SetWeek(cfg.Week + 1); err != nil {
		return row, err
	}
	best := time.Duration(math.MaxInt64)
	for _, cp := range cps {
		elapsed, st, err := checkPass(ctx, s, cp, gs, ungrouped)
		if err != nil {
			return row, err
		}
		if elapsed < best {
			best = elapsed
			row.BytesCheck = float64(st.BytesRead) / float64(len(gs))
			row.BytesSent = float64(st.BytesRead) / float64(n)
			row.Fired = st.Fired
		}
	}
	row.CheckSec = best.Seconds()
	row.PerSec = float64(n) / best.Seconds()
	return row, nil
}
