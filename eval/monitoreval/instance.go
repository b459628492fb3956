package monitoreval

import (
	"math"
	"math/rand/v2"
	"slices"

	"github.com/deltaq/deltaq/monitor"
)

// page is one monitored page: how its changes persist, and the instants
// (1..N) at which it really changed.
type page struct {
	url     string
	life    monitor.Life
	changes []int
}

// instance is a monitoring problem: pages over instants 1..n.
type instance struct {
	name  string
	n     int
	pages []page
}

func (in *instance) totalChanges() int {
	t := 0
	for _, p := range in.pages {
		t += len(p.changes)
	}
	return t
}

// estimate is a page's change probabilities as sparse (instant, π) pairs
// in instant order; every other instant has π = 0.
type estimate struct {
	at []int
	pi []float64
}

// noisy builds the paper's estimates from the exact changes (§5): each
// change is removed with probability fpn and a spurious one inserted at a
// random instant instead; then every change's probability is spread as a
// Gaussian of s.d. sigma instants (cut at 3σ, renormalised, capped at 1).
func noisy(p page, n int, fpn, sigma float64, rng *rand.Rand) estimate {
	var marks []int
	for _, c := range p.changes {
		if fpn > 0 && rng.Float64() < fpn {
			marks = append(marks, 1+rng.IntN(n))
			continue
		}
		marks = append(marks, c)
	}
	mass := map[int]float64{}
	if sigma <= 0 {
		for _, m := range marks {
			mass[m] = 1
		}
	} else {
		w := int(math.Ceil(3 * sigma))
		var kernel []float64
		sum := 0.0
		for d := -w; d <= w; d++ {
			k := math.Exp(-float64(d*d) / (2 * sigma * sigma))
			kernel = append(kernel, k)
			sum += k
		}
		for _, m := range marks {
			for i, k := range kernel {
				j := m + i - w
				if j >= 1 && j <= n {
					mass[j] = min(1, mass[j]+k/sum)
				}
			}
		}
	}
	var e estimate
	for j := range mass {
		e.at = append(e.at, j)
	}
	slices.Sort(e.at)
	for _, j := range e.at {
		e.pi = append(e.pi, mass[j])
	}
	return e
}
