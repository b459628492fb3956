package relation

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"maps"
	"math"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/deltaq/deltaq/crawler"
	"github.com/deltaq/deltaq/internal/words"
)

// SyncOptions configure one refresh of a relation (one pass of Alg. 1).
type SyncOptions struct {
	Budget      int // requests this sync may send
	Method      Method
	MaxKeywords int
	Pool        int
	// Alpha is the staleness target of §4.4 for the reported interval I.
	Alpha float64
	// RatePrior (updates per Unit) and RatePriorWeight (Units of
	// observation it weighs) shape the learned λ̂.
	RatePrior       float64
	RatePriorWeight float64
	// Unit is the time unit of λ and I.
	Unit   time.Duration
	DryRun bool
}

// Validate names the option, the value and the limit.
func (o SyncOptions) Validate() error {
	var errs []error
	if o.Budget < 1 {
		errs = append(errs, fmt.Errorf("--budget = %d: must be >= 1 request", o.Budget))
	}
	if o.Unit <= 0 {
		errs = append(errs, fmt.Errorf("relation.unit = %v: must be > 0", o.Unit))
	}
	if !(o.Alpha > 0) {
		errs = append(errs, fmt.Errorf("relation.alpha = %v: must be > 0", o.Alpha))
	}
	if !(o.RatePrior >= 0 && o.RatePrior <= MaxRatePrior) {
		errs = append(errs, fmt.Errorf("relation.rate_prior = %v: must be in [0, %g]", o.RatePrior, MaxRatePrior))
	}
	if o.RatePriorWeight < 0 {
		errs = append(errs, fmt.Errorf("relation.rate_prior_weight = %v: must be >= 0", o.RatePriorWeight))
	}
	return errors.Join(errs...)
}

// ProbeRun is one planned probe and what sending it did.
type ProbeRun struct {
	Probe
	A        float64 // a_i of §4.3
	Sent     int     // requests sent
	Reached  int     // records of the relation its results held
	Reported int     // the total the source reported; -1 if none
	// NoTotal says why Reported is -1 although the source has a --total
	// selector (ResultPage.NoTotal): the probe was sent and read all the
	// same, its |R_S(q)| left to the local estimate.
	NoTotal error
}

// SyncReport is what one sync planned and did.
type SyncReport struct {
	Name     string
	DryRun   bool
	Rows     int
	Plan     Plan
	Probes   []ProbeRun // in sending order (ascending a_i)
	Interval time.Duration
	// IntervalNote explains a missing interval.
	IntervalNote string
	Known        int // queries whose server coverage the source has reported
	Requests     int
	Reached      int // records read (by search or by ID)
	Changed      int // records whose fields changed
	// IDFetches are the fetches by ID the source answered: a record read
	// or answered missing.
	IDFetches int
	Missing   int
	// FailedFetches are the fetches by ID that got no answer; Failures
	// names the first MaxReportedFailures of them.
	FailedFetches int
	Failures      []FetchFailure
	// NoTotal counts the probes whose results lacked the --total count
	// (ProbeRun.NoTotal says why).
	NoTotal int
}

// FetchFailure is one fetch by ID that got no answer.
type FetchFailure struct {
	ID  string
	Err error
}

// MaxReportedFailures bounds SyncReport.Failures: the rows keep every
// record's last fetch error, the report only needs to show what went
// wrong.
const MaxReportedFailures = 10

// maxConsecutiveFailures is how many fetches by ID in a row may fail with
// ErrUnavailable before a sync stops: past it the source itself looks
// down, and the rest of the budget would be spent on failures. Failures of
// one record (a PDF, a body over relation.max_bytes, a 403) do not count:
// the source answered.
const maxConsecutiveFailures = 3

// estimate prefers a count the source reported for the query, else the
// local relation as a sample scaled by c (§4.1).
type estimate struct {
	known  ReportedHits
	sample *ScaledSample
}

func (e estimate) Hits(kws []string) (float64, bool) {
	if n, ok := e.known.Hits(kws); ok {
		return n, true
	}
	return e.sample.Hits(kws)
}

// Sync refreshes the relation name through cl: GreedyProbes under the
// request budget, sent in the ascending-a_i order, then ID fetches for
// the records no probe reached, never-read records first. Each request's
// results are committed on their own, so an error part-way (a source
// that times out, answers garbage or keeps answering 429) keeps every
// record already stored and everything read before it.
func Sync(ctx context.Context, st *Store, cl *Client, name string, now time.Time, o SyncOptions) (*SyncReport, error) {
	if err := o.Validate(); err != nil {
		return nil, err
	}
	def, err := st.Definition(name)
	if err != nil {
		return nil, err
	}
	rows, err := st.Rows(ctx, name)
	if err != nil {
		return nil, err
	}
	known, err := st.reportedHits(ctx, name)
	if err != nil {
		return nil, err
	}
	rep := &SyncReport{Name: name, DryRun: o.DryRun, Rows: len(rows)}
	unit := func(t time.Time) float64 { return float64(t.Sub(def.Created)) / float64(o.Unit) }
	tuples := make([]Tuple, len(rows))
	index := make(map[string]int, len(rows))
	docs := make([][]string, len(rows))
	for i, r := range rows {
		index[r.ID] = i
		last := r.LastSync
		if last.IsZero() {
			last = def.Created
		}
		tuples[i] = Tuple{ID: r.ID, Keywords: rowKeywords(def, r), Weight: rowWeight(def, r), Rate: r.Rate.Rate(o.RatePrior, o.RatePriorWeight), LastSync: unit(last)}
		docs[i] = tuples[i].Keywords
	}
	// Server coverage: the count the source reported the last time the
	// query was sent, else |R_L(q)|, the local relation as a sample with
	// c = 1, a lower bound. The bound is optimistic on purpose: a query
	// the source answers with more hits than guessed costs one request,
	// and its reported count steers every later plan. One global c
	// calibrated from the reports would be dominated by the broad queries
	// and rule out the narrow ones.
	sample := NewScaledSample(docs, 1)
	rep.Known = len(known)
	t := unit(now)
	plan, err := GreedyProbes(tuples, t, estimate{known, sample}, ProbeOptions{
		Interface: cl.Interface(), Method: o.Method, Cost: PerRequest, MaxKeywords: o.MaxKeywords, Pool: o.Pool, MaxRequests: o.Budget})
	if err != nil {
		return nil, err
	}
	rep.Plan = plan
	interval := 1.0
	if len(plan.Probes) < 2 {
		rep.IntervalNote = fmt.Sprintf("%d probes: a loop ends with every group just read, so E[F(L;kI)] = 0 for any I (§4.4 sets no bound)", len(plan.Probes))
	} else if I, err := SearchInterval(FrequencyG(tuples, plan.Probes), o.Alpha, 1, 0.01); err == nil {
		interval = I
		rep.Interval, rep.IntervalNote = intervalDuration(I, o.Unit)
	} else {
		rep.IntervalNote = err.Error()
	}
	a := GroupCosts(tuples, plan.Probes, interval)
	for _, i := range AscendingOrder(a) {
		rep.Probes = append(rep.Probes, ProbeRun{Probe: plan.Probes[i], A: a[i], Reported: -1})
	}
	if o.DryRun {
		return rep, nil
	}

	s := &syncer{st: st, def: def, rows: rows, index: index, rep: rep, o: o, unit: unit}
	reached := make([]bool, len(rows))
	if err := s.probe(ctx, cl, reached, now); err != nil {
		return rep, err
	}
	if def.Source.Item == "" {
		return rep, nil
	}
	return rep, s.fetchByID(ctx, cl, idFetchOrder(rows, tuples, reached, t), now)
}

// probe sends the planned probes in their order, each page while the
// budget lasts and its group has a record not yet reached, and commits
// each page's records as it comes; reached marks the rows read.
func (s *syncer) probe(ctx context.Context, cl *Client, reached []bool, now time.Time) error {
	for pi := range s.rep.Probes {
		pr := &s.rep.Probes[pi]
		pages := pr.Requests
		if s.o.Method == FirstPage {
			pages = 1
		}
		for page := 1; page <= pages && s.rep.Requests < s.o.Budget && !GroupRead(pr.Tuples, reached); page++ {
			res, err := cl.Search(ctx, pr.Keywords, page)
			s.rep.Requests += res.Requests
			pr.Sent += res.Requests
			if err != nil {
				return fmt.Errorf("relation: sync %s: probe %q page %d: %w", s.def.Name, pr.Query(), page, err)
			}
			if res.NoTotal != nil && pr.Reported < 0 && pr.NoTotal == nil {
				// The count only steers later plans (§4.1 estimates it
				// when missing): the probe's hits are read all the same.
				pr.NoTotal = res.NoTotal
				s.rep.NoTotal++
			}
			var hits map[string]float64
			if res.Total >= 0 {
				pr.Reported = res.Total
				hits = map[string]float64{QueryKey(pr.Keywords): float64(res.Total)}
			}
			var recs []Record
			for _, h := range res.Hits {
				if i, ok := s.index[h.ID]; ok && !reached[i] {
					reached[i] = true
					pr.Reached++
					recs = append(recs, withUnshown(h, s.rows[i]))
				}
			}
			if err := s.apply(ctx, recs, nil, hits, now); err != nil {
				return err
			}
			if len(res.Hits) < cl.Interface().PageSize {
				break
			}
		}
	}
	return nil
}

// withUnshown is a search hit with the fields it does not show taken
// from the stored row. A hit is a partial view of its record (a field
// only the item page carries, a header:): a field it lacks is not known
// to be removed, where one it shows empty is. An item page shows the
// whole record, so what it lacks is gone.
func withUnshown(hit Record, r Row) Record {
	var fields map[string]string
	for k, v := range r.Fields {
		if _, ok := hit.Fields[k]; ok {
			continue
		}
		if fields == nil {
			fields = make(map[string]string, len(r.Fields))
			maps.Copy(fields, hit.Fields)
		}
		fields[k] = v
	}
	if fields != nil {
		hit.Fields = fields
	}
	return hit
}

// idFetchOrder is the rows no probe reached, in the order they are
// fetched by ID: never-read records first, then the largest w·F̂ at t;
// the missing after them, and last, the oldest failure first, the records
// whose last fetch failed, so that one record the source cannot answer
// does not take every sync's first fetch.
func idFetchOrder(rows []Row, tuples []Tuple, reached []bool, t float64) []int {
	var rest []int
	for i := range rows {
		if !reached[i] {
			rest = append(rest, i)
		}
	}
	slices.SortStableFunc(rest, func(x, y int) int {
		if fx, fy := rows[x].FetchError != "", rows[y].FetchError != ""; fx != fy {
			if fy {
				return -1
			}
			return 1
		} else if fx {
			return rows[x].FetchErrorAt.Compare(rows[y].FetchErrorAt)
		}
		if mx, my := rows[x].Missing, rows[y].Missing; mx != my {
			if my {
				return -1
			}
			return 1
		}
		if nx, ny := rows[x].Version == "", rows[y].Version == ""; nx != ny {
			if nx {
				return -1
			}
			return 1
		}
		return cmp.Compare(tuples[y].Priority(t), tuples[x].Priority(t))
	})
	return rest
}

// fetchByID fetches the rows of order by ID while the budget lasts and
// commits each; it stops at a refusal of every request (throttling, the
// address guard, ctx) and when maxConsecutiveFailures fetches in a row
// found the source unavailable.
func (s *syncer) fetchByID(ctx context.Context, cl *Client, order []int, now time.Time) error {
	failedInRow := 0
	for _, i := range order {
		if s.rep.Requests >= s.o.Budget {
			break
		}
		id := s.rows[i].ID
		rec, n, err := cl.Item(ctx, id)
		s.rep.Requests += n
		var recs []Record
		var missing []string
		switch {
		case err == nil:
			recs = []Record{rec}
		case errors.Is(err, ErrNotFound):
			missing = []string{id}
		case ctx.Err() != nil || errors.Is(err, ErrThrottled) || errors.Is(err, crawler.ErrRefusedAddress):
			// The source (or the address guard, or the caller) refuses
			// every request, not this record.
			return fmt.Errorf("relation: sync %s: fetch %s by ID: %w", s.def.Name, id, err)
		default:
			s.rep.FailedFetches++
			if len(s.rep.Failures) < MaxReportedFailures {
				s.rep.Failures = append(s.rep.Failures, FetchFailure{ID: id, Err: err})
			}
			if err := s.fail(ctx, id, err, now); err != nil {
				return err
			}
			switch {
			case errors.Is(err, ErrUnavailable):
				failedInRow++
			case n > 0:
				// The source answered, if badly for this record: it is
				// not down. A failure that sent nothing (an ID that
				// makes no URL, a path robots.txt disallows) says
				// nothing of the source either way.
				failedInRow = 0
			}
			if failedInRow == maxConsecutiveFailures {
				return fmt.Errorf("relation: sync %s: %d fetches by ID failed in a row, the source looks down; the last, %s: %w", s.def.Name, failedInRow, id, err)
			}
			continue
		}
		failedInRow = 0
		s.rep.IDFetches++
		if err := s.apply(ctx, recs, missing, nil, now); err != nil {
			return err
		}
	}
	return nil
}

// intervalDuration is I units as a duration, or, when that exceeds what a
// duration holds (about 292 years; a conversion past it wraps around),
// zero and a note saying so.
func intervalDuration(I float64, unit time.Duration) (time.Duration, string) {
	if d := I * float64(unit); d < math.MaxInt64 {
		return time.Duration(d), ""
	}
	return 0, fmt.Sprintf("I = %.3g × %v exceeds the longest duration, about 292 years: the records change too seldom for any interval to matter", I, unit)
}

// GroupRead reports whether every tuple of a probe's group has been read
// this round; Method 1 then stops paging, the rest of the results holding
// nothing the probe was sent for.
func GroupRead(group []int, reached []bool) bool {
	for _, i := range group {
		if !reached[i] {
			return false
		}
	}
	return true
}

// syncer applies what a sync reads to the stored rows.
type syncer struct {
	st    *Store
	def   Definition
	rows  []Row
	index map[string]int
	rep   *SyncReport
	o     SyncOptions
	unit  func(time.Time) float64
}

// apply updates the rows read (and marks missing ones) and commits them
// in one batch.
func (s *syncer) apply(ctx context.Context, recs []Record, missing []string, hits map[string]float64, at time.Time) error {
	obs := observed{hits: hits, at: at}
	counted := strings.HasPrefix(s.def.Dissimilarity, "abs:")
	numeric := strings.TrimPrefix(s.def.Dissimilarity, "abs:")
	for _, rec := range recs {
		r := s.rows[s.index[rec.ID]]
		var changes []FieldChange
		if r.Version != "" {
			changes = diffFields(r.Fields, rec.Fields)
			delta := 0.0
			if counted {
				delta = numericDelta(r.Fields[numeric], rec.Fields[numeric])
			}
			elapsed := s.unit(at) - s.unit(r.LastSync)
			r.Rate.Observe(elapsed, len(changes) > 0, delta, counted)
		} else if r.Missing {
			changes = []FieldChange{{Field: "(record)", Before: "missing", After: "present"}}
		}
		if len(changes) > 0 {
			s.rep.Changed++
		}
		r.Fields, r.Version, r.LastSync, r.Missing = rec.Fields, rec.Version(), at, false
		r.FetchError, r.FetchErrorAt = "", time.Time{}
		s.rows[s.index[rec.ID]] = r
		obs.rows = append(obs.rows, r)
		obs.changes = append(obs.changes, changes)
		s.rep.Reached++
	}
	for _, id := range missing {
		r := s.rows[s.index[id]]
		var changes []FieldChange
		if !r.Missing && r.Version != "" {
			changes = []FieldChange{{Field: "(record)", Before: "present", After: "missing"}}
			s.rep.Changed++
		}
		r.Missing, r.LastSync = true, at
		r.FetchError, r.FetchErrorAt = "", time.Time{}
		s.rows[s.index[id]] = r
		obs.rows = append(obs.rows, r)
		obs.changes = append(obs.changes, changes)
		s.rep.Missing++
	}
	if len(obs.rows) == 0 && len(hits) == 0 {
		return nil
	}
	return s.st.commit(ctx, s.def.Name, obs)
}

// fail records on the row of id that its fetch by ID got no answer, so
// that the next sync fetches it after the others.
func (s *syncer) fail(ctx context.Context, id string, err error, at time.Time) error {
	r := s.rows[s.index[id]]
	r.FetchError, r.FetchErrorAt = err.Error(), at
	s.rows[s.index[id]] = r
	return s.st.commit(ctx, s.def.Name, observed{rows: []Row{r}, changes: [][]FieldChange{nil}, at: at})
}

// numericDelta is |after − before| when both parse as finite numbers and
// so does the difference, else 0: "NaN" or "Inf" from the source is no
// count of updates, and would make the rate, which the row stores, one
// JSON cannot hold.
func numericDelta(before, after string) float64 {
	b, err1 := strconv.ParseFloat(strings.TrimSpace(before), 64)
	a, err2 := strconv.ParseFloat(strings.TrimSpace(after), 64)
	d := math.Abs(a - b)
	if err1 != nil || err2 != nil || math.IsNaN(d) || math.IsInf(d, 0) {
		return 0
	}
	return d
}

// rowKeywords are the words of the relation's keyword fields.
func rowKeywords(def Definition, r Row) []string {
	var text []string
	for _, f := range def.Source.Keywords {
		text = append(text, r.Fields[f])
	}
	return words.Distinct(strings.Join(text, " "))
}

// rowWeight is w(r) as the definition says.
func rowWeight(def Definition, r Row) float64 {
	switch {
	case def.Weight == "column":
		return r.Weight
	case strings.HasPrefix(def.Weight, "field:"):
		v, ok := parseWeight(r.Fields[strings.TrimPrefix(def.Weight, "field:")])
		if !ok {
			return 1 // not read yet, or not a weight: neutral
		}
		return v
	}
	return 1
}

// Stalest returns the rows ordered by w·F̂ at now, largest first, with
// that staleness.
func Stalest(def Definition, rows []Row, now time.Time, o SyncOptions) ([]Row, []float64) {
	type rs struct {
		r Row
		f float64
	}
	out := make([]rs, len(rows))
	for i, r := range rows {
		last := r.LastSync
		if last.IsZero() {
			last = def.Created
		}
		age := float64(now.Sub(last)) / float64(o.Unit)
		out[i] = rs{r, rowWeight(def, r) * ExpectedStaleness(r.Rate.Rate(o.RatePrior, o.RatePriorWeight), age)}
	}
	slices.SortStableFunc(out, func(a, b rs) int { return cmp.Compare(b.f, a.f) })
	sorted := make([]Row, len(out))
	f := make([]float64, len(out))
	for i := range out {
		sorted[i], f[i] = out[i].r, out[i].f
	}
	return sorted, f
}
