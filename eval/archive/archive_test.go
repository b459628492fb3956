package archive

import (
	"slices"
	"testing"
	"time"

	"github.com/deltaq/deltaq/eval/archive/archivetest"
)

// tiny is a hand-made archive whose change sets are known:
//
//	week      0      1      2      3
//	/         h0     h0     h1     h1
//	/a        a0     a1     -      a0     deleted in 2, back in 3
//	/b        -      b0     b0     -      created in 1, deleted in 3
//	/c%5B     a0     a0     a0     a0     shares its body with /a
var tiny = archivetest.Fixture{
	Name:  "tiny",
	Weeks: 4,
	Start: time.Date(2024, 1, 1, 0, 0, 0, 0, time.UTC),
	Intervals: []archivetest.Interval{
		{URL: "/", First: 0, Last: 1, Body: "h0\n"},
		{URL: "/", First: 2, Last: 3, Body: "h1\n"},
		{URL: "/a", First: 0, Last: 0, Body: "a0\n"},
		{URL: "/a", First: 1, Last: 1, Body: "a1\n"},
		{URL: "/a", First: 3, Last: 3, Body: "a0\n"},
		{URL: "/b", First: 1, Last: 2, Body: "b0\n"},
		{URL: "/c%5B", First: 0, Last: 3, Body: "a0\n"},
	},
}

func openTiny(t *testing.T) *Archive {
	t.Helper()
	dir := t.TempDir()
	archivetest.Write(t, dir, tiny)
	a, err := Open(dir)
	if err != nil {
		t.Fatalf("Open: %v", err)
	}
	return a
}

func TestOpenFixture(t *testing.T) {
	a := openTiny(t)

	t.Run("metadata comes from archive.json", func(t *testing.T) {
		if a.Name() != "tiny" || a.Weeks() != 4 {
			t.Fatalf("Name, Weeks = %q, %d; want tiny, 4", a.Name(), a.Weeks())
		}
		if got, want := a.Date(3), time.Date(2024, 1, 22, 0, 0, 0, 0, time.UTC); !got.Equal(want) || got.Location() != time.UTC {
			t.Fatalf("Date(3) = %v, want %v", got, want)
		}
		if !a.Date(4).IsZero() || !a.Date(-1).IsZero() {
			t.Fatalf("Date out of range is not zero")
		}
		m := a.Meta()
		if m.License != "CC0-1.0" || m.Stats.Intervals != 7 || len(m.Stats.Raw) == 0 {
			t.Fatalf("Meta() = %+v", m)
		}
		m.Weeks[0].Commit = "changed"
		if a.Meta().Weeks[0].Commit == "changed" {
			t.Fatalf("Meta() shares its Weeks slice with the archive")
		}
		if a.NumIntervals() != 7 || a.BlobSize() != 15 {
			t.Fatalf("NumIntervals, BlobSize = %d, %d; want 7, 15 (five distinct 3-byte bodies, shared ones stored once)", a.NumIntervals(), a.BlobSize())
		}
	})

	lookups := []struct {
		name string
		url  string
		week int
		body string // "" means absent
	}{
		{"a page is found in the first week of its interval", "/", 0, "h0\n"},
		{"a page is found in the last week of its interval", "/", 1, "h0\n"},
		{"the next interval gives the changed body", "/", 2, "h1\n"},
		{"a deleted page is absent in the gap", "/a", 2, ""},
		{"a page that came back has its body again", "/a", 3, "a0\n"},
		{"a page not yet created is absent", "/b", 0, ""},
		{"a percent-encoded URL is matched as written", "/c%5B", 2, "a0\n"},
		{"a decoded URL is not a manifest URL", "/c[", 2, ""},
		{"an unknown URL is absent", "/zzz", 0, ""},
		{"a negative week finds nothing", "/", -1, ""},
		{"a week past the end finds nothing", "/", 4, ""},
	}
	for _, tc := range lookups {
		t.Run(tc.name, func(t *testing.T) {
			p, ok := a.Lookup(tc.url, tc.week)
			if ok != (tc.body != "") {
				t.Fatalf("Lookup(%q, %d) ok = %v, want %v", tc.url, tc.week, ok, tc.body != "")
			}
			if !ok {
				return
			}
			if string(p.Body) != tc.body || p.URL != tc.url || p.Hash != archivetest.Hash(tc.body) {
				t.Fatalf("Lookup(%q, %d) = %+v, want body %q", tc.url, tc.week, p, tc.body)
			}
			if p.First > tc.week || p.Last < tc.week {
				t.Fatalf("interval [%d, %d] does not cover week %d", p.First, p.Last, tc.week)
			}
		})
	}

	t.Run("bodies are capacity-clipped sub-slices of one shared buffer", func(t *testing.T) {
		p, _ := a.Lookup("/a", 0)
		q, _ := a.Lookup("/c%5B", 0)
		if cap(p.Body) != len(p.Body) {
			t.Fatalf("cap(Body) = %d, want %d", cap(p.Body), len(p.Body))
		}
		if &p.Body[0] != &q.Body[0] {
			t.Fatalf("intervals sharing a body do not share its bytes")
		}
		_ = append(p.Body, 'X') // must reallocate, not overwrite the neighbour
		if r, _ := a.Lookup("/a", 1); string(r.Body) != "a1\n" {
			t.Fatalf("append to a Body overwrote the next body: %q", r.Body)
		}
	})

	t.Run("Intervals lists a URL's history in week order", func(t *testing.T) {
		var got [][2]int
		for _, p := range a.Intervals("/a") {
			got = append(got, [2]int{p.First, p.Last})
		}
		if want := [][2]int{{0, 0}, {1, 1}, {3, 3}}; !slices.Equal(got, want) {
			t.Fatalf("Intervals(/a) = %v, want %v", got, want)
		}
		if a.Intervals("/nope") != nil {
			t.Fatalf("Intervals of an unknown URL is not nil")
		}
	})

	t.Run("Week lists the week's pages sorted by URL", func(t *testing.T) {
		want := map[int][]string{
			0: {"/", "/a", "/c%5B"},
			1: {"/", "/a", "/b", "/c%5B"},
			2: {"/", "/b", "/c%5B"},
			3: {"/", "/a", "/c%5B"},
			4: nil,
		}
		for w, urls := range want {
			var got []string
			for _, p := range a.Week(w) {
				got = append(got, p.URL)
			}
			if !slices.Equal(got, urls) || a.Len(w) != len(urls) {
				t.Errorf("week %d: Week = %v, Len = %d; want %v", w, got, a.Len(w), urls)
			}
		}
	})

	t.Run("Pages stops when the loop breaks", func(t *testing.T) {
		n := 0
		for range a.Pages(1) {
			n++
			if n == 2 {
				break
			}
		}
		if n != 2 {
			t.Fatalf("iterated %d pages, want 2", n)
		}
	})

	t.Run("URLs lists every distinct URL once", func(t *testing.T) {
		if got, want := a.URLs(), []string{"/", "/a", "/b", "/c%5B"}; !slices.Equal(got, want) {
			t.Fatalf("URLs() = %v, want %v", got, want)
		}
	})

	changes := []struct {
		name string
		fn   func(int) []string
		want [][]string // by week
	}{
		{"Created follows the README definition", a.Created, [][]string{nil, {"/b"}, nil, {"/a"}}},
		{"Deleted follows the README definition", a.Deleted, [][]string{nil, nil, {"/a"}, {"/b"}}},
		{"Changed follows the README definition", a.Changed, [][]string{nil, {"/a"}, {"/"}, nil}},
	}
	for _, tc := range changes {
		t.Run(tc.name, func(t *testing.T) {
			for w, want := range tc.want {
				if got := tc.fn(w); !slices.Equal(got, want) {
					t.Errorf("week %d: got %v, want %v", w, got, want)
				}
			}
			if tc.fn(-1) != nil || tc.fn(4) != nil {
				t.Errorf("weeks out of range are not empty")
			}
		})
	}
}

func TestLookupDoesNotAllocate(t *testing.T) {
	a := openTiny(t)
	allocs := testing.AllocsPerRun(100, func() {
		if _, ok := a.Lookup("/c%5B", 2); !ok {
			t.Fatal("not found")
		}
	})
	if allocs != 0 {
		t.Fatalf("Lookup allocates %.1f times per call, want 0", allocs)
	}
}
