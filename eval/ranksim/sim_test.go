package ranksim

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"
)

// smallCommunity keeps the §5.7.1 ratios at a tenth of the size.
func smallCommunity() Community {
	c := DefaultCommunity()
	c.Pages, c.Users, c.Monitored, c.VisitsPerDay = 1000, 100, 10, 100
	return c
}

func smallSpec(p Policy) runSpec {
	c := smallCommunity()
	return runSpec{
		Community: c, Policy: p, WarmupDays: 400, MeasureDays: 1200,
		Ghosts: 16, TBPThreshold: tbpThreshold(c.Monitored), QPCSample: 100,
		CommunitySeed: 7, VisitSeed: 8,
	}
}

func TestIdealQPCIsTheWeightedQualityByHand(t *testing.T) {
	c := Community{Pages: 2, Users: 1, Monitored: 1, VisitsPerDay: 1, LifetimeDays: 1, QualityMax: 0.4, QualityExponent: 2}
	// Q = 0.4, 0.4·2^(−1) = 0.2; w ∝ 1, 2^(−3/2).
	w2 := math.Pow(2, -1.5)
	want := (0.4 + 0.2*w2) / (1 + w2)
	if got := IdealQPC(c); math.Abs(got-want) > 1e-15 {
		t.Fatalf("IdealQPC = %v, want %v", got, want)
	}
}

func TestIdealRankingHasNormalizedQPCOne(t *testing.T) {
	spec := smallSpec(Policy{Rule: Ideal})
	res, err := simulate(t.Context(), spec)
	if err != nil {
		t.Fatal(err)
	}
	// 120,000 sampled visits: the standard error of the mean is about
	// 0.3 % of the ideal, so 2 % is over six standard errors.
	if got, _ := normQPC(res, spec.Community); math.Abs(got-1) > 0.02 {
		t.Fatalf("normalized QPC of the ideal ranking = %.4f, want 1", got)
	}
}

func TestSimulationIsDeterministic(t *testing.T) {
	for _, p := range []Policy{{Rule: Nonrandomized}, {Rule: Selective, K: 2, R: 0.2}, {Rule: Uniform, K: 1, R: 0.2}} {
		a, err := simulate(t.Context(), smallSpec(p))
		if err != nil {
			t.Fatal(err)
		}
		b, err := simulate(t.Context(), smallSpec(p))
		if err != nil {
			t.Fatal(err)
		}
		if a.QualitySum != b.QualitySum || a.TBPDone != b.TBPDone || !slices.Equal(a.Batches, b.Batches) {
			t.Fatalf("%s: two runs with the same seeds differ", p)
		}
	}
}

func TestProbesDoNotChangeTheCommunity(t *testing.T) {
	with := smallSpec(Policy{Rule: Selective, K: 1, R: 0.1})
	without := with
	without.Ghosts = 0
	a, err := simulate(t.Context(), with)
	if err != nil {
		t.Fatal(err)
	}
	b, err := simulate(t.Context(), without)
	if err != nil {
		t.Fatal(err)
	}
	if a.QualitySum != b.QualitySum || a.ZeroShare != b.ZeroShare {
		t.Fatal("adding TBP probes changed the simulated community")
	}
	if a.TBPDone == 0 {
		t.Fatal("no probe became popular")
	}
}

func TestSimulationKeepsItsInvariants(t *testing.T) {
	for _, p := range []Policy{{Rule: Nonrandomized}, {Rule: Selective, K: 1, R: 0.1}, {Rule: Uniform, K: 2, R: 0.3}} {
		t.Run(p.String(), func(t *testing.T) {
			spec := smallSpec(p)
			deaths, days := 0, 0
			var prevBirth []int32
			spec.trace = func(day int, s *sim) {
				days++
				if prevBirth != nil {
					for i := range s.birth {
						if s.birth[i] != prevBirth[i] {
							deaths++
						}
					}
				}
				prevBirth = slices.Clone(s.birth)
				if day%50 != 0 {
					return
				}
				s.snapshot() // the ranking the next day will use
				if len(s.aware)+len(s.zero) != s.n {
					t.Fatalf("day %d: %d aware + %d unaware pages, want %d", day, len(s.aware), len(s.zero), s.n)
				}
				for i, pg := range s.aware {
					if s.count[pg] < 1 || int(s.count[pg]) > s.m {
						t.Fatalf("day %d: aware page %d has count %d", day, pg, s.count[pg])
					}
					if i > 0 && s.before(pg, s.aware[i-1]) {
						t.Fatalf("day %d: aware list out of order at %d", day, i)
					}
				}
				for i, pg := range s.zero {
					if s.count[pg] != 0 || s.zeroBorn[i] != s.birth[pg] || (i > 0 && s.zeroBorn[i] < s.zeroBorn[i-1]) {
						t.Fatalf("day %d: zero list wrong at %d", day, i)
					}
				}
			}
			if _, err := simulate(t.Context(), spec); err != nil {
				t.Fatal(err)
			}
			// Deaths per day are Binomial(n, 1−e^(−1/l)): mean 1.82 here,
			// so 1,600 days give 2,900 ± 54.
			rate := float64(deaths) / float64(days-1)
			want := float64(spec.Community.Pages) * -math.Expm1(-1/spec.Community.LifetimeDays)
			if math.Abs(rate-want) > 0.15*want {
				t.Fatalf("%.3f retirements a day, want %.3f", rate, want)
			}
		})
	}
}

// literalMerge builds the whole §5.5 result list for one query: L_d the
// aware pages in order, L_p the zero-awareness pages shuffled.
func literalMerge(s *sim, k int, r float64, rng *rand.Rand) []int32 {
	return mergeLists(slices.Clone(s.aware), slices.Clone(s.zero), k, r, rng)
}

// mergeLists shuffles lp and merges it into ld by the §5.5 rule: the first
// k−1 entries of ld, then each slot from lp with probability r.
func mergeLists(ld, lp []int32, k int, r float64, rng *rand.Rand) []int32 {
	rng.Shuffle(len(lp), func(i, j int) { lp[i], lp[j] = lp[j], lp[i] })
	var out []int32
	for len(out) < k-1 && len(ld) > 0 {
		out, ld = append(out, ld[0]), ld[1:]
	}
	for len(ld) > 0 || len(lp) > 0 {
		if len(ld) == 0 || (len(lp) > 0 && rng.Float64() < r) {
			out, lp = append(out, lp[0]), lp[1:]
		} else {
			out, ld = append(out, ld[0]), ld[1:]
		}
	}
	return out
}

func TestSelectiveVisitsMatchTheLiteralMerge(t *testing.T) {
	// Build a small state: 30 aware pages, 20 unaware; then compare, for
	// several positions, how often each page lands there in the literal
	// merge and in the sampled resolution.
	c := Community{Pages: 50, Users: 10, Monitored: 10, VisitsPerDay: 10, LifetimeDays: 100, QualityMax: 0.4, QualityExponent: 2.1}
	s := &sim{n: 50, m: 10, q: c.Qualities(), count: make([]int32, 50), birth: make([]int32, 50), isDir: make([]bool, 50)}
	for p := range 50 {
		if p%5 < 3 {
			s.count[p] = int32(1 + p%7)
		}
		s.birth[p] = int32(-p)
		s.markDirty(int32(p))
	}
	s.snapshot()
	const k, r, draws = 3, 0.3, 200000
	lit := rand.New(rand.NewPCG(1, 1))
	s.rng = rand.New(rand.NewPCG(2, 2))
	for _, pos := range []int{0, 2, 5, 25, 45, 49} {
		var fromLiteral, sampled [50]int
		for range draws {
			fromLiteral[literalMerge(s, k, r, lit)[pos]]++
			pg, _ := s.selective(pos, k, r)
			sampled[pg]++
		}
		for pg := range 50 {
			pl, ps := float64(fromLiteral[pg])/draws, float64(sampled[pg])/draws
			// Binomial sd at p ≤ 1 is at most sqrt(0.25/200000) ≈ 0.0011 per
			// estimate; 0.006 is over 3.5 sd of the difference.
			if math.Abs(pl-ps) > 0.006 {
				t.Errorf("position %d, page %d: literal %.4f, sampled %.4f", pos, pg, pl, ps)
			}
		}
	}
}

// literalUniform builds the whole result list for one query under the
// uniform rule: every page joins the pool with probability r.
func literalUniform(s *sim, k int, r float64, rng *rand.Rand) []int32 {
	var ld, lp []int32
	for pos := range s.n {
		if p := s.at(pos); rng.Float64() < r {
			lp = append(lp, p)
		} else {
			ld = append(ld, p)
		}
	}
	return mergeLists(ld, lp, k, r, rng)
}

func TestUniformVisitsMatchTheLiteralMerge(t *testing.T) {
	c := Community{Pages: 60, Users: 10, Monitored: 10, VisitsPerDay: 10, LifetimeDays: 100, QualityMax: 0.4, QualityExponent: 2.1}
	s := &sim{n: 60, m: 10, q: c.Qualities(), count: make([]int32, 60), birth: make([]int32, 60), isDir: make([]bool, 60)}
	for p := range 60 {
		if p%4 != 0 {
			s.count[p] = int32(1 + p%9)
		}
		s.birth[p] = int32(-p)
		s.markDirty(int32(p))
	}
	s.snapshot()
	const k, r, draws = 2, 0.2, 200000
	lit := rand.New(rand.NewPCG(5, 5))
	s.rng = rand.New(rand.NewPCG(6, 6))
	for _, pos := range []int{0, 1, 3, 10, 30} {
		var fromLiteral, sampled [60]int
		for range draws {
			fromLiteral[literalUniform(s, k, r, lit)[pos]]++
			pg, _ := s.uniform(pos, k, r)
			sampled[pg]++
		}
		for pg := range 60 {
			pl, ps := float64(fromLiteral[pg])/draws, float64(sampled[pg])/draws
			if math.Abs(pl-ps) > 0.006 {
				t.Errorf("position %d, page %d: literal %.4f, sampled %.4f", pos, pg, pl, ps)
			}
		}
	}
}
