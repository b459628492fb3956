package web

import (
	"bytes"
	"encoding/json"
	"math"
	"math/rand/v2"
	"slices"
	"testing"
	"time"
)

// encodingJSON is what writeJSON writes for v.
func encodingJSON(t *testing.T, v any) []byte {
	t.Helper()
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(true)
	if err := enc.Encode(v); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// TestSearchJSONIsEncodingJSON checks appendJSON against encoding/json on
// responses with every kind of value the fields can hold: strings with
// HTML, control characters, invalid UTF-8 and line separators; floats
// across the exponent cutoffs; times in zones and with nanoseconds; nil
// and empty lists; the omitempty fields set and not.
func TestSearchJSONIsEncodingJSON(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	pieces := []string{"a", "Zz 9", "<mark>", "</mark>", "&amp;", ">", `"`, `\`, "\n", "\r", "\t", "\b", "\f", "\x00", "\x1f", "\x7f",
		"é", "…", "日本", "\u2028", "\u2029", "\xff", "\xe2\x80", "😀", "/", "'", " "}
	str := func() string {
		var b []byte
		for range rng.IntN(12) {
			b = append(b, pieces[rng.IntN(len(pieces))]...)
		}
		return string(b)
	}
	floats := []float64{0, math.Copysign(0, -1), 1, -1, 0.5, 1e-6, 9.99e-7, 1e-7, 1.5e-300, 1e20, 1e21, 123456789.123, -2.5e-9, 13.0625, math.MaxFloat64, math.SmallestNonzeroFloat64, 0.1 + 0.2}
	float := func() float64 {
		if rng.IntN(3) == 0 {
			return rng.NormFloat64() * math.Pow(10, float64(rng.IntN(40)-20))
		}
		return floats[rng.IntN(len(floats))]
	}
	zones := []*time.Location{time.UTC, time.FixedZone("x", -7*3600-30*60), time.FixedZone("y", 13*3600+45*60)}
	when := func() time.Time {
		switch rng.IntN(4) {
		case 0:
			return time.Time{}
		case 1:
			return time.Unix(rng.Int64N(4e9), 0).In(zones[rng.IntN(len(zones))])
		}
		return time.Unix(rng.Int64N(4e9), rng.Int64N(1e9)).In(zones[rng.IntN(len(zones))])
	}
	for n := range 500 {
		res := Response{Query: str(), Total: rng.Uint64() >> rng.IntN(64), TotalExact: rng.IntN(2) == 0, Pageable: rng.IntN(300),
			TookMS: float(), Page: rng.IntN(30), Size: rng.IntN(100), Took: time.Duration(rng.Int64())}
		if n%7 != 0 {
			res.Results = []Result{}
		}
		for range rng.IntN(12) {
			r := Result{URL: str(), Title: str(), Snippet: str(), SnippetText: str(), Score: float(), FetchedAt: when(),
				Promoted: rng.IntN(3) == 0}
			if rng.IntN(2) == 0 {
				r.ClickURL = str()
			}
			if k := rng.IntN(4); k > 0 {
				r.Highlights = make([]Span, k-1)
				for i := range r.Highlights {
					r.Highlights[i] = Span{Start: rng.IntN(1000) - 10, End: rng.IntN(1000)}
				}
			}
			if k := rng.IntN(4); k > 0 {
				r.MatchedTerms = make([]string, k-1)
				for i := range r.MatchedTerms {
					r.MatchedTerms[i] = str()
				}
			}
			res.Results = append(res.Results, r)
		}
		switch rng.IntN(3) {
		case 1:
			res.Ads = []Ad{}
		case 2:
			for range 1 + rng.IntN(3) {
				res.Ads = append(res.Ads, Ad{Title: str(), Text: str(), URL: str(), ClickURL: str()})
			}
		}
		switch rng.IntN(3) {
		case 1:
			res.Partial = []string{}
		case 2:
			for range 1 + rng.IntN(3) {
				res.Partial = append(res.Partial, str())
			}
		}
		got, ok := res.appendJSON(nil, 0)
		want := encodingJSON(t, res)
		if !ok || !bytes.Equal(got, want) {
			t.Fatalf("response %d (ok %v):\n got %s\nwant %s", n, ok, got, want)
		}
		fields := ResultFields(rng.IntN(int(allResultFields)) + 1)
		part, ok := res.appendJSON(nil, fields)
		if !ok {
			t.Fatalf("response %d, fields %b: not ok", n, fields)
		}
		checkFieldsOf(t, part, want, fields)
	}
}

// checkFieldsOf checks that part is the response whole is, with only
// fields of each result: the same keys in the same order, the same bytes.
func checkFieldsOf(t *testing.T, part, whole []byte, fields ResultFields) {
	t.Helper()
	type response struct {
		Results []json.RawMessage `json:"results"`
	}
	var p, w response
	if err := json.Unmarshal(part, &p); err != nil {
		t.Fatalf("fields %b: %v in %s", fields, err, part)
	}
	if err := json.Unmarshal(whole, &w); err != nil {
		t.Fatal(err)
	}
	if rest := func(b []byte, results []json.RawMessage) string {
		for _, r := range results {
			b = bytes.Replace(b, r, nil, 1)
		}
		return string(b)
	}; rest(part, p.Results) != rest(whole, w.Results) {
		t.Fatalf("fields %b: the response around the results differs:\n got %s\nwant %s", fields, part, whole)
	}
	if len(p.Results) != len(w.Results) {
		t.Fatalf("fields %b: %d results, want %d", fields, len(p.Results), len(w.Results))
	}
	for i := range w.Results {
		var want []string // key:value, in order, of the fields asked for
		dec := json.NewDecoder(bytes.NewReader(w.Results[i]))
		for k, v := range members(t, dec) {
			at := slices.Index(resultFieldNames[:], k)
			if at < 0 {
				t.Fatalf("result key %q is not a ResultFields name", k)
			}
			if fields&(1<<at) != 0 {
				want = append(want, k+":"+string(v))
			}
		}
		var got []string
		for k, v := range members(t, json.NewDecoder(bytes.NewReader(p.Results[i]))) {
			got = append(got, k+":"+string(v))
		}
		if !slices.Equal(got, want) {
			t.Fatalf("fields %b, result %d:\n got %q\nwant %q", fields, i, got, want)
		}
	}
}

// members yields the keys and raw values of the JSON object dec reads.
func members(t *testing.T, dec *json.Decoder) func(yield func(string, json.RawMessage) bool) {
	return func(yield func(string, json.RawMessage) bool) {
		if tok, err := dec.Token(); err != nil || tok != json.Delim('{') {
			t.Fatalf("not an object: %v %v", tok, err)
		}
		for dec.More() {
			tok, err := dec.Token()
			if err != nil {
				t.Fatal(err)
			}
			var v json.RawMessage
			if err := dec.Decode(&v); err != nil {
				t.Fatal(err)
			}
			if !yield(tok.(string), v) {
				return
			}
		}
	}
}

// TestSearchJSONDefersWhatEncodingJSONRefuses checks that a value
// encoding/json refuses is left to it.
func TestSearchJSONDefersWhatEncodingJSONRefuses(t *testing.T) {
	for _, res := range []Response{
		{TookMS: math.NaN()},
		{Results: []Result{{Score: math.Inf(1)}}},
		{Results: []Result{{FetchedAt: time.Date(10000, 1, 1, 0, 0, 0, 0, time.UTC)}}},
		{Results: []Result{{FetchedAt: time.Date(-1, 1, 1, 0, 0, 0, 0, time.UTC)}}},
	} {
		if _, ok := res.appendJSON(nil, 0); ok {
			t.Errorf("appendJSON accepted %+v", res)
		}
	}
	// A value not written is not judged.
	res := Response{Results: []Result{{Score: math.Inf(1), FetchedAt: time.Date(10000, 1, 1, 0, 0, 0, 0, time.UTC)}}}
	if b, ok := res.appendJSON(nil, FieldURL|FieldTitle); !ok {
		t.Errorf("appendJSON without score and fetch time refused %+v", res)
	} else if !json.Valid(b) {
		t.Errorf("appendJSON wrote %s", b)
	}
}

// TestJSONStringIsEncodingJSON checks appendJSONString against
// encoding/json with every byte, and with each byte that needs escaping
// (or a multi-byte character, whole or cut) at every offset of a plain
// string, alone and doubled.
func TestJSONStringIsEncodingJSON(t *testing.T) {
	var strs []string
	for c := range 256 {
		strs = append(strs, string(rune(c)), string([]byte{byte(c)}))
	}
	specials := []string{`"`, `\`, "<", ">", "&", "\x00", "\x1f", "\n", "\x7f", "\x80", "\xff", "é", "\u2028", "\u2029", "😀", "\xe2\x80", "!", "=", "?", "'", "%", "[", "]", "^", "~", "|", "$", "'"}
	const plain = "abcdefghijklmnopqrstuvwxyz ABCDEFGHIJ 0123456789 /.,:;-_+=*"
	for _, sp := range specials {
		for i := 0; i <= 24; i++ {
			strs = append(strs, plain[:i]+sp+plain[i:], plain[:i]+sp+sp+plain, plain[:i]+sp)
		}
	}
	for _, s := range strs {
		want := encodingJSON(t, s)
		got := append(appendJSONString(nil, s), '\n')
		if !bytes.Equal(got, want) {
			t.Errorf("%q:\n got %s\nwant %s", s, got, want)
		}
	}
}
