package archive

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"strings"
)

// hashLen is the length of a manifest hash: 16 hex digits, the first 8
// bytes of the body's SHA-256.
const hashLen = 16

// maxManifestLine bounds one manifest line, which holds a URL path and
// five short fields: the real archives' longest is 229 bytes. It keeps a
// damaged line from being decoded, and quoted in the error, whole.
const maxManifestLine = 16 << 10

// interval is one manifest line, packed: the page urls[url] had the body
// blob[off:off+n] in weeks first..last inclusive. 16 bytes per interval;
// the hash lives in index.hashes at the interval's position.
type interval struct {
	off   uint32
	n     uint32
	url   int32
	first uint16
	last  uint16
}

func (iv interval) covers(week int) bool {
	return int(iv.first) <= week && week <= int(iv.last)
}

// index is the parsed manifest.
type index struct {
	urls   []string   // distinct URLs in manifest order (sorted)
	start  []int32    // intervals of urls[i] are ivs[start[i]:start[i+1]]
	ivs    []interval // manifest order: by URL, then first week
	hashes string     // hashLen hex digits per interval, in manifest order
	counts []int32    // pages per week
}

// manifestLine is one decoded manifest line. Numeric fields start at -1 so
// that a missing field is told apart from a zero.
type manifestLine struct {
	URL   string `json:"url"`
	First int    `json:"first"`
	Last  int    `json:"last"`
	Hash  string `json:"hash"`
	Off   int64  `json:"off"`
	Len   int64  `json:"len"`
}

// parseManifest decodes and validates the decompressed manifest against the
// number of weeks and the length of the decompressed blob stream. Every
// rule of the format is checked; the first violation is returned with its
// 1-based line number.
func parseManifest(data []byte, weeks int, blobLen int) (*index, error) {
	n := bytes.Count(data, []byte{'\n'}) + 1
	ix := &index{
		ivs:    make([]interval, 0, n),
		counts: make([]int32, weeks),
	}
	var hashes strings.Builder
	hashes.Grow(n * hashLen)
	var prev manifestLine
	for lineNo := 1; len(data) > 0; lineNo++ {
		line, rest, _ := bytes.Cut(data, []byte{'\n'})
		data = rest
		if len(line) == 0 {
			return nil, corruptf("line %d: empty line", lineNo)
		}
		if len(line) > maxManifestLine {
			return nil, corruptf("line %d: %d bytes, over the %d a manifest line may be", lineNo, len(line), maxManifestLine)
		}
		l := manifestLine{First: -1, Last: -1, Off: -1, Len: -1}
		if err := json.Unmarshal(line, &l); err != nil {
			return nil, corruptf("line %d: %w", lineNo, err)
		}
		if err := l.check(lineNo, weeks, blobLen); err != nil {
			return nil, err
		}
		if len(ix.ivs) == math.MaxInt32 {
			return nil, corruptf("line %d: more than %d intervals", lineNo, math.MaxInt32)
		}
		if len(ix.ivs) > 0 {
			switch c := strings.Compare(l.URL, prev.URL); {
			case c < 0:
				return nil, corruptf("line %d: url %q sorts before the previous line's %q", lineNo, l.URL, prev.URL)
			case c == 0 && l.First <= prev.First:
				return nil, corruptf("line %d: url %q: interval starting at week %d is not after the previous one starting at week %d", lineNo, l.URL, l.First, prev.First)
			case c == 0 && l.First <= prev.Last:
				return nil, corruptf("line %d: url %q: interval [%d, %d] overlaps [%d, %d]", lineNo, l.URL, l.First, l.Last, prev.First, prev.Last)
			case c == 0:
				l.URL = prev.URL // share the string of the URL's first line
			}
		}
		if len(ix.urls) == 0 || l.URL != prev.URL {
			ix.urls = append(ix.urls, l.URL)
			ix.start = append(ix.start, int32(len(ix.ivs)))
		}
		ix.ivs = append(ix.ivs, interval{
			off:   uint32(l.Off),
			n:     uint32(l.Len),
			url:   int32(len(ix.urls) - 1),
			first: uint16(l.First),
			last:  uint16(l.Last),
		})
		hashes.WriteString(l.Hash)
		for w := l.First; w <= l.Last; w++ {
			ix.counts[w]++
		}
		prev = l
	}
	ix.start = append(ix.start, int32(len(ix.ivs)))
	ix.hashes = hashes.String()
	return ix, nil
}

// check validates the fields of one line on their own.
func (l *manifestLine) check(lineNo, weeks, blobLen int) error {
	switch {
	case l.URL == "":
		return corruptf(`line %d: "url" is missing or empty`, lineNo)
	case l.Hash == "":
		return corruptf(`line %d: "hash" is missing or empty`, lineNo)
	case l.First < 0:
		return corruptf(`line %d: "first" is missing or negative`, lineNo)
	case l.Last < 0:
		return corruptf(`line %d: "last" is missing or negative`, lineNo)
	case l.Off < 0:
		return corruptf(`line %d: "off" is missing or negative`, lineNo)
	case l.Len < 0:
		return corruptf(`line %d: "len" is missing or negative`, lineNo)
	}
	if p := pathProblem(l.URL); p != "" {
		return corruptf("line %d: url %q: %s", lineNo, l.URL, p)
	}
	if !isHash(l.Hash) {
		return corruptf("line %d: hash %q: must be %d lowercase hex digits", lineNo, l.Hash, hashLen)
	}
	if l.First > l.Last {
		return corruptf("line %d: url %q: first week %d is after last week %d", lineNo, l.URL, l.First, l.Last)
	}
	if l.Last >= weeks {
		return corruptf("line %d: url %q: last week %d is outside [0, %d)", lineNo, l.URL, l.Last, weeks)
	}
	if l.Off > int64(blobLen) || l.Len > int64(blobLen)-l.Off {
		return corruptf("line %d: url %q: body [%d, %d+%d) is outside the %d byte blob stream", lineNo, l.URL, l.Off, l.Off, l.Len, blobLen)
	}
	return nil
}

// isHash reports whether s is hashLen lowercase hex digits.
func isHash(s string) bool {
	if len(s) != hashLen {
		return false
	}
	for i := range len(s) {
		if !isLowerHex(s[i]) {
			return false
		}
	}
	return true
}

func isLowerHex(c byte) bool { return '0' <= c && c <= '9' || 'a' <= c && c <= 'f' }

func isHex(c byte) bool { return isLowerHex(c) || 'A' <= c && c <= 'F' }

// pathProblem says what is wrong with u as an absolute, escaped URL path
// ("" if nothing). RFC 3986 §3.3 allows pchar and "/", with well-formed %XX
// escapes; a request made from an href carrying such a u arrives with
// exactly u as its escaped path. Query strings and fragments are not part
// of the format.
func pathProblem(u string) string {
	if u[0] != '/' {
		return "must start with /"
	}
	for i := 0; i < len(u); i++ {
		c := u[i]
		switch {
		case c == '%':
			if i+2 >= len(u) || !isHex(u[i+1]) || !isHex(u[i+2]) {
				return "malformed percent escape"
			}
			i += 2
		case 'a' <= c && c <= 'z', 'A' <= c && c <= 'Z', '0' <= c && c <= '9':
		case strings.IndexByte("/-._~!$&'()*+,;=:@", c) >= 0:
		default:
			return fmt.Sprintf("byte %q must be percent-encoded", c)
		}
	}
	return ""
}
