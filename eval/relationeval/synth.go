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
	sim := newSynthSim(c, seed)
	slots := c.Units * c.QueriesPerUnit
	for s := 1; s <= slots; s++ {
		unitEnd := s%c.QueriesPerUnit == 0
		if unitEnd {
			if err := ctx.Err(); err != nil {
				return nil, err
			}
		}
		now := float64(s) * sim.slot
		if err := sim.slotAt(now); err != nil {
			return nil, err
		}
		if unitEnd {
			if err := sim.sample(now); err != nil {
				return nil, err
			}
			prog.Step()
		}
	}
	for m := range sim.trackers {
		sim.run.means[m] = sim.trackers[m].Mean()
	}
	return sim.run, nil
}

// synthSim is one seed's simulation state: the papers, their update
// events, and each method's scheduler and freshness tracker (index 0
// Naive 1, 1 Naive 2, 2 Greedy).
type synthSim struct {
	c        SynthConfig
	rng      *rand.Rand
	tuples   []relation.Tuple
	hits     relation.ReportedHits
	iface    relation.Interface
	slot     float64 // I: one request per slot
	trackers [3]*relation.Tracker
	naive1   *relation.IDRoundRobin
	naive2   *relation.IDRoundRobin
	order    []int // Greedy's remaining probes, in sending order
	plan     relation.Plan
	events   *eventQueue
	run      *synthRun
}

// newSynthSim draws seed's papers and their first update times, in that
// order from one stream, and sets up the three methods.
func newSynthSim(c SynthConfig, seed uint64) *synthSim {
	rng := rand.New(rand.NewPCG(seed, 0xf16_2))
	tuples, weights, size := synthPapers(rng, c)
	// The server relation is the local one: a group's query returns
	// exactly its papers, one page.
	hits := relation.ReportedHits{}
	for g, n := range size {
		hits["g"+strconv.Itoa(g)] = float64(n)
	}
	sim := &synthSim{
		c:      c,
		rng:    rng,
		tuples: tuples,
		hits:   hits,
		iface:  relation.Interface{PageSize: c.MaxGroup, MaxResults: c.MaxGroup},
		slot:   1 / float64(c.QueriesPerUnit),
		naive1: relation.NewNaive1(c.Papers),
		naive2: relation.NewNaive2(tuples, c.Naive2MaxRate),
		run:    &synthRun{},
	}
	for m := range sim.trackers {
		sim.trackers[m] = relation.NewTracker(weights, 0)
	}
	sim.events = newEventQueue(rng, tuples)
	for m := range sim.run.curves {
		sim.run.curves[m] = make([]float64, 0, c.Units)
	}
	return sim
}

// synthPapers draws each paper's initial citations and its group, and
// returns the papers, their weights and each group's size.
func synthPapers(rng *rand.Rand, c SynthConfig) ([]relation.Tuple, []float64, []int) {
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
	return tuples, weights, size
}

// slotAt plays the slot ending at now: the updates up to now reach every
// method's tracker, then each method spends the slot's one request at its
// end.
func (sim *synthSim) slotAt(now float64) error {
	for sim.events.Len() > 0 && sim.events.next() <= now {
		i, at := sim.events.pop(sim.rng)
		for m := range sim.trackers {
			if err := sim.trackers[m].Update(i, at); err != nil {
				return err
			}
		}
	}
	for _, i := range sim.naive1.Next(1) {
		if _, err := sim.trackers[0].Sync(i, now); err != nil {
			return err
		}
	}
	for _, i := range sim.naive2.Next(1) {
		if _, err := sim.trackers[1].Sync(i, now); err != nil {
			return err
		}
	}
	return sim.greedy(now)
}

// greedy sends Greedy's next probe at now, planning a new loop of probes
// when the last one is spent.
func (sim *synthSim) greedy(now float64) error {
	if len(sim.order) == 0 {
		if err := sim.replan(now); err != nil {
			return err
		}
	}
	for _, i := range sim.plan.Probes[sim.order[0]].Tuples {
		if _, err := sim.trackers[2].Sync(i, now); err != nil {
			return err
		}
	}
	sim.order = sim.order[1:]
	return nil
}

// replan is RefreshLocal (Alg. 1): probes covering L, sent in the
// ascending-a_i order of §4.3, one per slot. The run keeps the first
// plan for the report.
func (sim *synthSim) replan(now float64) error {
	for i := range sim.tuples {
		sim.tuples[i].LastSync = 0 // λ and w decide; the synthetic groups are disjoint
	}
	p, err := relation.GreedyProbes(sim.tuples, now, sim.hits, relation.ProbeOptions{Interface: sim.iface, Method: relation.AllPages, MaxKeywords: 1, Pool: sim.c.Groups})
	if err != nil {
		return err
	}
	sim.plan = p
	sim.order = relation.AscendingOrder(relation.GroupCosts(sim.tuples, sim.plan.Probes, sim.slot))
	if sim.run.plan.Probes == nil {
		sim.run.plan = sim.plan
	}
	return nil
}

// sample appends each method's F(L;now) to its curve.
func (sim *synthSim) sample(now float64) error {
	for m := range sim.trackers {
		f, err := sim.trackers[m].At(now)
		if err != nil {
			return err
		}
		sim.run.curves[m] = append(sim.run.curves[m], f)
	}
	return nil
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
