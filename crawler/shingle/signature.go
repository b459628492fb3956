package shingle

import (
	"crypto/sha256"
	"encoding/binary"
	"errors"
	"fmt"
	"slices"
	"unicode"
	"unicode/utf8"
)

const (
	// DefaultWidth is w, the words per shingle, used when Options.Width is
	// zero. Four words make a changed word alter at most four shingles while
	// keeping common phrases rare enough to tell pages apart.
	DefaultWidth = 4
	// DefaultSketchSize is k, the sketch size, used when Options.SketchSize
	// is zero: a standard error of at most 0.045 for about 1 KiB per page.
	DefaultSketchSize = 128
	// MaxWidth and MaxSketchSize bound the options, and what UnmarshalBinary
	// accepts.
	MaxWidth      = 64
	MaxSketchSize = 4096
)

// Options choose the shingle width and the sketch size. Zero fields take
// the defaults. Signatures are comparable only when computed with the same
// Width; with different SketchSize the smaller one is used.
type Options struct {
	// Width is w, words per shingle; 0 means DefaultWidth.
	Width int `mapstructure:"width"`
	// SketchSize is k, the shingle hashes kept; 0 means DefaultSketchSize.
	SketchSize int `mapstructure:"sketch_size"`
}

// Validate reports every option out of range, naming its key.
func (o Options) Validate() error {
	var errs []error
	if o.Width < 0 || o.Width > MaxWidth {
		errs = append(errs, fmt.Errorf("shingle.width = %d: must be in [0, %d] (0 = %d)", o.Width, MaxWidth, DefaultWidth))
	}
	if o.SketchSize < 0 || o.SketchSize > MaxSketchSize {
		errs = append(errs, fmt.Errorf("shingle.sketch_size = %d: must be in [0, %d] (0 = %d)", o.SketchSize, MaxSketchSize, DefaultSketchSize))
	}
	return errors.Join(errs...)
}

// resolved returns the options with defaults filled in and values clamped
// to their bounds, so that Compute never fails.
func (o Options) resolved() (width, k int) {
	width, k = o.Width, o.SketchSize
	if width <= 0 {
		width = DefaultWidth
	}
	if k <= 0 {
		k = DefaultSketchSize
	}
	return min(width, MaxWidth), min(k, MaxSketchSize)
}

// Signature summarizes the shingles of one text. The zero Signature is the
// signature of nothing; it differs from the signature of an empty text only
// in Exact.
type Signature struct {
	// Width is w, the words per shingle.
	Width int
	// K is the sketch capacity.
	K int
	// Count is the number of distinct shingles in the text.
	Count int
	// Sketch holds the min(K, Count) smallest distinct shingle hashes,
	// strictly ascending.
	Sketch []uint64
	// SimHash is the 64-bit SimHash (Charikar 2002) of the shingle set.
	SimHash uint64
	// Exact is the first 64 bits (big-endian) of the SHA-256 of the text.
	Exact uint64
}

// Compute returns the signature of text. Zero options take the defaults;
// out-of-range options are clamped (Options.Validate reports them).
func Compute(text string, opts Options) Signature {
	width, k := opts.resolved()
	hashes := shingles(text, width)
	slices.Sort(hashes)
	hashes = slices.Compact(hashes)
	s := Signature{
		Width:   width,
		K:       k,
		Count:   len(hashes),
		SimHash: simHash(hashes),
		Exact:   exactHash(text),
	}
	s.Sketch = slices.Clip(hashes[:min(k, len(hashes))])
	if cap(hashes) > 2*len(s.Sketch)+64 {
		s.Sketch = slices.Clone(s.Sketch) // do not pin the whole array
	}
	return s
}

func exactHash(text string) uint64 {
	sum := sha256.Sum256([]byte(text))
	return binary.BigEndian.Uint64(sum[:8])
}

// shingles returns the hash of every w-shingle of text, duplicates
// included. A text of fewer than w words is one shingle; a text without
// words has none.
func shingles(text string, width int) []uint64 {
	words := make([]uint64, 0, len(text)/6+1)
	h, inWord := uint64(fnvOffset), false
	for i := 0; i < len(text); {
		c := text[i]
		if c < utf8.RuneSelf {
			// ASCII fast path: one table lookup per byte.
			i++
			if l := asciiWord[c]; l != 0 {
				h, inWord = (h^uint64(l))*fnvPrime, true
				continue
			}
		} else {
			r, n := utf8.DecodeRuneInString(text[i:])
			i += n
			if unicode.IsLetter(r) || unicode.IsDigit(r) {
				h, inWord = fnvRune(h, r), true
				continue
			}
		}
		if inWord {
			words = append(words, h)
			h, inWord = fnvOffset, false
		}
	}
	if inWord {
		words = append(words, h)
	}
	if len(words) == 0 {
		return nil
	}
	if len(words) < width {
		width = len(words)
	}
	out := words[:0] // shingle i only reads words[i:i+width], never earlier
	for i := 0; i+width <= len(words); i++ {
		out = append(out, combine(words[i:i+width]))
	}
	return out
}

// asciiWord maps an ASCII letter or digit to its lowercase form and every
// other byte to 0. Read-only after initialization.
var asciiWord = func() (t [utf8.RuneSelf]byte) {
	for c := byte('0'); c <= '9'; c++ {
		t[c] = c
	}
	for c := byte('a'); c <= 'z'; c++ {
		t[c] = c
		t[c-'a'+'A'] = c
	}
	return t
}()
