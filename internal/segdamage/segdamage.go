// Package segdamage damages an index's segment files in place, for the
// tests that check what a server does when its index goes bad while it
// serves: a stray write or a bad sector, not a file cut short.
package segdamage

import (
	"os"
	"path/filepath"
	"testing"
)

// footer is the length of zap's footer, kept so that the file still
// opens: it locates the rest.
const footer = 20

// Overwrite overwrites every byte of each segment file of the index in
// dir but its footer, in place: the file keeps its length, and an index
// that opened it sound reads the new bytes through its memory mapping.
func Overwrite(t testing.TB, dir string) {
	t.Helper()
	for _, s := range list(t, dir) {
		st, err := os.Stat(s)
		if err != nil {
			t.Fatal(err)
		}
		junk := make([]byte, st.Size()-footer)
		for i := range junk {
			junk[i] = byte(0xA5 ^ i)
		}
		f, err := os.OpenFile(s, os.O_WRONLY, 0)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := f.WriteAt(junk, 0); err != nil {
			t.Fatal(err)
		}
		if err := f.Close(); err != nil {
			t.Fatal(err)
		}
	}
}

// Stray overwrites a few bytes inside the first segment file of the index
// in dir, as a single stray write would: the file keeps its length and
// its footer, so only its checksum tells. It returns the file's path.
func Stray(t testing.TB, dir string) string {
	t.Helper()
	segment := list(t, dir)[0]
	f, err := os.OpenFile(segment, os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.WriteAt([]byte("stray bytes"), 40); err != nil {
		t.Fatal(err)
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
	return segment
}

// list is the segment files of the index in dir, at least one.
func list(t testing.TB, dir string) []string {
	t.Helper()
	segments, err := filepath.Glob(filepath.Join(dir, "store", "*.zap"))
	if err != nil || len(segments) == 0 {
		t.Fatalf("segments of %s: %v, %v", dir, segments, err)
	}
	return segments
}
