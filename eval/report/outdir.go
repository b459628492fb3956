package report

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
)

// OutDir creates dir, and any parent missing, for an evaluation's output.
// The tidy it returns removes again, deepest first, the directories OutDir
// created that are still empty: an evaluation interrupted before it wrote
// anything leaves no empty directory behind. A directory that was there
// before, or that holds a file, is never removed (os.Remove refuses a
// directory that is not empty).
//
//	tidy, err := report.OutDir(out)
//	if err != nil { return err }
//	defer tidy() // a no-op once the report is in out
func OutDir(dir string) (tidy func(), err error) {
	var created []string // the missing directories, deepest first
	for d := filepath.Clean(dir); ; d = filepath.Dir(d) {
		if _, err := os.Stat(d); err == nil || !errors.Is(err, fs.ErrNotExist) {
			break
		}
		created = append(created, d)
		if filepath.Dir(d) == d {
			break
		}
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return func() {}, fmt.Errorf("report: %w", err)
	}
	return func() {
		for _, d := range created {
			if os.Remove(d) != nil {
				return // not empty, or gone: its parents are not empty either
			}
		}
	}, nil
}
