package shingle

import (
	"bytes"
	"errors"
	"reflect"
	"testing"
)

func TestMarshalRoundTrip(t *testing.T) {
	for _, tc := range []struct {
		name string
		text string
		opts Options
	}{
		{"a full page", page(40, 600), Options{}},
		{"a short text", "hello world", Options{}},
		{"an empty text", "", Options{}},
		{"a large sketch", page(41, 5000), Options{Width: 3, SketchSize: MaxSketchSize}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := Compute(tc.text, tc.opts)
			b, err := s.MarshalBinary()
			if err != nil {
				t.Fatal(err)
			}
			if max := 32 + 10*len(s.Sketch); len(b) > max {
				t.Errorf("%d bytes, more than the documented %d", len(b), max)
			}
			var got Signature
			if err := got.UnmarshalBinary(b); err != nil {
				t.Fatal(err)
			}
			if got.Sketch == nil {
				got.Sketch = []uint64{}
			}
			if s.Sketch == nil {
				s.Sketch = []uint64{}
			}
			if !reflect.DeepEqual(got, s) {
				t.Fatalf("round trip changed the signature:\n got %+v\nwant %+v", got, s)
			}
		})
	}
}

func TestUnmarshalRejects(t *testing.T) {
	good, err := Compute("one two three four five six", Options{}).MarshalBinary()
	if err != nil {
		t.Fatal(err)
	}
	mutate := func(f func(b []byte) []byte) []byte { return f(bytes.Clone(good)) }
	for _, tc := range []struct {
		name string
		data []byte
	}{
		{"empty input", nil},
		{"an unknown version", mutate(func(b []byte) []byte { b[0] = 2; return b })},
		{"a zero width", mutate(func(b []byte) []byte { b[1] = 0; return b })},
		{"a truncated input", good[:len(good)-1]},
		{"a truncated header", good[:10]},
		{"trailing bytes", append(bytes.Clone(good), 0)},
		{"a repeated hash", append(good[:len(good)-3:len(good)-3], 1, 0, 1)},
		{"a bad varint", append(good[:1:1], 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff)},
		{"a sketch length that does not match", mutate(func(b []byte) []byte { b[21] = 5; return b })}, // version, width, k (2), count, 16 fixed, n
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := Signature{Count: -7}
			err := s.UnmarshalBinary(tc.data)
			if !errors.Is(err, ErrCorrupt) {
				t.Fatalf("UnmarshalBinary: err = %v, want ErrCorrupt", err)
			}
			if s.Count != -7 {
				t.Fatal("a failed UnmarshalBinary changed the signature")
			}
		})
	}
}

func TestMarshalRejectsInconsistentSignatures(t *testing.T) {
	for _, tc := range []struct {
		name string
		s    Signature
	}{
		{"the zero signature", Signature{}},
		{"a sketch too short", Signature{Width: 4, K: 2, Count: 5, Sketch: []uint64{1}}},
		{"a sketch not ascending", Signature{Width: 4, K: 2, Count: 5, Sketch: []uint64{2, 1}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if _, err := tc.s.MarshalBinary(); err == nil {
				t.Fatal("MarshalBinary accepted it")
			}
		})
	}
}
