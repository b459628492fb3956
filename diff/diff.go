package diff

import (
	"slices"
	"strings"
	"sync"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/sergi/go-diff/diffmatchpatch"

	"github.com/deltaq/deltaq/internal/plural"
)

// Kind says whether a run of tokens is common to both copies, only in the
// new one, or only in the old one.
type Kind string

const (
	Equal  Kind = "equal"
	Insert Kind = "insert"
	Delete Kind = "delete"
	// Omitted ends a diff cut to Options.MaxBytes (Capped): N counts the
	// changed tokens left out, and Text says so.
	Omitted Kind = "omitted"
)

// Op is one run of tokens, joined by a space (words) or a newline (lines).
type Op struct {
	Kind Kind   `json:"kind"`
	Text string `json:"text"`
	// N is the number of tokens in the run.
	N int `json:"n"`
}

// SetChange is a set-based difference (§3.2): links, images, words.
type SetChange struct {
	Added   []string `json:"added,omitempty"`
	Removed []string `json:"removed,omitempty"`
	// AddedOmitted and RemovedOmitted count the members left out of Added
	// and Removed by Result.Capped.
	AddedOmitted   int `json:"added_omitted,omitempty"`
	RemovedOmitted int `json:"removed_omitted,omitempty"`
}

// Empty reports whether nothing was added or removed.
func (s SetChange) Empty() bool {
	return len(s.Added) == 0 && len(s.Removed) == 0 && s.AddedOmitted == 0 && s.RemovedOmitted == 0
}

// Omitted is how many members Result.Capped left out.
func (s SetChange) Omitted() int { return s.AddedOmitted + s.RemovedOmitted }

// Result is the difference between two copies.
type Result struct {
	Words []Op      `json:"words,omitempty"`
	Lines []Op      `json:"lines,omitempty"`
	Links SetChange `json:"links"`
	// Fraction is the share of the two copies' words that are inserted or
	// deleted: 0 for equal copies, 1 for copies with no word in common.
	Fraction float64 `json:"fraction"`
}

// Options bound a diff.
type Options struct {
	// Timeout bounds the alignment of one diff; past it go-diff returns a
	// coarser diff that is still correct. Zero means no bound.
	Timeout time.Duration `mapstructure:"timeout"`
	// MaxBytes bounds the text each view of a kept diff carries, and the
	// URLs of its links (Capped).
	// Zero means no bound.
	MaxBytes int `mapstructure:"max_bytes"`
}

// Text diffs two texts at word and at line granularity.
func Text(old, cur string, o Options) Result {
	return textWords(old, cur, Fields(old), Fields(cur), o, false)
}

// TextChanges is Text(old, cur, o).ChangesOnly(), for a caller that keeps
// only that: the common runs are cut to their context as they are joined,
// rather than joined whole and cut afterwards.
func TextChanges(old, cur string, o Options) Result {
	return TextWordsChanges(old, cur, Fields(old), Fields(cur), o)
}

// TextWordsChanges is TextChanges for texts already split into words.
func TextWordsChanges(old, cur string, oldWords, curWords []string, o Options) Result {
	return textWords(old, cur, oldWords, curWords, o, true)
}

func textWords(old, cur string, oldWords, curWords []string, o Options, changesOnly bool) Result {
	words, lineCtx := noContext, noContext
	if changesOnly {
		words, lineCtx = contextTokens, contextLines
	}
	var r Result
	r.Words, r.Fraction = opsOf(align(oldWords, curWords, o), " ", words)
	r.Lines, _ = opsOf(align(lines(old), lines(cur), o), "\n", lineCtx)
	return r
}

// lines splits text into its non-blank lines, spaces collapsed.
func lines(s string) []string {
	var out []string
	for l := range strings.SplitSeq(s, "\n") {
		if !collapsed(l) {
			l = strings.Join(Fields(l), " ")
		}
		if l != "" {
			out = append(out, l)
		}
	}
	return out
}

// collapsed reports whether l is already its fields joined by single
// spaces, as most lines of extracted text are, so that lines can keep it
// rather than split and join it again.
func collapsed(l string) bool {
	space := true // a leading space is not collapsed
	for i := 0; i < len(l); {
		c := l[i]
		if c < utf8.RuneSelf {
			switch c {
			case ' ':
				if space {
					return false
				}
				space = true
			case '\t', '\n', '\v', '\f', '\r':
				return false
			default:
				space = false
			}
			i++
			continue
		}
		r, n := utf8.DecodeRuneInString(l[i:])
		if unicode.IsSpace(r) {
			return false
		}
		space = false
		i += n
	}
	return !space || l == ""
}

// fraction counts the tokens of runs: its value is the share of tokens
// inserted or deleted among all tokens of both copies.
type fraction struct{ changed, all int }

func (f *fraction) add(k Kind, n int) {
	f.all += n
	if k != Equal {
		f.changed += n
	} else {
		f.all += n // an equal run is in both copies
	}
}

func (f fraction) value() float64 {
	if f.all == 0 {
		return 0
	}
	return float64(f.changed) / float64(f.all)
}

// Tokens aligns two token sequences: each distinct token becomes one rune
// (go-diff's line mode), the runes are diffed with Myers' algorithm, and
// the runs are mapped back to tokens joined by sep. No semantic clean-up:
// it is made for characters and would swallow a one-line common run
// between two changed lines.
func Tokens(a, b []string, sep string, o Options) []Op {
	ops, _ := opsOf(align(a, b, o), sep, noContext)
	return ops
}

// noContext asks opsOf for the common runs whole.
const noContext = -1

// run is a run of tokens of one kind: a subslice of the old sequence
// (Equal, Delete) or of the new one (Insert).
type run struct {
	kind Kind
	toks []string
}

// opsOf joins the runs' tokens with sep, and gives the Fraction of the
// runs. With context ≥ 0 the common runs are cut as trimEqual cuts them
// (contextCut), to context tokens on each side of a change, before they
// are joined; the fraction counts them whole. Cut so, the tokens must
// not contain sep (words from Fields, lines from lines), as
// trimEqual counts a run's tokens by its seps.
func opsOf(runs []run, sep string, context int) ([]Op, float64) {
	ops := make([]Op, 0, len(runs))
	var f fraction
	for i, r := range runs {
		n := len(r.toks)
		op := Op{Kind: r.kind, N: n}
		f.add(r.kind, n)
		if r.kind == Equal && context >= 0 {
			if after, before, cut := contextCut(i, len(runs), context, n); cut {
				op.Text = elided(strings.Join(r.toks[:after], sep), strings.Join(r.toks[n-before:], sep), sep, after, before)
				op.N = after + before
				ops = append(ops, op)
				continue
			}
		}
		op.Text = strings.Join(r.toks, sep)
		ops = append(ops, op)
	}
	return ops, f.value()
}

// align diffs two token sequences with go-diff, each distinct token one
// rune, and returns the runs as subslices of a and b: go-diff's runs take
// the old sequence by its equal and deleted runs, and the new one by its
// equal and inserted runs, each in order.
func align(a, b []string, o Options) []run {
	in := interners.Get().(*interner)
	defer in.release()
	in.a, in.b = in.encode(a, in.a), in.encode(b, in.b)
	dmp := diffmatchpatch.New()
	dmp.DiffTimeout = o.Timeout // go-diff: 0 means no deadline
	ds := dmp.DiffMainRunes(in.a, in.b, false)
	runs := make([]run, 0, len(ds))
	i, j := 0, 0
	for _, d := range ds {
		n := utf8.RuneCountInString(d.Text)
		switch d.Type {
		case diffmatchpatch.DiffEqual:
			runs = append(runs, run{Equal, a[i : i+n]})
			i, j = i+n, j+n
		case diffmatchpatch.DiffDelete:
			runs = append(runs, run{Delete, a[i : i+n]})
			i += n
		case diffmatchpatch.DiffInsert:
			runs = append(runs, run{Insert, b[j : j+n]})
			j += n
		}
	}
	return runs
}

// interner numbers tokens for align: each distinct token one rune. Its
// map and rune buffers are reused from call to call (interners), as a
// diff of two copies of a page otherwise allocates them anew, which
// costs more than aligning a small change.
type interner struct {
	ids  map[string]rune
	a, b []rune
}

// maxPooled bounds the tokens of the diffs whose interner goes back to
// the pool, so that one huge diff does not keep its buffers nor make
// every later clear of the map cost its size.
const maxPooled = 1 << 14

var interners = sync.Pool{New: func() any { return &interner{ids: map[string]rune{}} }}

// encode maps toks to runes, reusing buf's room, numbering tokens not
// seen yet.
func (in *interner) encode(toks []string, buf []rune) []rune {
	rs := slices.Grow(buf[:0], len(toks))[:len(toks)]
	for i, t := range toks {
		r, ok := in.ids[t]
		if !ok {
			r = tokenRune(len(in.ids))
			in.ids[t] = r
		}
		rs[i] = r
	}
	return rs
}

func (in *interner) release() {
	if len(in.a)+len(in.b) > maxPooled {
		return
	}
	clear(in.ids)
	interners.Put(in)
}

// tokenRune maps a token number to a valid rune, skipping the surrogates
// and 0 (go-diff works on Go strings, which cannot carry either).
func tokenRune(i int) rune {
	r := rune(i + 1)
	if r >= 0xD800 {
		r += 0x800
	}
	return r
}

// Sets returns what cur adds to old and what it drops, each sorted and
// without repeats.
func Sets(old, cur []string) SetChange {
	if ascending(old) && ascending(cur) {
		return mergeSets(old, cur)
	}
	in := func(xs []string) map[string]bool {
		m := make(map[string]bool, len(xs))
		for _, x := range xs {
			m[x] = true
		}
		return m
	}
	o, c := in(old), in(cur)
	var s SetChange
	for x := range c {
		if !o[x] {
			s.Added = append(s.Added, x)
		}
	}
	for x := range o {
		if !c[x] {
			s.Removed = append(s.Removed, x)
		}
	}
	slices.Sort(s.Added)
	slices.Sort(s.Removed)
	return s
}

// ascending reports whether xs is sorted without repeats, as the sets
// sentinels keep are.
func ascending(xs []string) bool {
	for i := 1; i < len(xs); i++ {
		if xs[i-1] >= xs[i] {
			return false
		}
	}
	return true
}

// mergeSets is Sets of two ascending lists, in one pass over both.
func mergeSets(old, cur []string) SetChange {
	var s SetChange
	i, j := 0, 0
	for i < len(old) && j < len(cur) {
		switch {
		case old[i] == cur[j]:
			i++
			j++
		case old[i] < cur[j]:
			s.Removed = append(s.Removed, old[i])
			i++
		default:
			s.Added = append(s.Added, cur[j])
			j++
		}
	}
	s.Removed = append(s.Removed, old[i:]...)
	s.Added = append(s.Added, cur[j:]...)
	return s
}

// SetFraction is |added ∪ removed| / |old ∪ cur| for a set difference.
func SetFraction(s SetChange, oldLen, curLen int) float64 {
	union := curLen + len(s.Removed)
	if oldLen+len(s.Added) > union {
		union = oldLen + len(s.Added)
	}
	if union == 0 {
		return 0
	}
	return float64(len(s.Added)+len(s.Removed)) / float64(union)
}

// Changed reports whether the copies differ in words or links.
func (r Result) Changed() bool {
	for _, op := range r.Words {
		if op.Kind != Equal {
			return true
		}
	}
	return !r.Links.Empty()
}

// Added returns the inserted word runs.
func (r Result) Added() []string { return runs(r.Words, Insert) }

// Removed returns the deleted word runs.
func (r Result) Removed() []string { return runs(r.Words, Delete) }

func runs(ops []Op, k Kind) []string {
	var out []string
	for _, op := range ops {
		if op.Kind == k {
			out = append(out, op.Text)
		}
	}
	return out
}

// Capped keeps, in the word view and in the line view, the runs up to max
// bytes of text, the run that crosses it cut after its last whole token;
// one Omitted run counts the changed tokens left out. It keeps the links
// added, then the links removed, up to max bytes of URLs, and counts the
// others (SetChange.AddedOmitted, RemovedOmitted). A page rewritten whole
// would otherwise make a diff twice its size in each view, and its
// thousands of links another, carried by every notification, feed entry
// and history entry of the change. max ≤ 0 keeps all.
func (r Result) Capped(max int) Result {
	if max <= 0 {
		return r
	}
	r.Words = capOps(r.Words, " ", "word", max)
	r.Lines = capOps(r.Lines, "\n", "line", max)
	left := max
	r.Links.Added, r.Links.AddedOmitted = capSet(r.Links.Added, r.Links.AddedOmitted, &left)
	r.Links.Removed, r.Links.RemovedOmitted = capSet(r.Links.Removed, r.Links.RemovedOmitted, &left)
	return r
}

// capSet keeps the members of set that fit in *left bytes, in order,
// taking their bytes from it, and adds the others to omitted.
func capSet(set []string, omitted int, left *int) ([]string, int) {
	for i, m := range set {
		if len(m) > *left {
			*left = 0
			return set[:i:i], omitted + len(set) - i
		}
		*left -= len(m)
	}
	return set, omitted
}

// capOps is Capped of one view, whose tokens are joined by sep.
func capOps(ops []Op, sep, unit string, max int) []Op {
	left := max
	for i, op := range ops {
		if len(op.Text) <= left {
			left -= len(op.Text)
			continue
		}
		out := ops[:i:i] // appending copies: the caller's ops stay whole
		omitted := 0
		if op.Kind != Equal {
			omitted = op.N
		}
		if j := strings.LastIndex(op.Text[:left+1], sep); j > 0 && op.Kind != Equal {
			kept := op.Text[:j]
			n := strings.Count(kept, sep) + 1
			out = append(out, Op{Kind: op.Kind, Text: kept, N: n})
			omitted -= n
		}
		for _, rest := range ops[i+1:] {
			if rest.Kind != Equal {
				omitted += rest.N
			}
		}
		if omitted > 0 {
			out = append(out, Op{Kind: Omitted, Text: Elided + " " + plural.Count(omitted, "more "+unit) + " changed", N: omitted})
		}
		return out
	}
	return ops
}

// ChangesOnly keeps the changed runs and at most contextTokens tokens of
// common text on each side of them (§4.2, "display only the differences").
func (r Result) ChangesOnly() Result {
	r.Words = trimEqual(r.Words, " ", contextTokens)
	r.Lines = trimEqual(r.Lines, "\n", contextLines)
	return r
}

// contextTokens is how many common words the changes-only view keeps around
// a change: enough to find the place on the page, few enough to stay short;
// contextLines how many common lines.
const (
	contextTokens = 5
	contextLines  = 1
)

// Elided marks common text left out of a changes-only view.
const Elided = "…"

func trimEqual(ops []Op, sep string, n int) []Op {
	out := make([]Op, 0, len(ops))
	for i, op := range ops {
		if op.Kind != Equal {
			out = append(out, op)
			continue
		}
		toks := strings.Count(op.Text, sep) + 1
		after, before, cut := contextCut(i, len(ops), n, toks)
		if !cut {
			out = append(out, op)
			continue
		}
		// The first after tokens and the last before, cut from the run's
		// text rather than split and joined.
		var head, tail string
		if after > 0 {
			head = op.Text[:sepIndex(op.Text, sep, after)]
		}
		if before > 0 {
			tail = op.Text[sepIndex(op.Text, sep, toks-before)+len(sep):]
		}
		out = append(out, Op{Kind: Equal, Text: elided(head, tail, sep, after, before), N: after + before})
	}
	return out
}

// contextCut says how the changes-only view cuts a common run of toks
// tokens, the i-th of m runs: to its first after tokens (the context
// following the previous change; none ahead of the first run) and its last
// before tokens (the context leading to the next change; none after the
// last run), when it has more than those.
func contextCut(i, m, context, toks int) (after, before int, cut bool) {
	after, before = context, context
	if i == 0 {
		after = 0
	}
	if i == m-1 {
		before = 0
	}
	return after, before, toks > after+before
}

// elided is a cut common run: its first after tokens (head), the elision,
// its last before tokens (tail).
func elided(head, tail, sep string, after, before int) string {
	text := Elided
	if after > 0 {
		text = head + sep + text
	}
	if before > 0 {
		text += sep + tail
	}
	return text
}

// sepIndex is the index of the k-th (from 1) occurrence of sep in s,
// counted as strings.Split counts them; s has at least k.
func sepIndex(s, sep string, k int) int {
	at := -len(sep)
	for range k {
		at += len(sep) + strings.Index(s[at+len(sep):], sep)
	}
	return at
}
