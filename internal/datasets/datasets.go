package datasets

import (
	"os"
	"path/filepath"
	"runtime"
	"testing"
)

// Dir returns the datasets folder at the module root, or "" if this
// package was built without its source (a binary moved elsewhere).
func Dir() string {
	_, file, _, ok := runtime.Caller(0)
	if !ok {
		return ""
	}
	// file is <root>/internal/datasets/datasets.go.
	dir := filepath.Join(filepath.Dir(file), "..", "..", "datasets")
	if st, err := os.Stat(dir); err != nil || !st.IsDir() {
		return ""
	}
	return filepath.Clean(dir)
}

// Path joins elem onto the datasets folder and fails the test if the
// result does not exist.
func Path(tb testing.TB, elem ...string) string {
	tb.Helper()
	dir := Dir()
	if dir == "" {
		tb.Fatalf("datasets: the datasets folder beside go.mod is missing")
	}
	p := filepath.Join(append([]string{dir}, elem...)...)
	if _, err := os.Stat(p); err != nil {
		tb.Fatalf("datasets: %v", err)
	}
	return p
}
