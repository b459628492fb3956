package synthweb

import (
	"bytes"
	"math"
	"math/rand/v2"
	"slices"
	"sort"
)

// Zipf–Mandelbrot law over the vocabulary order: weight(rank) ∝ 1/(rank+q)^s.
// s = 1 is the classic Zipf exponent of English; q flattens the head a little
// so "the" is about 7 % of words rather than 12 %.
const (
	zipfExponent = 1.0
	zipfShift    = 2.7
	// contentRank: words ranked below it are function words; titles,
	// slugs and queries use only words at or after it.
	contentRank = 250
	// topicRank: site topic words are drawn uniformly from the rarer part
	// of the list, so a query for one has focused answers.
	topicRank = 1000
	// topicWordProb is the chance that a body word is one of the page's topic
	// words instead of a Zipf draw.
	topicWordProb = 0.07
)

// vocabulary samples word ids (indexes into words) by the Zipf law.
type vocabulary struct {
	cum []float64 // cum[i] = Σ_{j≤i} weight(j)
}

func newVocabulary() *vocabulary {
	v := &vocabulary{cum: make([]float64, len(words))}
	total := 0.0
	for i := range words {
		total += 1 / math.Pow(float64(i+1)+zipfShift, zipfExponent)
		v.cum[i] = total
	}
	return v
}

// draw returns the id of a word with rank ≥ from.
func (v *vocabulary) draw(r *rand.Rand, from int) int {
	lo := 0.0
	if from > 0 {
		lo = v.cum[from-1]
	}
	u := lo + r.Float64()*(v.cum[len(v.cum)-1]-lo)
	i := sort.SearchFloat64s(v.cum, u)
	if i >= len(v.cum) {
		i = len(v.cum) - 1
	}
	return i
}

// topic draws a topic word uniformly from ranks ≥ topicRank.
func (v *vocabulary) topic(r *rand.Rand) int { return topicRank + r.IntN(len(v.cum)-topicRank) }

// word draws any word; content draws a content word.
func (v *vocabulary) word(r *rand.Rand) int    { return v.draw(r, 0) }
func (v *vocabulary) content(r *rand.Rand) int { return v.draw(r, contentRank) }

// writeCapital writes w with its first letter upper-cased (words are ASCII).
func writeCapital(b *bytes.Buffer, w string) {
	b.WriteByte(w[0] - 'a' + 'A')
	b.WriteString(w[1:])
}

// sentence writes one sentence of 7–18 words; topics, when non-empty, are
// mixed in so the page is about something.
func (v *vocabulary) sentence(b *bytes.Buffer, r *rand.Rand, topics []int) {
	n := 7 + r.IntN(12)
	comma := -1
	if r.IntN(3) == 0 {
		comma = 2 + r.IntN(n-3)
	}
	prev := -1
	for i := range n {
		var id int
		if len(topics) > 0 && r.Float64() < topicWordProb {
			id = topics[r.IntN(len(topics))]
		} else {
			id = v.word(r)
		}
		if id == prev {
			id = v.content(r)
		}
		prev = id
		if i == 0 {
			writeCapital(b, words[id])
		} else {
			b.WriteByte(' ')
			b.WriteString(words[id])
		}
		if i == comma {
			b.WriteByte(',')
		}
	}
	if r.IntN(20) == 0 {
		b.WriteByte('?')
	} else {
		b.WriteByte('.')
	}
}

// paragraph writes 3–6 sentences.
func (v *vocabulary) paragraph(b *bytes.Buffer, r *rand.Rand, topics []int) {
	n := 3 + r.IntN(4)
	for i := range n {
		if i > 0 {
			b.WriteByte(' ')
		}
		v.sentence(b, r, topics)
	}
}

// title returns 3–6 distinct content words, with must (if ≥ 0) among them.
func (v *vocabulary) title(r *rand.Rand, must int) []int {
	n := 3 + r.IntN(4)
	ids := make([]int, 0, n)
	at := -1
	if must >= 0 {
		at = r.IntN(n)
	}
	for len(ids) < n {
		id := v.content(r)
		if len(ids) == at {
			id = must
		}
		if slices.Contains(ids, id) || (id == must && len(ids) != at) {
			continue
		}
		ids = append(ids, id)
	}
	return ids
}

// writeTitle writes ids in title case.
func writeTitle(b *bytes.Buffer, ids []int) {
	for i, id := range ids {
		if i > 0 {
			b.WriteByte(' ')
		}
		writeCapital(b, words[id])
	}
}

func titleString(ids []int) string {
	var b bytes.Buffer
	writeTitle(&b, ids)
	return b.String()
}
