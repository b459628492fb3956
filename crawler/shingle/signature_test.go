package shingle

import (
	"math"
	"math/bits"
	"math/rand/v2"
	"strings"
	"testing"
	"unicode"
)

// vocabulary is a pool of words for generated pages.
var vocabulary = strings.Fields(`
the of and to in is for that on with as by this are be from or it an at was which
government digital service federal agency website design content users accessibility
research data public information team program people plan policy guidance support
forms tools security privacy report product practice training community network
search results page pages link links crawl index query queries ranking quality
command line file files directory archive options example usage install package
manager system process server client request response network protocol version
update updates changed change weekly monthly yearly news article articles event
events blog post posts author authors editor editorial section sections header
footer navigation menu button buttons image images video videos audio caption
captions table tables list lists item items paragraph paragraphs heading title
summary details share email subscribe newsletter contact office hours phone
address location city state county national regional local community members
group groups meeting meetings agenda minutes notes slides presentation webinar
workshop course lesson lessons guide guides handbook manual reference topic topics
`)

// page returns n words drawn from vocabulary with the given seed, broken
// into sentences.
func page(seed uint64, n int) string {
	r := rand.New(rand.NewPCG(seed, 7))
	var b strings.Builder
	for i := range n {
		w := vocabulary[r.IntN(len(vocabulary))]
		if i%12 == 0 {
			if i > 0 {
				b.WriteString(". ")
			}
			w = strings.ToUpper(w[:1]) + w[1:]
		} else {
			b.WriteByte(' ')
		}
		b.WriteString(w)
	}
	b.WriteString(".")
	return b.String()
}

// exactDifference computes 1 − Jaccard of the w-shingle sets of two texts
// independently of the package: words as lowercased strings.
func exactDifference(a, b string, w int) float64 {
	set := func(s string) map[string]bool {
		words := strings.FieldsFunc(strings.ToLower(s), func(r rune) bool {
			return !unicode.IsLetter(r) && !unicode.IsDigit(r)
		})
		m := map[string]bool{}
		if len(words) == 0 {
			return m
		}
		ww := min(w, len(words))
		for i := 0; i+ww <= len(words); i++ {
			m[strings.Join(words[i:i+ww], " ")] = true
		}
		return m
	}
	sa, sb := set(a), set(b)
	if len(sa) == 0 && len(sb) == 0 {
		return 0
	}
	both := 0
	for s := range sa {
		if sb[s] {
			both++
		}
	}
	return 1 - float64(both)/float64(len(sa)+len(sb)-both)
}

func TestInsignificantAndSignificantUpdates(t *testing.T) {
	body := page(1, 600)
	original := "Published March 3, 2023. Last updated: March 3, 2023 at 09:14.\n" + body +
		"\nSponsored: try Acme Cloud hosting free for thirty days."
	for _, tc := range []struct {
		name     string
		changed  string
		min, max float64
	}{
		{"an identical page does not differ", original, 0, 0},
		{"a changed date line differs a little",
			strings.Replace(original, "Last updated: March 3, 2023 at 09:14", "Last updated: March 10, 2023 at 17:02", 1), 1e-9, 0.1},
		{"a swapped ad sentence differs a little",
			strings.Replace(original, "Sponsored: try Acme Cloud hosting free for thirty days.", "Advertisement: save on Globex office chairs this week only.", 1), 1e-9, 0.1},
		{"a reflowed page with the same words does not differ",
			strings.ReplaceAll(original, ". ", ".\n\n  "), 0, 0},
		{"a rewritten page differs a lot", "Published March 3, 2023.\n" + page(2, 600), 0.8, 1},
		{"a page with a new half differs a fair amount", original[:len(original)/2] + page(3, 300), 0.4, 0.8},
	} {
		t.Run(tc.name, func(t *testing.T) {
			a := Compute(original, Options{})
			b := Compute(tc.changed, Options{})
			got := Difference(a, b)
			t.Logf("Difference = %.4f, exact %.4f", got, exactDifference(original, tc.changed, DefaultWidth))
			if got < tc.min || got > tc.max {
				t.Fatalf("Difference = %.4f, want in [%g, %g] (exact %.4f)", got, tc.min, tc.max, exactDifference(original, tc.changed, DefaultWidth))
			}
			if back := Difference(b, a); back != got {
				t.Fatalf("Difference is not symmetric: %v and %v", got, back)
			}
		})
	}
}

func TestDisjointTextsDifferCompletely(t *testing.T) {
	a := Compute("alpha beta gamma delta epsilon zeta eta theta", Options{})
	b := Compute("one two three four five six seven eight", Options{})
	if d := Difference(a, b); d != 1 {
		t.Fatalf("Difference = %v, want 1", d)
	}
	big1, big2 := Compute(page(10, 3000), Options{}), Compute(strings.ToUpper(page(11, 3000))+" xyzzy", Options{})
	if d := Difference(big1, big2); d < 0.95 {
		t.Fatalf("large unrelated pages: Difference = %v, want about 1", d)
	}
}

func TestDifferenceIsExactForSmallSets(t *testing.T) {
	for _, tc := range []struct{ name, a, b string }{
		{"one word replaced", page(20, 100), strings.Replace(page(20, 100), " ", " zzz ", 1)},
		{"half replaced", page(21, 100), page(21, 100)[:300] + " " + page(22, 50)},
		{"short texts", "to be or not to be", "to be or not to go"},
		{"texts shorter than a shingle", "hello world", "hello there"},
		{"a text shorter than a shingle and a longer one", "hello world", "hello world and more"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			a, b := Compute(tc.a, Options{}), Compute(tc.b, Options{})
			if a.Count > a.K || b.Count > b.K {
				t.Fatalf("test texts too long: %d and %d shingles", a.Count, b.Count)
			}
			got, want := Difference(a, b), exactDifference(tc.a, tc.b, DefaultWidth)
			if math.Abs(got-want) > 1e-12 {
				t.Fatalf("Difference = %v, exact = %v", got, want)
			}
		})
	}
}

// TestDifferenceEstimatesLargeSets checks the bottom-k estimate against the
// exact value over seeded edits of large pages: each estimate within 4
// standard errors, and no bias on average.
func TestDifferenceEstimatesLargeSets(t *testing.T) {
	var sumErr float64
	const trials = 40
	for i := range trials {
		base := page(uint64(100+i), 2000)
		words := strings.Fields(base)
		r := rand.New(rand.NewPCG(uint64(i), 99))
		frac := float64(i%10) / 10
		for j := range words {
			if r.Float64() < frac/4 { // one changed word changes up to 4 shingles
				words[j] = "changed" + words[j]
			}
		}
		edited := strings.Join(words, " ")
		a, b := Compute(base, Options{}), Compute(edited, Options{})
		est, exact := Difference(a, b), exactDifference(base, edited, DefaultWidth)
		j := 1 - exact
		se := math.Sqrt(j*(1-j)/float64(DefaultSketchSize)) + 0.01
		if math.Abs(est-exact) > 4*se {
			t.Errorf("trial %d: estimate %.3f, exact %.3f (standard error %.3f)", i, est, exact, se)
		}
		sumErr += est - exact
	}
	if bias := sumErr / trials; math.Abs(bias) > 0.02 {
		t.Errorf("mean error %.4f: the estimator is biased", bias)
	}
}

func TestTokenization(t *testing.T) {
	for _, tc := range []struct {
		name, a, b string
		same       bool
	}{
		{"case is ignored", "Hello World again today", "hello world AGAIN today", true},
		{"punctuation only separates", "Hello, World! (again) today...", "hello world again today", true},
		{"non-ASCII letters are folded", "Ünïcödé WÖRDS are Λέξεις", "ünïcödé wörds are λέξεις", true},
		{"digits are words", "version 1 2 3", "version 1 2 4", false},
		{"letters inside words matter", "data base systems are", "database systems are", false},
		{"word order matters", "a b c d e", "e d c b a", false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			d := Difference(Compute(tc.a, Options{}), Compute(tc.b, Options{}))
			if (d == 0) != tc.same {
				t.Fatalf("Difference(%q, %q) = %v, want same = %v", tc.a, tc.b, d, tc.same)
			}
		})
	}
}

func TestCount(t *testing.T) {
	for _, tc := range []struct {
		name, text  string
		width, want int
	}{
		{"an empty text has no shingles", "", 4, 0},
		{"punctuation has no shingles", "!!! --- ...", 4, 0},
		{"a text shorter than w is one shingle", "hello world", 4, 1},
		{"n words make n-w+1 shingles", "a b c d e f", 4, 3},
		{"repeated shingles count once", "a b a b a b a b", 2, 2},
		{"width one counts distinct words", "the cat and the hat", 1, 4},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := Compute(tc.text, Options{Width: tc.width})
			if s.Count != tc.want {
				t.Fatalf("Count = %d, want %d", s.Count, tc.want)
			}
			if len(s.Sketch) != min(s.Count, s.K) {
				t.Fatalf("%d hashes in the sketch, want %d", len(s.Sketch), min(s.Count, s.K))
			}
		})
	}
}

func TestEdgeDifferences(t *testing.T) {
	empty, punct, words := Compute("", Options{}), Compute("...", Options{}), Compute("some words here", Options{})
	if d := Difference(empty, punct); d != 0 {
		t.Errorf("two texts without words: Difference = %v, want 0", d)
	}
	if d := Difference(empty, words); d != 1 {
		t.Errorf("no words against words: Difference = %v, want 1", d)
	}
	w2 := Compute("some words here", Options{Width: 2})
	if d := Difference(words, w2); d != 0 {
		t.Errorf("the same text with another width: Difference = %v, want 0", d)
	}
	other := Compute("some words there", Options{Width: 2})
	if d := Difference(words, other); d != 1 {
		t.Errorf("different widths: Difference = %v, want 1", d)
	}
	small := Compute(page(5, 1000), Options{SketchSize: 16})
	large := Compute(page(5, 1000), Options{SketchSize: 256})
	if small.Exact != large.Exact || len(small.Sketch) != 16 || len(large.Sketch) != 256 {
		t.Fatal("sketch sizes not applied")
	}
	large.Exact++ // pretend the texts differ, to force the estimate
	if d := Difference(small, large); d != 0 {
		t.Errorf("different sketch sizes of one text: Difference = %v, want 0", d)
	}
}

func TestSimHash(t *testing.T) {
	base := page(30, 600)
	near := strings.Replace(base, " ", " inserted ", 3)
	far := page(31, 600)
	a, b, c := Compute(base, Options{}), Compute(near, Options{}), Compute(far, Options{})
	dNear := bits.OnesCount64(a.SimHash ^ b.SimHash)
	dFar := bits.OnesCount64(a.SimHash ^ c.SimHash)
	if dNear > 8 || dFar < 16 {
		t.Fatalf("Hamming distance: near-duplicate %d (want <= 8), unrelated %d (want >= 16)", dNear, dFar)
	}
}

func TestOptionsValidate(t *testing.T) {
	if err := (Options{}).Validate(); err != nil {
		t.Errorf("zero options: %v", err)
	}
	if err := (Options{Width: 4, SketchSize: 128}).Validate(); err != nil {
		t.Errorf("default options: %v", err)
	}
	err := Options{Width: -1, SketchSize: MaxSketchSize + 1}.Validate()
	if err == nil {
		t.Fatal("bad options accepted")
	}
	for _, want := range []string{"shingle.width = -1", "shingle.sketch_size = 4097"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error %q does not mention %q", err, want)
		}
	}
	s := Compute("a b c", Options{Width: 1000, SketchSize: -5})
	if s.Width != MaxWidth || s.K != DefaultSketchSize {
		t.Errorf("out-of-range options not clamped: width %d, k %d", s.Width, s.K)
	}
}

func TestSimHashCountsMajorities(t *testing.T) {
	for _, tc := range []struct {
		name   string
		hashes []uint64
		want   uint64
	}{
		{"no members", nil, 0},
		{"one member is itself", []uint64{0xdeadbeef}, 0xdeadbeef},
		{"a tie clears the bit", []uint64{1, 2}, 0},
		{"the majority wins per bit", []uint64{0b0111, 0b0011, 0b1001}, 0b0011},
		{"high bits count", []uint64{1 << 63, 1<<63 | 1, 1 << 62}, 1 << 63},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := simHash(tc.hashes); got != tc.want {
				t.Fatalf("simHash = %#x, want %#x", got, tc.want)
			}
		})
	}
	// Against a plain per-bit vote over many members.
	r := rand.New(rand.NewPCG(1, 2))
	hs := make([]uint64, 1001)
	for i := range hs {
		for bit := range 64 {
			p := 0.45 + 0.1*float64(bit%2) // even bits lose, odd bits win the vote
			if bit%3 == 0 {
				p = 0.5 // close calls
			}
			if r.Float64() < p {
				hs[i] |= 1 << bit
			}
		}
	}
	var want uint64
	for i := range 64 {
		n := 0
		for _, h := range hs {
			n += int(h >> i & 1)
		}
		if 2*n > len(hs) {
			want |= 1 << i
		}
	}
	if got := simHash(hs); got != want {
		t.Fatalf("simHash = %#x, plain vote %#x", got, want)
	}
}
