package shareddata

import (
	"os"
	"path/filepath"
	"testing"
)

// EnvDataDir names an environment variable that overrides where the shared
// data is looked for.
const EnvDataDir = "DELTAQ_SHARED_DATA"

// Find returns the shared data directory: $DELTAQ_SHARED_DATA if set,
// otherwise the first directory named shared/data found walking up from the
// working directory. It returns "" if there is none.
func Find() string {
	if d := os.Getenv(EnvDataDir); d != "" {
		return d
	}
	dir, err := os.Getwd()
	if err != nil {
		return ""
	}
	for {
		cand := filepath.Join(dir, "shared", "data")
		if st, err := os.Stat(cand); err == nil && st.IsDir() {
			return cand
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return ""
		}
		dir = parent
	}
}

// SharedData returns the shared data directory or fails the test.
func SharedData(tb testing.TB) string {
	tb.Helper()
	d := Find()
	if d == "" {
		tb.Fatalf("shared evaluation data not found: set %s or place it at ../shared/data beside the checkout", EnvDataDir)
	}
	return d
}

// Path joins elements onto the shared data directory, failing the test if
// the result does not exist.
func Path(tb testing.TB, elem ...string) string {
	tb.Helper()
	p := filepath.Join(append([]string{SharedData(tb)}, elem...)...)
	if _, err := os.Stat(p); err != nil {
		tb.Fatalf("shared data: %v", err)
	}
	return p
}
