package synceval

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/deltaq/deltaq/repo"
)

// runSpec is one run of the sweep: a policy at a budget (and τ).
type runSpec struct {
	Policy string
	Budget int     // B: fetches per week
	Tau    float64 // τ of SBR and EBR; 0 for the others
	// Split is the run's split of B between re-crawl and discovery (an
	// entry of eval.sync.splits; "" re-crawl only: split.go).
	Split string
	// All marks the run that re-fetches every page every week (B above
	// every URL of the archive): the upper bound and fig. 4.3's data.
	All bool
	// Seeded marks a run of a policy whose plans draw at random
	// (harness.seeded), repeated with eval.sync.seeds seeds; Seed is its
	// frontier.seed.
	Seeded bool
	Seed   uint64
}

// usesTau reports whether the policy has a τ.
func usesTau(policy string) bool { return policy == "sbr" || policy == "ebr" }

func (s runSpec) String() string {
	split := ""
	if s.Split != "" {
		split = " " + splitLabel(s.Split)
	}
	if s.Seeded {
		split += fmt.Sprintf(" seed=%d", s.Seed)
	}
	switch {
	case s.All:
		return fmt.Sprintf("%s B=all(%d)", s.Policy, s.Budget)
	case usesTau(s.Policy):
		return fmt.Sprintf("%s τ=%.1f B=%d%s", s.Policy, s.Tau, s.Budget, split)
	}
	return fmt.Sprintf("%s B=%d%s", s.Policy, s.Budget, split)
}

// runResult is what one run measured.
type runResult struct {
	Spec runSpec
	// Q[w] is Q(W^L) after week w's crawl (Q[0]: the week-0 repository).
	Q []float64
	// Fetched[w], Changed[w] and Planned[w] are week w's page fetches,
	// those that found the page changed, and planned re-fetches (0 for
	// week 0).
	Fetched, Changed, Planned []int
	// NewFetched[w] and DiscFetched[w] are week w's first fetches (new
	// URLs and retries) and discovery re-fetches, Shares[w] the discovery
	// share of B its plan used (frontier.SplitShare).
	NewFetched, DiscFetched []int
	Shares                  []float64
	// MeanQ is the mean of Q over weeks 1..W−1.
	MeanQ float64
	Took  time.Duration
	// Reranked and Kept count the answers ranked afresh and reused.
	Reranked, Kept int
	// Stages is the wall time by stage of the weekly loop.
	Stages stageTimes
	// Forecast holds δQ_A per page over the two halves, and History every
	// page's fetch log and ΔQ_A measurements (All runs only).
	Forecast []forecastPage
	History  map[string]pageHistory
	// Refetches are the pages fetched, by week (Config.Refetches).
	Refetches []Refetch
}

// run replays weeks 1..W−1 for one spec, starting from the week-0
// checkpoint, in its own directory under the work directory.
func (h *harness) run(ctx context.Context, id int, spec runSpec) (res *runResult, err error) {
	start := time.Now()
	dir := fmt.Sprintf("run-%03d", id)
	cleanup := func() error {
		return errors.Join(os.RemoveAll(filepath.Join(h.work, dir)), h.mem.RemoveAll(dir))
	}
	if err := cleanup(); err != nil {
		return nil, fmt.Errorf("synceval: %w", err)
	}
	defer func() {
		if rerr := cleanup(); rerr != nil && err == nil {
			err = fmt.Errorf("synceval: %w", rerr)
		}
	}()
	if err := h.baseDB.Checkpoint(filepath.Join(dir, "repo")); err != nil {
		return nil, err
	}
	if err := os.CopyFS(filepath.Join(h.work, dir, "index"), os.DirFS(filepath.Join(h.work, "base", "index"))); err != nil {
		return nil, fmt.Errorf("synceval: copy the week-0 index: %w", err)
	}
	e, err := h.open(ctx, dir, spec)
	if err != nil {
		return nil, err
	}
	defer func() {
		if cerr := e.close(); cerr != nil && err == nil {
			err = cerr
		}
	}()
	weeks := h.c.weeks()
	res = &runResult{Spec: spec, Q: make([]float64, weeks), Fetched: make([]int, weeks), Changed: make([]int, weeks), Planned: make([]int, weeks),
		NewFetched: make([]int, weeks), DiscFetched: make([]int, weeks), Shares: make([]float64, weeks)}
	// Week 0: the checkpoint is fully synchronized; its answers give μ
	// for the first plan.
	if res.Q[0], err = e.settle(ctx, 0); err != nil {
		return nil, err
	}
	for w := 1; w < weeks; w++ {
		if err := e.rs.SetWeek(w); err != nil {
			return nil, err
		}
		e.clk.Set(h.c.dates[w])
		t := time.Now()
		if res.Planned[w], err = e.fr.Plan(ctx); err != nil {
			return nil, err
		}
		t = since(&e.took.Plan, t)
		res.Shares[w] = e.fr.SplitShare()
		if res.Fetched[w], res.Changed[w], err = e.crawl(ctx); err != nil {
			return nil, err
		}
		if e.yieldErr != nil {
			return nil, e.yieldErr
		}
		if h.cfg.Refetches {
			if res.Refetches, err = e.refetched(ctx, w, res.Refetches); err != nil {
				return nil, err
			}
		}
		byClass := e.fr.Stats().PeriodByClass
		res.NewFetched[w], res.DiscFetched[w] = byClass[repo.ClassNew], byClass[repo.ClassDiscovery]
		since(&e.took.Crawl, t)
		if res.Fetched[w] > spec.Budget {
			return nil, fmt.Errorf("synceval: %s: week %d: %d fetches, over the budget B = %d", spec, w, res.Fetched[w], spec.Budget)
		}
		if res.Q[w], err = e.settle(ctx, w); err != nil {
			return nil, err
		}
		h.prog.Step()
	}
	var sum float64
	for _, q := range res.Q[1:] {
		sum += q
	}
	res.MeanQ = sum / float64(weeks-1)
	if spec.All {
		if res.History, err = h.history(ctx, e); err != nil {
			return nil, err
		}
		res.Forecast = h.forecast(res.History)
	}
	res.Reranked, res.Kept = e.local.Reranked, e.local.Kept
	res.Stages = e.took
	res.Took = time.Since(start)
	return res, nil
}

// refetched appends the pages week w's crawl fetched: every fetch of the
// week happens at its date on the run's clock.
func (e *env) refetched(ctx context.Context, w int, out []Refetch) ([]Refetch, error) {
	at := e.h.c.dates[w]
	for p, err := range e.db.Pages(ctx) {
		if err != nil {
			return nil, err
		}
		if p.LastFetch.Equal(at) {
			out = append(out, Refetch{Week: w, URL: p.URL, Changed: p.LastChange.Equal(at)})
		}
	}
	return out, nil
}
