// Package replaytest opens archives behind a replay server for the tests of
// the packages that crawl them (crawler, index, cmd/deltaq).
package replaytest

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/deltaq/deltaq/eval/archive"
	"github.com/deltaq/deltaq/eval/archive/archivetest"
	"github.com/deltaq/deltaq/eval/replay"
)

// Open opens the archive in dir and a replay server over it, at week 0.
func Open(tb testing.TB, dir string, opts replay.Options) (*archive.Archive, *replay.Server) {
	tb.Helper()
	a, err := archive.Open(dir)
	if err != nil {
		tb.Fatal(err)
	}
	rs, err := replay.New([]*archive.Archive{a}, opts)
	if err != nil {
		tb.Fatal(err)
	}
	return a, rs
}

// Fixture writes fx as an archive in a temporary directory named fx.Name
// (its host is fx.Name + ".test") and opens it as Open does.
func Fixture(tb testing.TB, fx archivetest.Fixture, opts replay.Options) (*archive.Archive, *replay.Server) {
	tb.Helper()
	dir := filepath.Join(tb.TempDir(), fx.Name)
	if err := os.Mkdir(dir, 0o755); err != nil {
		tb.Fatal(err)
	}
	archivetest.Write(tb, dir, fx)
	return Open(tb, dir, opts)
}
