package synthweb

import (
	"math"
	"slices"
)

// article is what never changes about one article, plus its deletion as
// seen from the view's time.
type article struct {
	id         articleID
	created    float64 // model seconds
	rate       float64 // λ, changes per model second (§4.7, Poisson model)
	section    int
	tags       []int // word ids, also the page's base topic words
	title      []int // word ids
	paragraphs int
	chained    bool      // linked only from parent (§3.2 chains)
	parent     articleID // valid when chained
	deleted    float64   // deletion time if ≤ view.m, else +Inf
	seed       uint64
}

// article returns the article id at the view's time, or nil if id was never
// published by then. Deleted articles are returned (check alive).
func (v *view) article(id articleID) *article {
	if a, ok := v.arts[id]; ok {
		return a
	}
	at, ok := v.arrival(id)
	if !ok || at > v.m {
		return nil
	}
	o := &v.w.opts
	dr := v.w.draw(v.s, id)
	a := &article{
		id: id, created: at, deleted: math.Inf(1),
		rate: dr.rate, section: dr.section, tags: dr.tags, title: dr.title,
		paragraphs: dr.paragraphs, seed: dr.seed,
	}
	chainDraw, deleteDraw, lifeDraw := dr.chain, dr.delete, dr.life
	v.arts[id] = a // before recursing into the parent

	if chainDraw < o.ChainFraction {
		if p, ok := v.prevNew(id); ok {
			a.chained, a.parent = true, p
		}
	}
	// Deletions happen at the first arrival of a bucket about MeanLifetime
	// after publication, so every change to a listing coincides with an
	// arrival and listings can carry an honest Last-Modified.
	if deleteDraw < o.DeleteFraction {
		k := max(int64(1), int64(math.Round(lifeDraw*v.w.lifetime/v.w.bucketLen)))
		if d, ok := v.firstArrivalFrom(id.bucket+k, v.m); ok {
			a.deleted = d
		}
	}
	// A chain link disappears with its parent: the child goes too.
	if a.chained {
		if p := v.article(a.parent); p != nil {
			a.deleted = min(a.deleted, p.deleted)
		}
	}
	return a
}

// draws are the random facts of an article, from its own stream.
type draws struct {
	rate                float64
	section, paragraphs int
	tags, title         []int
	chain, delete, life float64
	seed                uint64
}

func (w *Web) draw(s *site, id articleID) draws {
	o := &w.opts
	r := newRand(uint64(o.Seed), tagArticle, uint64(s.index), uint64(id.bucket), uint64(id.pos))
	var d draws
	// Heavy-tailed rates: λ = λ_min·U^(-1/α) is Pareto(α), capped at λ_max,
	// so most pages change about as rarely as λ_min and a few very often.
	d.rate = min(w.rateMin*math.Pow(unitOpen(r), -1/o.ChangeRateShape), w.rateMax)
	d.section = r.IntN(o.Sections)
	d.tags = s.pickTags(r, tagsPerArticle)
	d.title = w.vocab.title(r, d.tags[0])
	d.paragraphs = 5 + r.IntN(4)
	d.chain, d.delete, d.life = r.Float64(), r.Float64(), r.ExpFloat64()
	d.seed = r.Uint64()
	return d
}

// alive reports whether a exists at model time t ≤ view.m.
func (a *article) alive(t float64) bool { return a.created <= t && t < a.deleted }

// listed reports whether hubs, tag pages, feeds and the sitemap show a.
func (v *view) listed(a *article) bool { return a != nil && !a.chained && a.alive(v.m) }

// hasTag reports whether word id is one of a's tags.
func (a *article) hasTag(id int) bool { return slices.Contains(a.tags, id) }

// Change events. Each article changes as a Poisson process of rate λ from
// its publication. Time after publication is cut into windows of
// eventsPerWindow/λ; each window holds a Poisson(eventsPerWindow) number of
// events at uniform times, drawn from the stream (article, window). So the
// latest events before t are found by looking at one or two windows, and
// counting events since publication costs one draw per window.
const (
	eventsPerWindow = 4.0
	maxPerWindow    = 64
)

// event is one change of an article.
type event struct {
	at    float64
	major bool
	seed  uint64
}

func (a *article) windowLen() float64 { return eventsPerWindow / a.rate }

func (a *article) windowOf(t float64) int64 {
	if t < a.created {
		return -1
	}
	return int64((t - a.created) / a.windowLen())
}

// window returns the events of window w, in time order.
func (v *view) window(a *article, w int64) []event {
	r := newRand(a.seed, tagEvents, uint64(w))
	n := poisson(r, eventsPerWindow, maxPerWindow)
	evs := make([]event, n)
	wl := a.windowLen()
	for i := range evs {
		evs[i].at = a.created + wl*(float64(w)+r.Float64())
	}
	sortEvents(evs)
	for i := range evs {
		evs[i].major = r.Float64() < v.w.opts.MajorChangeFraction
		evs[i].seed = r.Uint64()
	}
	return evs
}

func sortEvents(evs []event) {
	for i := 1; i < len(evs); i++ {
		for j := i; j > 0 && evs[j].at < evs[j-1].at; j-- {
			evs[j], evs[j-1] = evs[j-1], evs[j]
		}
	}
}

// eventsDesc calls fn for a's events at or before t, newest first, until fn
// returns false.
func (v *view) eventsDesc(a *article, t float64, fn func(event) bool) {
	for w := a.windowOf(t); w >= 0; w-- {
		evs := v.window(a, w)
		for i := len(evs) - 1; i >= 0; i-- {
			if evs[i].at > t {
				continue
			}
			if !fn(evs[i]) {
				return
			}
		}
	}
}

// countEvents returns the number of a's events in (from, to].
func (v *view) countEvents(a *article, from, to float64) int {
	n := 0
	wFrom := max(a.windowOf(from), 0)
	for w := wFrom; w <= a.windowOf(to); w++ {
		if w > wFrom && w < a.windowOf(to) {
			r := newRand(a.seed, tagEvents, uint64(w))
			n += poisson(r, eventsPerWindow, maxPerWindow)
			continue
		}
		for _, e := range v.window(a, w) {
			if e.at > from && e.at <= to {
				n++
			}
		}
	}
	return n
}

// articleState is the content-determining part of a's history at time t:
// the newest event (minor or major) sets the date line, ad and related box;
// the newest major events that touched each paragraph set its text.
type articleState struct {
	last       event // newest event, or the publication pseudo-event
	changed    bool  // last is a real change
	paragraphs []uint64
	topics     []int // tags plus the extra topic words of the newest major
}

// touches reports whether major event e rewrote paragraph i (about half of
// them, and always at least one).
func touches(e event, i, n int) bool {
	return splitmix(e.seed^0xa0761d6478bd642f)>>uint(i%64)&1 == 1 || int(e.seed%uint64(n)) == i
}

func (v *view) state(a *article, t float64) articleState {
	st := articleState{
		last:       event{at: a.created, seed: a.seed},
		paragraphs: make([]uint64, a.paragraphs),
	}
	left := a.paragraphs
	var newestMajor *event
	v.eventsDesc(a, t, func(e event) bool {
		if !st.changed {
			st.last, st.changed = e, true
		}
		if !e.major {
			// With no major changes at all there is nothing older to find.
			return v.w.opts.MajorChangeFraction > 0
		}
		if newestMajor == nil {
			newestMajor = &e
		}
		for i := range st.paragraphs {
			if st.paragraphs[i] == 0 && touches(e, i, a.paragraphs) {
				st.paragraphs[i] = mix(e.seed, tagParagraph, uint64(i)) | 1
				left--
			}
		}
		return left > 0
	})
	for i := range st.paragraphs {
		if st.paragraphs[i] == 0 {
			st.paragraphs[i] = mix(a.seed, tagParagraph, uint64(i)) | 1
		}
	}
	// A major change also moves the page's topic: up to two more site
	// topics and one general word join the tags until the next major.
	topicSeed := a.seed
	if newestMajor != nil {
		topicSeed = newestMajor.seed
	}
	r := newRand(topicSeed, tagTopics)
	st.topics = append(st.topics, a.tags...)
	for range r.IntN(3) {
		if id := v.s.topics[r.IntN(len(v.s.topics))]; !slices.Contains(st.topics, id) {
			st.topics = append(st.topics, id)
		}
	}
	if id := v.w.vocab.topic(r); !slices.Contains(st.topics, id) {
		st.topics = append(st.topics, id)
	}
	return st
}
