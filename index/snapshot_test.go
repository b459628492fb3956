package index

import (
	"errors"
	"slices"
	"testing"
	"time"
)

func TestSnapshotRoundTrip(t *testing.T) {
	cases := []snapshot{
		{generation: 1, workload: 2, fetched: time.Date(2023, 2, 6, 1, 2, 3, 4, time.UTC), length: 0},
		{generation: 1<<64 - 1, workload: 7, fetched: time.Unix(0, 0).UTC(), length: 812,
			terms: []termScore{{id: 0, tf: 1}, {id: 3, tf: 9}, {id: 4, tf: 1}, {id: 1000, tf: 300}, {id: 1 << 20, tf: 2}}},
	}
	for _, s := range cases {
		got, err := decodeSnapshot(s.encode(nil))
		if err != nil {
			t.Fatal(err)
		}
		if got.generation != s.generation || got.workload != s.workload || !got.fetched.Equal(s.fetched) ||
			got.length != s.length || !slices.Equal(got.terms, s.terms) && len(s.terms) > 0 {
			t.Fatalf("round trip: %+v, want %+v", got, s)
		}
	}
}

func TestSnapshotRejectsCorruption(t *testing.T) {
	good := (&snapshot{generation: 1, workload: 2, fetched: time.Unix(5, 0), length: 9, terms: []termScore{{id: 1, tf: 1}, {id: 2, tf: 1}}}).encode(nil)
	cases := map[string][]byte{
		"empty":          nil,
		"wrong format":   append([]byte{9}, good[1:]...),
		"truncated":      good[:len(good)-1],
		"trailing bytes": append(slices.Clone(good), 0),
	}
	for name, b := range cases {
		if _, err := decodeSnapshot(b); !errors.Is(err, errSnapshotCorrupt) {
			t.Errorf("%s: err = %v, want errSnapshotCorrupt", name, err)
		}
	}
}

func FuzzDecodeSnapshot(f *testing.F) {
	f.Add((&snapshot{generation: 1, workload: 2, length: 3, terms: []termScore{{id: 5, tf: 2}}}).encode(nil))
	f.Fuzz(func(t *testing.T, b []byte) {
		s, err := decodeSnapshot(b)
		if err != nil {
			return
		}
		if !slices.IsSortedFunc(s.terms, func(a, b termScore) int { return int(a.id - b.id) }) {
			t.Fatalf("decoded an inconsistent snapshot %+v", s)
		}
		again, err := decodeSnapshot(s.encode(nil))
		if err != nil || again.length != s.length || !slices.Equal(again.terms, s.terms) {
			t.Fatalf("re-encode: %+v, %v", again, err)
		}
	})
}
