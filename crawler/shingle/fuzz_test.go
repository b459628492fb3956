package shingle

import (
	"reflect"
	"testing"
)

func FuzzCompute(f *testing.F) {
	f.Add("Hello, World! This is a page about things.", "Hello, World! This is a page about other things.", uint8(4), uint16(128))
	f.Add("", "x", uint8(0), uint16(0))
	f.Add("Ünïcödé\xff\xfe wörds 123", "ünïcödé wörds 124", uint8(1), uint16(2))
	f.Fuzz(func(t *testing.T, a, b string, width uint8, k uint16) {
		opts := Options{Width: int(width % 70), SketchSize: int(k % 5000)}
		sa, sb := Compute(a, opts), Compute(b, opts)
		if d := Difference(sa, sa); d != 0 {
			t.Fatalf("Difference(s, s) = %v", d)
		}
		d := Difference(sa, sb)
		if d < 0 || d > 1 || d != Difference(sb, sa) {
			t.Fatalf("Difference = %v, reversed %v", d, Difference(sb, sa))
		}
		if a == b && d != 0 {
			t.Fatalf("equal texts differ by %v", d)
		}
		buf, err := sa.MarshalBinary()
		if err != nil {
			t.Fatal(err)
		}
		var back Signature
		if err := back.UnmarshalBinary(buf); err != nil {
			t.Fatal(err)
		}
		if len(back.Sketch) == 0 && len(sa.Sketch) == 0 {
			back.Sketch = sa.Sketch
		}
		if !reflect.DeepEqual(back, sa) {
			t.Fatalf("round trip: got %+v, want %+v", back, sa)
		}
	})
}

func FuzzUnmarshal(f *testing.F) {
	for _, text := range []string{"", "one", "one two three four five", page(1, 300)} {
		b, err := Compute(text, Options{}).MarshalBinary()
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b)
	}
	f.Add([]byte{1, 4, 0x80, 0x01, 3})
	f.Fuzz(func(t *testing.T, data []byte) {
		var s Signature
		if err := s.UnmarshalBinary(data); err != nil {
			return
		}
		b, err := s.MarshalBinary()
		if err != nil {
			t.Fatalf("a decoded signature does not encode: %v", err)
		}
		var again Signature
		if err := again.UnmarshalBinary(b); err != nil || !reflect.DeepEqual(again, s) {
			t.Fatalf("re-encoding changed the signature: %v", err)
		}
		if d := Difference(s, s); d != 0 {
			t.Fatalf("Difference(s, s) = %v", d)
		}
	})
}
