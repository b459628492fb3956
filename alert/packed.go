package alert

import (
	"cmp"
	"encoding/json"
	"errors"
	"hash/maphash"
	"math"
	"regexp"
	"slices"
	"sync/atomic"

	bindex "github.com/blevesearch/bleve_index_api"

	"github.com/deltaq/deltaq/index"
	"github.com/deltaq/deltaq/internal/urlnorm"
)

// packed holds the compiled alerts in flat slices of integers and bytes.
// The garbage collector scans every pointer of the live heap on each
// cycle, and indexing allocates enough to run many cycles: 100,000 alerts
// kept as Go strings, slices and structs were millions of pointers, and
// scanning them cost indexing more than the matching itself. Here a word
// is a uint32 id, an alert a slot of integers, and the alert's own record
// (for lists and notifications) its JSON in one byte arena; the pointers
// left are one per word (its anchored slots) and one per site-filtered
// alert.
//
// packed is not safe for concurrent use: Matcher guards it, and only df
// is written under the read lock (atomically).
type packed struct {
	seed maphash.Seed
	// Words. Word id's bytes are text[wordEnd[id-1]:wordEnd[id]]. byHash
	// finds the first id of a hash; sameHash chains the ids whose hashes
	// collide, so a lookup is exact.
	byHash   map[uint64]uint32
	sameHash []uint32
	text     []byte
	wordEnd  []uint32
	// df counts the observed pages that held each word (atomic);
	// anchored lists the slots anchored on each word.
	df       []int64
	anchored [][]uint32

	// Alerts, by slot: the clauses of all alerts and their words, and the
	// alert records (JSON) in meta.
	slots   []slot
	clauses []pclause
	words   []pword
	meta    []byte
	sites   map[uint32]siteFilter // slot → its site: filters, for the few that have them
	every   map[uint32]bool       // slots of the alerts that notify every change (Alert.EveryChange)
	users   map[string]uint32     // user → id (slot.user); users[""] is 0
	free    []uint32              // slots of removed alerts
	bySeq   map[uint64]uint32     // alert number → slot
	garbage int                   // words and meta bytes of removed alerts, reclaimed by compact
}

const noWord = ^uint32(0)

// slot is one alert; seq 0 marks a free slot.
type slot struct {
	seq                    uint64
	clauseStart, clauseEnd uint32
	metaStart, metaEnd     uint32
	anchor                 uint32
	user                   uint32
	// created is Alert.Created in Unix nanoseconds: copies fetched
	// before it are not the alert's news.
	created int64
}

// pclause is a clause: its words in words[wordStart:wordEnd].
type pclause struct {
	wordStart, wordEnd uint32
	phrase, excluded   bool
}

// pword is a word of a clause at its offset from the clause's first word.
type pword struct {
	id  uint32
	off int32
}

// siteFilter is an alert's site: and -site: hosts as index.SiteRegexp
// matches them (a host and its subdomains); nil: none given.
type siteFilter struct{ sites, notSites *regexp.Regexp }

func newPacked() *packed {
	return &packed{seed: maphash.MakeSeed(), byHash: map[uint64]uint32{}, sites: map[uint32]siteFilter{}, every: map[uint32]bool{},
		users: map[string]uint32{"": 0}, bySeq: map[uint64]uint32{}}
}

func (p *packed) word(id uint32) []byte {
	start := uint32(0)
	if id > 0 {
		start = p.wordEnd[id-1]
	}
	return p.text[start:p.wordEnd[id]]
}

// lookup returns the id of term, if some alert has that word.
func (p *packed) lookup(term string) (uint32, bool) {
	id, ok := p.byHash[maphash.String(p.seed, term)]
	if !ok {
		return 0, false
	}
	for ; id != noWord; id = p.sameHash[id] {
		if string(p.word(id)) == term {
			return id, true
		}
	}
	return 0, false
}

// intern returns term's id, adding the word if it is new.
func (p *packed) intern(term string) uint32 {
	if id, ok := p.lookup(term); ok {
		return id
	}
	id := uint32(len(p.wordEnd))
	h := maphash.String(p.seed, term)
	next := noWord
	if first, ok := p.byHash[h]; ok {
		next = first
	}
	p.byHash[h] = id
	p.sameHash = append(p.sameHash, next)
	p.text = append(p.text, term...)
	p.wordEnd = append(p.wordEnd, uint32(len(p.text)))
	p.df = append(p.df, 0)
	p.anchored = append(p.anchored, nil)
	return id
}

// errPackedFull refuses alerts whose records, words or clauses would take
// the packed arrays past the uint32 offsets that reach them.
var errPackedFull = errors.New("alert: the alerts held would pass 4 GiB of records, words or clauses in memory; remove some first")

// fits reports errPackedFull if cs and their records would take an array
// past limit entries (maxPacked) beside the alerts held; the space of
// removed ones counts until compacted.
func (p *packed) fits(cs []*compiled, records [][]byte, limit int) error {
	meta, words, clauses := len(p.meta), len(p.words), len(p.clauses)
	for i, c := range cs {
		meta += len(records[i])
		for _, cls := range [][]clause{c.required, c.excluded} {
			for _, cl := range cls {
				words += len(cl.words)
			}
			clauses += len(cls)
		}
	}
	if max(meta, words, clauses) > limit {
		return errPackedFull
	}
	return nil
}

// maxPacked is the longest a packed array may grow.
const maxPacked = math.MaxUint32

// add packs a compiled alert and its stored record (JSON), files it under
// its anchor and returns its slot.
func (p *packed) add(seq uint64, c *compiled, record []byte) uint32 {
	s := slot{seq: seq, clauseStart: uint32(len(p.clauses)), metaStart: uint32(len(p.meta)), created: c.a.Created.UnixNano()}
	for _, list := range []struct {
		cs       []clause
		excluded bool
	}{{c.required, false}, {c.excluded, true}} {
		for _, cl := range list.cs {
			pc := pclause{wordStart: uint32(len(p.words)), phrase: cl.phrase, excluded: list.excluded}
			for _, w := range cl.words {
				p.words = append(p.words, pword{id: p.intern(w.term), off: int32(w.off)})
			}
			pc.wordEnd = uint32(len(p.words))
			p.clauses = append(p.clauses, pc)
		}
	}
	s.clauseEnd = uint32(len(p.clauses))
	p.meta = append(p.meta, record...)
	s.metaEnd = uint32(len(p.meta))
	u, ok := p.users[c.a.User]
	if !ok {
		u = uint32(len(p.users))
		p.users[c.a.User] = u
	}
	s.user = u
	var at uint32
	if n := len(p.free); n > 0 {
		at, p.free = p.free[n-1], p.free[:n-1]
		p.slots[at] = s
	} else {
		at = uint32(len(p.slots))
		p.slots = append(p.slots, s)
	}
	if len(c.sites) > 0 || len(c.notSites) > 0 {
		p.sites[at] = siteFilter{sites: index.SiteRegexp(c.sites), notSites: index.SiteRegexp(c.notSites)}
	}
	if c.a.EveryChange {
		p.every[at] = true
	}
	p.bySeq[seq] = at
	p.file(at)
	return at
}

// file anchors the alert in slot at on one of its required words: the one
// found on the fewest observed pages, then the one with the fewest alerts
// anchored on it (before any page is observed, only the latter tells).
func (p *packed) file(at uint32) {
	s := &p.slots[at]
	best, bestDF, bestLen := noWord, int64(-1), -1
	for _, cl := range p.clauses[s.clauseStart:s.clauseEnd] {
		if cl.excluded {
			continue
		}
		for _, w := range p.words[cl.wordStart:cl.wordEnd] {
			d, n := atomic.LoadInt64(&p.df[w.id]), len(p.anchored[w.id])
			if bestDF < 0 || d < bestDF || d == bestDF && n < bestLen {
				best, bestDF, bestLen = w.id, d, n
			}
		}
	}
	s.anchor = best
	p.anchored[best] = append(p.anchored[best], at)
}

// remove drops the alert numbered seq; false if there is none.
func (p *packed) remove(seq uint64) bool {
	at, ok := p.bySeq[seq]
	if !ok {
		return false
	}
	s := p.slots[at]
	p.anchored[s.anchor] = slices.DeleteFunc(p.anchored[s.anchor], func(x uint32) bool { return x == at })
	for _, cl := range p.clauses[s.clauseStart:s.clauseEnd] {
		p.garbage += int(cl.wordEnd - cl.wordStart)
	}
	p.garbage += int(s.metaEnd - s.metaStart)
	delete(p.bySeq, seq)
	delete(p.sites, at)
	delete(p.every, at)
	p.slots[at] = slot{}
	p.free = append(p.free, at)
	if p.garbage > (len(p.words)+len(p.meta))/2 {
		p.compact()
	}
	return true
}

// compact copies the live alerts' clauses, words and records into new
// slices, dropping what removed alerts left (their words stay interned).
func (p *packed) compact() {
	var clauses []pclause
	var words []pword
	var meta []byte
	for i := range p.slots {
		s := &p.slots[i]
		if s.seq == 0 {
			continue
		}
		start := uint32(len(clauses))
		for _, cl := range p.clauses[s.clauseStart:s.clauseEnd] {
			ws := uint32(len(words))
			words = append(words, p.words[cl.wordStart:cl.wordEnd]...)
			cl.wordStart, cl.wordEnd = ws, uint32(len(words))
			clauses = append(clauses, cl)
		}
		s.clauseStart, s.clauseEnd = start, uint32(len(clauses))
		ms := uint32(len(meta))
		meta = append(meta, p.meta[s.metaStart:s.metaEnd]...)
		s.metaStart, s.metaEnd = ms, uint32(len(meta))
	}
	p.clauses, p.words, p.meta, p.garbage = clauses, words, meta, 0
}

// refile anchors every alert again by the page counts so far, in alert
// number order (the same filing for the same alerts and pages).
func (p *packed) refile() {
	for i := range p.anchored {
		p.anchored[i] = p.anchored[i][:0]
	}
	order := make([]uint32, 0, len(p.bySeq))
	for i := range p.slots {
		if p.slots[i].seq != 0 {
			order = append(order, uint32(i))
		}
	}
	slices.SortFunc(order, func(a, b uint32) int { return cmp.Compare(p.slots[a].seq, p.slots[b].seq) })
	for _, at := range order {
		p.file(at)
	}
}

// alert decodes the record of the alert in slot at.
func (p *packed) alert(at uint32) (Alert, error) {
	var a Alert
	s := &p.slots[at]
	err := json.Unmarshal(p.meta[s.metaStart:s.metaEnd], &a)
	return a, err
}

// snippetTerms are the words of the alert's required clauses.
func (p *packed) snippetTerms(at uint32) []string {
	var out []string
	s := &p.slots[at]
	for _, cl := range p.clauses[s.clauseStart:s.clauseEnd] {
		if cl.excluded {
			continue
		}
		for _, w := range p.words[cl.wordStart:cl.wordEnd] {
			out = append(out, string(p.word(w.id)))
		}
	}
	return out
}

// matches reports whether the page satisfies the whole query of the alert
// in slot at.
func (p *packed) matches(at uint32, url string, terms bindex.TokenFrequencies) bool {
	if f, ok := p.sites[at]; ok {
		host := urlnorm.Host(url)
		if f.notSites != nil && f.notSites.MatchString(host) || f.sites != nil && !f.sites.MatchString(host) {
			return false
		}
	}
	s := &p.slots[at]
	for _, cl := range p.clauses[s.clauseStart:s.clauseEnd] {
		if p.holds(cl, terms) == cl.excluded {
			return false
		}
	}
	return true
}

// holds reports whether the clause holds on a page's terms.
func (p *packed) holds(cl pclause, terms bindex.TokenFrequencies) bool {
	ws := p.words[cl.wordStart:cl.wordEnd]
	for _, w := range ws {
		if _, ok := terms[string(p.word(w.id))]; !ok {
			return false
		}
	}
	if !cl.phrase || len(ws) < 2 {
		return true
	}
	// A phrase: some position of its first word has every other word at
	// its offset.
	for _, l := range terms[string(p.word(ws[0].id))].Locations {
		ok := true
		for _, w := range ws[1:] {
			if !hasPosition(terms[string(p.word(w.id))], l.Position+int(w.off)) {
				ok = false
				break
			}
		}
		if ok {
			return true
		}
	}
	return false
}
