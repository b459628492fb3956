package ranksim

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"sort"
)

// runSpec is one simulation: a community under one ranking policy.
type runSpec struct {
	Community Community
	Policy    Policy
	// Surf is x of §5.9, the share of visits made by random surfing;
	// Teleport is its c, the probability a surfer jumps to a random page.
	Surf, Teleport float64
	// WarmupDays are simulated before measuring starts; MeasureDays are
	// measured.
	WarmupDays, MeasureDays int
	// Ghosts is the number of TBP probes (see ghost); 0 measures no TBP.
	Ghosts int
	// TBPThreshold is the awareness count at which a probe's popularity
	// exceeds 99 % of its quality (§5.4.2).
	TBPThreshold int
	// QPCSample caps the visits simulated per day beyond the monitored
	// ones; when v_u is larger, QPC is measured on this many visits a day.
	QPCSample int
	// CommunitySeed drives page ages and deaths, and is shared by every
	// policy run on the same community (common random numbers); VisitSeed
	// drives the visits.
	CommunitySeed, VisitSeed uint64

	// trace, when set, is called at the end of every day (tests).
	trace func(day int, s *sim)
}

// runResult is what one simulation measured.
type runResult struct {
	// QualitySum and Visits give QPC (eq. 5.2) = QualitySum / Visits over
	// the measurement window.
	QualitySum float64
	Visits     int64
	// TBPDone probes became popular within TBPExposure probe-days;
	// TBPSum is the sum of their times to become popular.
	TBPDone     int
	TBPExposure float64
	TBPSum      float64
	// ZeroShare is the mean share of pages with zero awareness, z/n.
	ZeroShare float64
	// Batches is QPC in each of qpcBatches equal parts of the
	// measurement window, for the standard error by batch means.
	Batches []float64
}

// qpcBatches is the number of batches QPC's standard error is estimated
// from; each spans several page lifetimes, so batches are close to
// independent.
const qpcBatches = 10

// se is the standard error of QPC by batch means.
func (r runResult) se() float64 {
	n := float64(len(r.Batches))
	if n < 2 {
		return math.NaN()
	}
	mean, ss := 0.0, 0.0
	for _, b := range r.Batches {
		mean += b
	}
	mean /= n
	for _, b := range r.Batches {
		ss += (b - mean) * (b - mean)
	}
	return math.Sqrt(ss / (n - 1) / n)
}

func (r runResult) qpc() float64 { return r.QualitySum / float64(r.Visits) }

// Kinds of result slot a visit lands on.
const (
	slotDet      = iota // a slot filled from L_d
	slotPromoted        // a slot filled from the shuffled pool L_p
	slotOther           // a surfing visit, or the ideal ranking
)

// slot says where a search visit landed, for the probes: key is the det
// index in L_d (selective) or the position in the full popularity order
// (nonrandomized, and uniform's hi); uniform's det slot is the
// (lo, key] range of full positions a probe could occupy; pool is the
// size of the promotion pool of a promoted slot.
type slot struct {
	kind    uint8
	key, lo int32
	pool    int32
}

// ghost is a TBP probe: a page of the measured quality that receives the
// visits it would get if it were in the community, without taking them
// from anyone. For each visit the simulator asks where the probe would sit
// in the result list (from its popularity and the day's ranking) and
// whether the visit would have landed on it. Probes never die before they
// become popular; once popular, the time is recorded and the probe starts
// over as a new page. Many probes give many TBP samples from one run
// without disturbing the community, which the one page of quality 0.4
// (born once every 1.5 years) could not.
type ghost struct {
	count int32 // aware monitored users
	born  int32 // day of birth
	// unborn is set when the probe becomes popular: its next incarnation
	// is born tomorrow and takes no visits through today's placement.
	unborn bool
}

type ghostKey struct {
	key int32
	id  int32
}

// sim is the state of one simulation. Time advances in days (§5.4.1: the
// search engine measures popularity at the end of each interval): every day
// the ranked list is rebuilt from yesterday's popularity, the day's visits
// are distributed over it (visits ∝ rank^(−3/2), eq. 5.5), and then pages
// retire and are replaced (§5.6.1).
type sim struct {
	spec runSpec
	n, m int
	q    []float64
	rng  *rand.Rand // visits
	rngG *rand.Rand // probes: kept apart so probes never change the community

	count []int32 // aware monitored users per page: m·A(p,t)
	birth []int32 // day the page was born
	dirty []int32 // pages whose count or incarnation changed since the snapshot
	isDir []bool

	aware    []int32   // pages with count > 0, most popular first
	awarePop []float64 // their popularity in units of 1/m: count·Q
	awareCum []float64 // running sum of awarePop (surfing only)
	zero     []int32   // pages with count = 0, oldest first
	zeroBorn []int32
	buf      []int32   // the other half of aware's double buffer
	bufPop   []float64 // and of awarePop's

	pos *alias // rank position of a search visit

	ghosts     []ghost
	ghostDet   []ghostKey // probes placed in the list, by key
	ghostPool  []int32    // probes in the selective pool
	ghostDone  int
	ghostSum   float64
	ghostsLive bool
}

// simulate runs spec day by day, the warm-up then the measurement window,
// and returns what the window measured.
func simulate(ctx context.Context, spec runSpec) (runResult, error) {
	if err := spec.Community.validate(); err != nil {
		return runResult{}, err
	}
	spec.Policy = spec.Policy.normalized()
	r := newSimRun(spec)
	for day := range spec.WarmupDays + spec.MeasureDays {
		if day%32 == 0 {
			if err := ctx.Err(); err != nil {
				return runResult{}, err
			}
		}
		r.day(day)
	}
	return r.result()
}

// simRun is one simulation in progress: the community's state, the daily
// rates, and what has been measured so far.
type simRun struct {
	s    *sim
	life *rand.Rand // page ages and deaths, from the community seed
	// pDeath is a page's probability of retiring in a day; vMon and vAll
	// are the monitored users' and all users' visits per day.
	pDeath, vMon, vAll float64
	useGhosts          bool // measure TBP with probes
	// zeroSum sums z/n over the measured days; batchQ and batchN are each
	// QPC batch's quality sum and visits.
	zeroSum float64
	batchQ  [qpcBatches]float64
	batchN  [qpcBatches]int64
}

// newSimRun sets up spec (validated, its policy normalized) at the start
// of the warm-up.
func newSimRun(spec runSpec) *simRun {
	c := spec.Community
	s := newSim(spec)
	life := rand.New(rand.NewPCG(spec.CommunitySeed, 0x6c696665))
	s.startAges(life)
	return &simRun{
		s:         s,
		life:      life,
		pDeath:    -math.Expm1(-1 / c.LifetimeDays),
		vMon:      c.MonitoredVisits(),
		vAll:      math.Round(c.VisitsPerDay),
		useGhosts: spec.Ghosts > 0 && spec.Surf == 0 && spec.Policy.Rule != Ideal,
	}
}

// newSim is spec's community with every page unaware and not yet aged.
func newSim(spec runSpec) *sim {
	c := spec.Community
	return &sim{
		spec:  spec,
		n:     c.Pages,
		m:     c.Monitored,
		q:     c.Qualities(),
		rng:   rand.New(rand.NewPCG(spec.VisitSeed, 0x7669736974)),
		rngG:  rand.New(rand.NewPCG(spec.VisitSeed, 0x67686f7374)),
		count: make([]int32, c.Pages),
		birth: make([]int32, c.Pages),
		isDir: make([]bool, c.Pages),
		pos:   newAlias(rankWeights(c.Pages)),
	}
}

// startAges starts in the steady state of ages (exponential, §5.6.1),
// everyone unaware, so every page is listed among the zero-awareness
// pages, oldest first; the warm-up brings awareness to its steady state.
func (s *sim) startAges(life *rand.Rand) {
	lifetime := s.spec.Community.LifetimeDays
	for p := range s.birth {
		s.birth[p] = -int32(life.ExpFloat64() * lifetime)
		s.zero = append(s.zero, int32(p))
	}
	slices.SortFunc(s.zero, func(a, b int32) int {
		if d := s.birth[a] - s.birth[b]; d != 0 {
			return int(d)
		}
		return int(a - b)
	})
	for _, p := range s.zero {
		s.zeroBorn = append(s.zeroBorn, s.birth[p])
	}
}

// day simulates one day: the ranking is rebuilt from yesterday's
// popularity, the probes are released (on the first measured day) and
// placed, the day's visits are made, and then pages retire.
func (r *simRun) day(day int) {
	s, spec := r.s, r.s.spec
	measuring := day >= spec.WarmupDays
	batch := 0
	if measuring {
		batch = (day - spec.WarmupDays) * qpcBatches / spec.MeasureDays
	}
	s.snapshot()
	if r.useGhosts && day == spec.WarmupDays {
		s.startGhosts(day)
	}
	if s.ghostsLive {
		s.placeGhosts()
	}
	r.visits(day, measuring, batch)
	if measuring {
		r.zeroSum += float64(len(s.zero)) / float64(s.n)
	}
	s.retire(r.life, r.pDeath, day)
	if spec.trace != nil {
		spec.trace(day, s)
	}
}

// visits makes the day's visits. The first ones, v = v_u·m/u on average
// (its fraction drawn as a coin), are the monitored users': they spread
// awareness and reach the probes. The rest bring the day to v_u visits
// (QPCSample if fewer) and only measure QPC. When measuring, every visit
// adds to QPC batch batch.
func (r *simRun) visits(day int, measuring bool, batch int) {
	s := r.s
	nMon := int(r.vMon)
	if s.rng.Float64() < r.vMon-float64(nMon) {
		nMon++
	}
	nAll := max(nMon, int(min(r.vAll, float64(s.spec.QPCSample))))
	for i := range nAll {
		page, sl := s.visit()
		if measuring {
			r.batchQ[batch] += s.q[page]
			r.batchN[batch]++
		}
		if i < nMon {
			if s.rng.IntN(s.m) >= int(s.count[page]) {
				s.count[page]++
				s.markDirty(page)
			}
			if s.ghostsLive && sl.kind != slotOther {
				s.ghostVisit(sl, day)
			}
		}
	}
}

// result is QPC, its batches, the zero-awareness share and the probes'
// TBP over the measurement window.
func (r *simRun) result() (runResult, error) {
	s := r.s
	var res runResult
	res.ZeroShare = r.zeroSum / float64(s.spec.MeasureDays)
	for b := range qpcBatches {
		res.QualitySum += r.batchQ[b]
		res.Visits += r.batchN[b]
		if r.batchN[b] > 0 {
			res.Batches = append(res.Batches, r.batchQ[b]/float64(r.batchN[b]))
		}
	}
	if s.ghostsLive {
		res.TBPDone, res.TBPSum = s.ghostDone, s.ghostSum
		res.TBPExposure = float64(len(s.ghosts)) * float64(s.spec.MeasureDays)
	}
	if res.Visits == 0 {
		return runResult{}, fmt.Errorf("ranksim: no visits measured")
	}
	return res, nil
}

// startGhosts releases the probes, all born on day.
func (s *sim) startGhosts(day int) {
	s.ghosts = make([]ghost, s.spec.Ghosts)
	for i := range s.ghosts {
		s.ghosts[i].born = int32(day)
	}
	s.ghostsLive = true
}

// retire retires each page independently with probability pDeath
// (1 − e^(−λ) per day) and replaces it by a new page of equal quality and
// zero awareness, born tomorrow.
func (s *sim) retire(life *rand.Rand, pDeath float64, day int) {
	for p := geometric(life, pDeath, s.n); p < s.n; p += 1 + geometric(life, pDeath, s.n) {
		s.count[p] = 0
		s.birth[p] = int32(day + 1)
		s.markDirty(int32(p))
	}
}

func (s *sim) markDirty(p int32) {
	if !s.isDir[p] {
		s.isDir[p] = true
		s.dirty = append(s.dirty, p)
	}
}

// before orders the aware list: popularity count·Q descending (m cancels),
// then older first, then by index.
func (s *sim) before(a, b int32) bool {
	pa, pb := float64(s.count[a])*s.q[a], float64(s.count[b])*s.q[b]
	if pa != pb {
		return pa > pb
	}
	if s.birth[a] != s.birth[b] {
		return s.birth[a] < s.birth[b]
	}
	return a < b
}

// snapshot rebuilds the day's ranking from the pages that changed since
// the last one: O(n + changed·log changed) instead of a full sort.
func (s *sim) snapshot() {
	if len(s.dirty) == 0 {
		return
	}
	// Zero-awareness pages: drop the changed ones, append the newborn ones
	// (all born on the same day) at the young end.
	j := 0
	for i, p := range s.zero {
		if !s.isDir[p] {
			s.zero[j], s.zeroBorn[j] = p, s.zeroBorn[i]
			j++
		}
	}
	s.zero, s.zeroBorn = s.zero[:j], s.zeroBorn[:j]
	slices.Sort(s.dirty)
	var moved []int32
	for _, p := range s.dirty {
		if s.count[p] == 0 {
			s.zero = append(s.zero, p)
			s.zeroBorn = append(s.zeroBorn, s.birth[p])
		} else {
			moved = append(moved, p)
		}
	}
	// Aware pages: the unchanged ones keep their order and popularity;
	// merge in the changed ones.
	j = 0
	for i, p := range s.aware {
		if !s.isDir[p] {
			s.aware[j], s.awarePop[j] = p, s.awarePop[i]
			j++
		}
	}
	keep, keepPop := s.aware[:j], s.awarePop[:j]
	movedPop := make([]float64, len(moved))
	slices.SortFunc(moved, func(a, b int32) int {
		if s.before(a, b) {
			return -1
		}
		return 1
	})
	for i, p := range moved {
		movedPop[i] = float64(s.count[p]) * s.q[p]
	}
	merged, mergedPop := s.buf[:0], s.bufPop[:0]
	a, b := 0, 0
	for a < len(keep) || b < len(moved) {
		takeKeep := b == len(moved)
		if !takeKeep && a < len(keep) {
			if kp, mp := keepPop[a], movedPop[b]; kp != mp {
				takeKeep = kp > mp
			} else {
				takeKeep = s.before(keep[a], moved[b])
			}
		}
		if takeKeep {
			merged, mergedPop = append(merged, keep[a]), append(mergedPop, keepPop[a])
			a++
		} else {
			merged, mergedPop = append(merged, moved[b]), append(mergedPop, movedPop[b])
			b++
		}
	}
	s.buf, s.aware = s.aware[:0], merged
	s.bufPop, s.awarePop = s.awarePop[:0], mergedPop
	if s.spec.Surf > 0 {
		s.awareCum = s.awareCum[:0]
		sum := 0.0
		for _, x := range s.awarePop {
			sum += x
			s.awareCum = append(s.awareCum, sum)
		}
	}
	for _, p := range s.dirty {
		s.isDir[p] = false
	}
	s.dirty = s.dirty[:0]
}

// at returns the page at a 0-based position of the full popularity order:
// the aware pages, then the zero-awareness pages oldest first.
func (s *sim) at(pos int) int32 {
	if pos < len(s.aware) {
		return s.aware[pos]
	}
	return s.zero[pos-len(s.aware)]
}

// visit draws one visit: a random surfing visit with probability x (§5.9),
// otherwise a search visit to a rank position drawn from eq. 5.5 and
// resolved through the day's merged result list (§5.5).
func (s *sim) visit() (int32, slot) {
	if s.spec.Surf > 0 && s.rng.Float64() < s.spec.Surf {
		return s.surf(), slot{kind: slotOther}
	}
	pos := s.pos.sample(s.rng)
	switch p := s.spec.Policy; p.Rule {
	case Ideal:
		return int32(pos), slot{kind: slotOther} // pages are indexed best first
	case Selective:
		return s.selective(pos, p.K, p.R)
	case Uniform:
		return s.uniform(pos, p.K, p.R)
	default:
		return s.at(pos), slot{kind: slotDet, key: int32(pos)}
	}
}

// surf is a random surfer's visit (§5.9): with probability 1 − c it
// follows a link, landing on a page with probability proportional to its
// popularity; otherwise it jumps to a page chosen uniformly.
func (s *sim) surf() int32 {
	if s.rng.Float64() >= s.spec.Teleport && len(s.awareCum) > 0 {
		u := s.rng.Float64() * s.awareCum[len(s.awareCum)-1]
		i := sort.SearchFloat64s(s.awareCum, u)
		if i < len(s.aware) {
			return s.aware[i]
		}
	}
	return int32(s.rng.IntN(s.n))
}

// selective resolves position pos of a result list merged under the
// selective rule: L_d is the aware pages in popularity order, L_p the
// zero-awareness pages shuffled. Rather than building the list, it draws
// what the merge would have put at pos: after the k−1 protected entries,
// offset j has had Binomial(j, r) coins for L_p before it (as long as
// neither list ran out), so it holds L_d entry j − H, unless its own coin
// promotes it. A promoted entry is a uniformly random pool page (its
// position in a fresh shuffle).
func (s *sim) selective(pos, k int, r float64) (int32, slot) {
	nd, np := len(s.aware), len(s.zero)
	prot := min(k-1, nd)
	if pos < prot {
		return s.aware[pos], slot{kind: slotDet, key: int32(pos)}
	}
	t, promoted := s.merged(pos, prot, nd, np, r)
	if promoted {
		return s.zero[s.rng.IntN(np)], slot{kind: slotPromoted, pool: int32(np)}
	}
	return s.aware[t], slot{kind: slotDet, key: int32(t)}
}

// merged draws what the merge of L_d (nd pages, the first prot
// protected) and L_p (np pages) puts at position pos ≥ prot, as
// selective describes: a promoted pool page, or entry t of L_d.
func (s *sim) merged(pos, prot, nd, np int, r float64) (t int, promoted bool) {
	j, ndRem := pos-prot, nd-prot
	switch {
	case np == 0:
		return prot + j, false
	case ndRem == 0:
		return 0, true
	}
	h := binomial(s.rng, j, r)
	switch {
	case h >= np: // L_p ran out before pos
		return prot + j - np, false
	case j-h >= ndRem: // L_d ran out before pos
		return 0, true
	case s.rng.Float64() < r:
		return 0, true
	}
	return prot + j - h, false
}

// uniform resolves position pos under the uniform rule (§5.5 rule a):
// every page joins this query's pool with probability r, so the pool size
// is Binomial(n, r) and L_d is the full popularity order thinned by 1 − r.
// The slot's source is drawn as in selective; a det slot's entry t of L_d
// is the (t+1)-th non-pool page of the full order, found by drawing how
// many pool pages the order skips before it; a promoted slot holds a
// uniformly random page.
func (s *sim) uniform(pos, k int, r float64) (int32, slot) {
	n := s.n
	if r >= 1 {
		return int32(s.rng.IntN(n)), slot{kind: slotPromoted, pool: int32(n)}
	}
	np := binomial(s.rng, n, r)
	nd := n - np
	prot := min(k-1, nd)
	promoted, t := false, pos
	if pos >= prot {
		t, promoted = s.merged(pos, prot, nd, np, r)
	}
	if promoted {
		return int32(s.rng.IntN(n)), slot{kind: slotPromoted, pool: int32(np)}
	}
	skipped := negBinomial(s.rng, t, 1-r, n)
	prev := t - 1 + skipped
	full := prev + 1 + geometric(s.rng, 1-r, n)
	if full >= n {
		full = n - 1
		prev = min(prev, full-1)
	}
	return s.at(full), slot{kind: slotDet, key: int32(full), lo: int32(prev)}
}

// placeGhosts puts each probe where it would sit in today's list: an aware
// probe among the aware pages by popularity (ties go to the real pages); a
// zero-awareness probe in the selective pool, or (nonrandomized, uniform)
// among the zero-awareness pages by age.
func (s *sim) placeGhosts() {
	s.ghostDet, s.ghostPool = s.ghostDet[:0], s.ghostPool[:0]
	qg := s.spec.Community.QualityMax
	rule := s.spec.Policy.Rule
	for i := range s.ghosts {
		s.ghosts[i].unborn = false
		g := s.ghosts[i]
		var key int
		switch {
		case g.count > 0:
			x := float64(g.count) * qg
			key = sort.Search(len(s.awarePop), func(i int) bool { return s.awarePop[i] < x })
		case rule == Selective:
			s.ghostPool = append(s.ghostPool, int32(i))
			continue
		default:
			key = len(s.aware) + sort.Search(len(s.zeroBorn), func(i int) bool { return s.zeroBorn[i] > g.born })
		}
		s.ghostDet = append(s.ghostDet, ghostKey{key: int32(key), id: int32(i)})
	}
	slices.SortFunc(s.ghostDet, func(a, b ghostKey) int {
		if a.key != b.key {
			return int(a.key - b.key)
		}
		return int(a.id - b.id)
	})
}

// ghostVisit hands a monitored search visit to every probe it would have
// reached in the probe's own world (the community plus that one probe).
func (s *sim) ghostVisit(sl slot, day int) {
	rule, r := s.spec.Policy.Rule, s.spec.Policy.R
	switch sl.kind {
	case slotDet:
		lo, hi := sl.key, sl.key // probes with key in [lo, hi]
		if rule == Uniform {
			lo = sl.lo + 1
		}
		i := sort.Search(len(s.ghostDet), func(i int) bool { return s.ghostDet[i].key >= lo })
		for ; i < len(s.ghostDet) && s.ghostDet[i].key <= hi; i++ {
			if rule == Uniform && s.rngG.Float64() < r {
				continue // the probe is in this query's pool, not in L_d
			}
			s.ghostHit(s.ghostDet[i].id, day)
		}
	case slotPromoted:
		// Each pooled probe is the promoted page with probability
		// 1/(pool+1); under the uniform rule a probe is pooled with
		// probability r.
		p := 1 / float64(sl.pool+1)
		cands := s.ghostPool
		if rule == Uniform {
			p *= r
			for i := geometric(s.rngG, p, len(s.ghosts)); i < len(s.ghosts); i += 1 + geometric(s.rngG, p, len(s.ghosts)) {
				s.ghostHit(int32(i), day)
			}
			return
		}
		for i := geometric(s.rngG, p, len(cands)); i < len(cands); i += 1 + geometric(s.rngG, p, len(cands)) {
			s.ghostHit(cands[i], day)
		}
	}
}

func (s *sim) ghostHit(id int32, day int) {
	g := &s.ghosts[id]
	if g.unborn || s.rngG.IntN(s.m) < int(g.count) {
		return // a user who already knows the page
	}
	g.count++
	if int(g.count) >= s.spec.TBPThreshold {
		s.ghostDone++
		s.ghostSum += float64(day - int(g.born) + 1)
		g.count, g.born, g.unborn = 0, int32(day+1), true
	}
}
