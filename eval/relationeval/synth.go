package relationeval

import (
	"container/heap"
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"strconv"

	tracker "github.com/deltaq/deltaq/internal/progress"
	"github.com/deltaq/deltaq/relation"
)

// Synthetic methods, in report order.
var synthMethods = []string{"Naive 1", "Naive 2", "Greedy"}

// synthRun is one seed's F(L;t) curves, sampled at every integer t, and
// the time averages.
type synthRun struct {
	curves [3][]float64 // by method; index t-1 for t = 1..Units
	means  [3]float64   // time average over [0, Units]
	plan   relation.Plan
}

// citations draws an initial citation count from NC(x) = 2/x³ on x ≥ 1
// (§5.2): inverse transform x = U^(−1/2), rounded down to a count, so
// P(c ≥ k) = 1/k².
func citations(rng *rand.Rand) int {
	u := 1 - rng.Float64() // (0, 1]
	return int(math.Floor(1 / math.Sqrt(u)))
}

// runSynth simulates one seed of Fig. 2: papers with Poisson citation
// updates, synchronised by Naive 1, Naive 2 and Greedy at QueriesPerUnit
// requests per unit, all three over the same update events. prog counts
// the time units.
func runSynth(ctx context.Context, c SynthConfig, seed uint64, prog *tracker.Tracker) (*synthRun, error) {
	rng := rand.New(rand.NewPCG(seed, 0xf16_2))
	tuples := make([]relation.Tuple, c.Papers)
	weights := make([]float64, c.Papers)
	size := make([]int, c.Groups)
	for i := range tuples {
		c0 := citations(rng)
		g := rng.IntN(c.Groups)
		for size[g] >= c.MaxGroup { // a group covers at most MaxGroup papers
			g = rng.IntN(c.Groups)
		}
		size[g]++
		// w(r) = citations and λ = A_k = 0.25·k (§3.1, §5.2).
		tuples[i] = relation.Tuple{ID: strconv.Itoa(i), Keywords: []string{"g" + strconv.Itoa(g)}, Weight: float64(c0), Rate: c.Attachment * float64(c0)}
		weights[i] = float64(c0)
	}
	// The server relation is the local one: a group's query returns
	// exactly its papers, one page.
	hits := relation.ReportedHits{}
	for g, n := range size {
		hits["g"+strconv.Itoa(g)] = float64(n)
	}
	iface := relation.Interface{PageSize: c.MaxGroup, MaxResults: c.MaxGroup}
	slot := 1 / float64(c.QueriesPerUnit) // I: one request per slot

	trackers := [3]*relation.Tracker{}
	for m := range trackers {
		trackers[m] = relation.NewTracker(weights, 0)
	}
	naive1 := relation.NewNaive1(c.Papers)
	naive2 := relation.NewNaive2(tuples, c.Naive2MaxRate)
	var order []int // Greedy's remaining probes, in sending order
	var plan relation.Plan
	events := newEventQueue(rng, tuples)
	run := &synthRun{}
	for m := range run.curves {
		run.curves[m] = make([]float64, 0, c.Units)
	}
	slots := c.Units * c.QueriesPerUnit
	for s := 1; s <= slots; s++ {
		if s%c.QueriesPerUnit == 0 {
			if err := ctx.Err(); err != nil {
				return nil, err
			}
		}
		now := float64(s) * slot
		for events.Len() > 0 && events.next() <= now {
			i, at := events.pop(rng)
			for m := range trackers {
				if err := trackers[m].Update(i, at); err != nil {
					return nil, err
				}
			}
		}
		// Each method spends this slot's one request at its end.
		for _, i := range naive1.Next(1) {
			if _, err := trackers[0].Sync(i, now); err != nil {
				return nil, err
			}
		}
		for _, i := range naive2.Next(1) {
			if _, err := trackers[1].Sync(i, now); err != nil {
				return nil, err
			}
		}
		if len(order) == 0 {
			// RefreshLocal (Alg. 1): probes covering L, sent in the
			// ascending-a_i order of §4.3, one per slot.
			for i := range tuples {
				tuples[i].LastSync = 0 // λ and w decide; the synthetic groups are disjoint
			}
			p, err := relation.GreedyProbes(tuples, now, hits, relation.ProbeOptions{Interface: iface, Method: relation.AllPages, MaxKeywords: 1, Pool: c.Groups})
			if err != nil {
				return nil, err
			}
			plan = p
			order = relation.AscendingOrder(relation.GroupCosts(tuples, plan.Probes, slot))
			if run.plan.Probes == nil {
				run.plan = plan
			}
		}
		for _, i := range plan.Probes[order[0]].Tuples {
			if _, err := trackers[2].Sync(i, now); err != nil {
				return nil, err
			}
		}
		order = order[1:]
		if s%c.QueriesPerUnit == 0 {
			for m := range trackers {
				f, err := trackers[m].At(now)
				if err != nil {
					return nil, err
				}
				run.curves[m] = append(run.curves[m], f)
			}
			prog.Step()
		}
	}
	for m := range trackers {
		run.means[m] = trackers[m].Mean()
	}
	return run, nil
}

// eventQueue yields every paper's Poisson update times in time order.
type eventQueue struct {
	at    []float64 // next update time per paper
	rates []float64
	h     []int // heap of papers by at
}

func newEventQueue(rng *rand.Rand, tuples []relation.Tuple) *eventQueue {
	q := &eventQueue{at: make([]float64, len(tuples)), rates: make([]float64, len(tuples))}
	for i, t := range tuples {
		q.rates[i] = t.Rate
		if t.Rate > 0 {
			q.at[i] = rng.ExpFloat64() / t.Rate
			q.h = append(q.h, i)
		}
	}
	heap.Init(q)
	return q
}

func (q *eventQueue) Len() int           { return len(q.h) }
func (q *eventQueue) Less(i, j int) bool { return q.at[q.h[i]] < q.at[q.h[j]] }
func (q *eventQueue) Swap(i, j int)      { q.h[i], q.h[j] = q.h[j], q.h[i] }
func (q *eventQueue) Push(x any)         { q.h = append(q.h, x.(int)) }
func (q *eventQueue) Pop() any {
	x := q.h[len(q.h)-1]
	q.h = q.h[:len(q.h)-1]
	return x
}

func (q *eventQueue) next() float64 { return q.at[q.h[0]] }

// pop returns the earliest update and schedules that paper's next one.
func (q *eventQueue) pop(rng *rand.Rand) (int, float64) {
	i := q.h[0]
	at := q.at[i]
	q.at[i] = at + rng.ExpFloat64()/q.rates[i]
	heap.Fix(q, 0)
	return i, at
}

func (r *synthRun) String() string {
	return fmt.Sprintf("naive1 %.0f naive2 %.0f greedy %.0f", r.means[0], r.means[1], r.means[2])
}
