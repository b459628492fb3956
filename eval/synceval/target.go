package synceval

import (
	"fmt"
	"math"
	"slices"

	"github.com/deltaq/deltaq/eval/paired"
)

// Target compares deltaq with the baselines the way fig. 4.4 reads: the
// resources deltaq needs for the quality the best baseline reaches with
// the most resources.
//
// The best baseline is the one (SBR and EBR at their best τ per budget)
// with the highest mean Q at the largest budget swept, B_max. Budget is
// the smallest B at which deltaq's mean Q reaches that quality: between
// two swept budgets whose mean Q bracket it, B is interpolated linearly
// in (mean Q, B); at or below the smallest swept budget it is that budget
// (an upper bound: AtMost). Ratio = Budget / B_max; below 1 deltaq needs
// fewer re-downloads. Reached is false when deltaq does not reach the
// quality at any swept budget (Ratio is then NaN).
type Target struct {
	Baseline    string  // e.g. "sbr τ=0.3"
	MaxBudget   int     // B_max
	BaselineQ   float64 // its mean Q at B_max
	Budget      float64 // deltaq's interpolated budget
	Ratio       float64
	Reached     bool
	AtMost      bool    // deltaq already reaches it at the smallest budget swept
	DeltaqAtMax float64 // deltaq's mean Q at B_max
}

// target computes the target from the best run per policy and budget.
func target(best []RunSummary) (Target, bool) {
	var t Target
	var deltaq []RunSummary
	for _, r := range best {
		if r.Policy == "deltaq" {
			deltaq = append(deltaq, r)
		}
		t.MaxBudget = max(t.MaxBudget, r.Budget)
	}
	if len(deltaq) == 0 {
		return t, false
	}
	found := false
	for _, r := range best {
		if r.Policy == "deltaq" || r.Budget != t.MaxBudget {
			continue
		}
		if !found || r.MeanQ > t.BaselineQ {
			t.Baseline, t.BaselineQ, found = Label(r), r.MeanQ, true
		}
	}
	if !found {
		return t, false
	}
	slices.SortFunc(deltaq, func(a, b RunSummary) int { return a.Budget - b.Budget })
	for _, r := range deltaq {
		if r.Budget == t.MaxBudget {
			t.DeltaqAtMax = r.MeanQ
		}
	}
	t.Ratio = math.NaN()
	for i, r := range deltaq {
		if r.MeanQ < t.BaselineQ {
			continue
		}
		t.Reached = true
		if i == 0 {
			t.Budget, t.AtMost = float64(r.Budget), true
		} else {
			p := deltaq[i-1]
			// p.MeanQ < BaselineQ ≤ r.MeanQ.
			frac := (t.BaselineQ - p.MeanQ) / (r.MeanQ - p.MeanQ)
			t.Budget = float64(p.Budget) + frac*float64(r.Budget-p.Budget)
		}
		t.Ratio = t.Budget / float64(t.MaxBudget)
		break
	}
	return t, true
}

// Label names a run in tables: the policy, with τ for SBR and EBR, and
// its split of B in a split sweep.
func Label(r RunSummary) string {
	l := r.Policy
	if usesTau(r.Policy) {
		l = fmt.Sprintf("%s τ=%.1f", r.Policy, r.Tau)
	}
	if r.Split != "" {
		l += " " + splitLabel(r.Split)
	}
	return l
}

// Margin is deltaq against the best baseline at one budget, week by week:
// how far apart the two mean Qs are, measured against how much the
// weekly differences vary and, for a seeded run, how much its seeds'
// results do.
type Margin struct {
	Budget   int
	Baseline string  // the baseline with the highest mean Q at Budget
	Diff     float64 // mean over weeks 1..W−1 of Q_deltaq(w) − Q_baseline(w)
	// WeekStdErr is the weekly differences' standard deviation over
	// √weeks (deltaq's Q each week the mean over its seeds); SeedStdErr
	// the seeds' mean differences' standard deviation over √seeds (0 with
	// one seed). StdErr is √(WeekStdErr² + SeedStdErr²): a policy that
	// draws at random is judged by what it does on any seed, and one
	// seed's lucky weeks are not independent of each other.
	WeekStdErr, SeedStdErr, StdErr float64
	Ahead                          int // weeks in which deltaq's Q is higher
	Weeks                          int
	Seeds                          int // deltaq's seeds (1 when it is not seeded)
	SeedsAhead                     int // seeds whose mean Q is higher
}

// margins pairs deltaq with the best baseline at every budget both were
// run at, in increasing budget order.
func margins(best []RunSummary) []Margin {
	var out []Margin
	for _, d := range best {
		if d.Policy != "deltaq" {
			continue
		}
		var base *RunSummary
		for i, r := range best {
			if r.Policy != "deltaq" && r.Budget == d.Budget && (base == nil || r.MeanQ > base.MeanQ) {
				base = &best[i]
			}
		}
		if base == nil {
			continue
		}
		if m, ok := weekByWeek(d, *base); ok {
			out = append(out, m)
		}
	}
	slices.SortFunc(out, func(a, b Margin) int { return a.Budget - b.Budget })
	return out
}

// weekByWeek is run d against base week by week (weeks 1..W−1): the mean
// difference of their Q, its standard error and the weeks d is ahead,
// and, when d stands for several seeds, the same over its seeds, each
// against base's run of the same seed if base has as many, else against
// base. ok is false when the two runs do not cover the same weeks, or too
// few.
func weekByWeek(d, base RunSummary) (m Margin, ok bool) {
	if len(base.Q) != len(d.Q) || len(d.Q) < 3 {
		return m, false
	}
	diff := paired.Compare(d.Q[1:], base.Q[1:])
	m = Margin{Budget: d.Budget, Baseline: Label(base), Diff: diff.Mean, WeekStdErr: diff.StdErr, StdErr: diff.StdErr,
		Ahead: diff.Ahead, Weeks: diff.N, Seeds: d.runs()}
	if len(d.Seeds) < 2 {
		if diff.Mean > 0 {
			m.SeedsAhead = 1
		}
		return m, true
	}
	ours, theirs := make([]float64, len(d.Seeds)), make([]float64, len(d.Seeds))
	for i, s := range d.Seeds {
		ours[i], theirs[i] = s.MeanQ, base.MeanQ
		if len(base.Seeds) == len(d.Seeds) {
			theirs[i] = base.Seeds[i].MeanQ
		}
	}
	seeds := paired.Compare(ours, theirs)
	m.SeedStdErr, m.SeedsAhead = seeds.StdErr, seeds.Ahead
	m.StdErr = math.Hypot(m.WeekStdErr, m.SeedStdErr)
	return m, true
}
