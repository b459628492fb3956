package web

import (
	"math"
	"math/bits"
	"strconv"
	"time"
	"unicode/utf8"
)

// This file writes the search API's Response as encoding/json with HTML
// escaping writes it, byte for byte (TestSearchJSONIsEncodingJSON), without
// reflection: the answer to every search is encoded, and reflection over
// its ten results with their spans and times cost as much as ranking them.
// A value encoding/json would refuse (a non-finite float, a time outside
// years 0–9999) makes appendJSON report false, and the caller falls back to
// encoding/json, which then behaves as it always did.

// appendJSON appends r's JSON encoding, with fields of each result, and a
// newline (as json.Encoder writes it) to b; ok is false when r holds a
// value only encoding/json can judge.
func (r *Response) appendJSON(b []byte, fields ResultFields) (_ []byte, ok bool) {
	ok = true
	b = append(b, `{"query":`...)
	b = appendJSONString(b, r.Query)
	b = append(b, `,"total":`...)
	b = strconv.AppendUint(b, r.Total, 10)
	b = append(b, `,"total_exact":`...)
	b = strconv.AppendBool(b, r.TotalExact)
	b = append(b, `,"pageable":`...)
	b = strconv.AppendInt(b, int64(r.Pageable), 10)
	b = append(b, `,"took_ms":`...)
	b, ok = appendJSONFloat(b, r.TookMS, ok)
	b = append(b, `,"page":`...)
	b = strconv.AppendInt(b, int64(r.Page), 10)
	b = append(b, `,"size":`...)
	b = strconv.AppendInt(b, int64(r.Size), 10)
	b = append(b, `,"results":`...)
	b = appendJSONArray(b, r.Results, func(b []byte, res *Result) []byte {
		b, ok = res.appendJSON(b, fields, ok)
		return b
	})
	if len(r.Ads) > 0 {
		b = append(b, `,"ads":`...)
		b = appendJSONArray(b, r.Ads, func(b []byte, a *Ad) []byte {
			b = append(b, `{"title":`...)
			b = appendJSONString(b, a.Title)
			b = append(b, `,"text":`...)
			b = appendJSONString(b, a.Text)
			b = append(b, `,"url":`...)
			b = appendJSONString(b, a.URL)
			b = append(b, `,"click_url":`...)
			b = appendJSONString(b, a.ClickURL)
			return append(b, '}')
		})
	}
	if len(r.Partial) > 0 {
		b = append(b, `,"partial":`...)
		b = appendJSONArray(b, r.Partial, appendJSONStringAt)
	}
	return append(b, "}\n"...), ok
}

// appendJSONArray appends xs as a JSON array, each element by elem; a
// nil slice is null, as encoding/json writes it.
func appendJSONArray[T any](b []byte, xs []T, elem func([]byte, *T) []byte) []byte {
	if xs == nil {
		return append(b, "null"...)
	}
	b = append(b, '[')
	for i := range xs {
		if i > 0 {
			b = append(b, ',')
		}
		b = elem(b, &xs[i])
	}
	return append(b, ']')
}

// appendJSONStringAt is appendJSONString for an element of a []string.
func appendJSONStringAt(b []byte, s *string) []byte { return appendJSONString(b, *s) }

// appendJSON appends one result's encoding with fields (ResultFields:
// zero is all); ok carries the caller's, cleared only by a field written.
func (r *Result) appendJSON(b []byte, fields ResultFields, ok bool) ([]byte, bool) {
	b = append(b, '{')
	// field reports whether f is wanted and then writes its key, after a
	// comma unless it is the first.
	first := true
	field := func(f ResultFields) bool {
		if !fields.Wants(f) {
			return false
		}
		if !first {
			b = append(b, ',')
		}
		first = false
		b = append(b, resultFieldKeys[bits.TrailingZeros16(uint16(f))]...)
		return true
	}
	if field(FieldURL) {
		b = appendJSONString(b, r.URL)
	}
	if field(FieldTitle) {
		b = appendJSONString(b, r.Title)
	}
	if field(FieldSnippet) {
		b = appendJSONString(b, r.Snippet)
	}
	if field(FieldSnippetText) {
		b = appendJSONString(b, r.SnippetText)
	}
	if field(FieldHighlights) {
		b = appendJSONArray(b, r.Highlights, func(b []byte, s *Span) []byte {
			b = append(b, `{"start":`...)
			b = strconv.AppendInt(b, int64(s.Start), 10)
			b = append(b, `,"end":`...)
			b = strconv.AppendInt(b, int64(s.End), 10)
			return append(b, '}')
		})
	}
	if field(FieldMatchedTerms) {
		b = appendJSONArray(b, r.MatchedTerms, appendJSONStringAt)
	}
	if field(FieldScore) {
		b, ok = appendJSONFloat(b, r.Score, ok)
	}
	if field(FieldFetchedAt) {
		b, ok = appendJSONTime(b, r.FetchedAt, ok)
	}
	if r.Promoted && field(FieldPromoted) {
		b = append(b, "true"...)
	}
	if r.ClickURL != "" && field(FieldClickURL) {
		b = appendJSONString(b, r.ClickURL)
	}
	return append(b, '}'), ok
}

// appendJSONFloat is encoding/json's float64 encoding (ES6 number form);
// a NaN or infinity clears ok.
func appendJSONFloat(b []byte, f float64, ok bool) ([]byte, bool) {
	if math.IsInf(f, 0) || math.IsNaN(f) {
		return append(b, '0'), false
	}
	format := byte('f')
	if abs := math.Abs(f); abs != 0 && (abs < 1e-6 || abs >= 1e21) {
		format = 'e'
	}
	b = strconv.AppendFloat(b, f, format, -1, 64)
	if format == 'e' {
		// e-09 → e-9, as encoding/json writes it.
		if n := len(b); n >= 4 && b[n-4] == 'e' && b[n-3] == '-' && b[n-2] == '0' {
			b[n-2] = b[n-1]
			b = b[:n-1]
		}
	}
	return b, ok
}

// appendJSONTime is time.Time's MarshalJSON (RFC 3339 with nanoseconds);
// a time it refuses (year outside 0–9999, zone offset of a day or more)
// clears ok.
func appendJSONTime(b []byte, t time.Time, ok bool) ([]byte, bool) {
	_, offset := t.Zone()
	if y := t.Year(); y < 0 || y > 9999 || offset <= -24*3600 || offset >= 24*3600 {
		return append(b, `""`...), false
	}
	b = append(b, '"')
	b = t.AppendFormat(b, time.RFC3339Nano)
	return append(b, '"'), ok
}

// jsonSafe is 1 for the bytes encoding/json (with HTML escaping) writes
// as they are: ASCII but for control characters, quotes, backslashes and
// <, >, &. A byte ≥ 0x80 is 0: its character decides.
var jsonSafe = func() (safe [256]uint8) {
	for c := range utf8.RuneSelf {
		if c >= 0x20 && c != '"' && c != '\\' && c != '<' && c != '>' && c != '&' {
			safe[c] = 1
		}
	}
	return safe
}()

// appendJSONString is encoding/json's string encoding with HTML escaping:
// quotes, backslashes and control characters escaped, <, > and & as
// \u003c, \u003e, \u0026, invalid UTF-8 as \ufffd, U+2028 and U+2029
// escaped.
func appendJSONString(b []byte, s string) []byte {
	const hex = "0123456789abcdef"
	b = append(b, '"')
	start := 0
	for i := 0; i < len(s); {
		// Eight safe bytes at a time, the AND of their marks tested once:
		// most of a page's text needs no escape, and the byte-wise loop
		// below took twice as long over it.
		for i+8 <= len(s) {
			w := s[i : i+8]
			if jsonSafe[w[0]]&jsonSafe[w[1]]&jsonSafe[w[2]]&jsonSafe[w[3]]&jsonSafe[w[4]]&jsonSafe[w[5]]&jsonSafe[w[6]]&jsonSafe[w[7]] == 0 {
				break
			}
			i += 8
		}
		if i == len(s) {
			break
		}
		if c := s[i]; c < utf8.RuneSelf {
			if jsonSafe[c] == 1 {
				i++
				continue
			}
			b = append(b, s[start:i]...)
			switch c {
			case '\\', '"':
				b = append(b, '\\', c)
			case '\b':
				b = append(b, '\\', 'b')
			case '\f':
				b = append(b, '\\', 'f')
			case '\n':
				b = append(b, '\\', 'n')
			case '\r':
				b = append(b, '\\', 'r')
			case '\t':
				b = append(b, '\\', 't')
			default:
				b = append(b, '\\', 'u', '0', '0', hex[c>>4], hex[c&0xF])
			}
			i++
			start = i
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && size == 1:
			b = append(b, s[start:i]...)
			b = append(b, `\ufffd`...)
		case r == '\u2028' || r == '\u2029':
			b = append(b, s[start:i]...)
			b = append(b, '\\', 'u', '2', '0', '2', hex[r&0xF])
		default:
			i += size
			continue
		}
		i += size
		start = i
	}
	b = append(b, s[start:]...)
	return append(b, '"')
}
