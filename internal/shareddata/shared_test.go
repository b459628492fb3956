package shareddata

import (
	"os"
	"path/filepath"
	"testing"
)

func TestFindHonoursTheEnvironmentOverride(t *testing.T) {
	dir := t.TempDir()
	t.Setenv(EnvDataDir, dir)
	if got := Find(); got != dir {
		t.Fatalf("Find() = %q, want %q", got, dir)
	}
}

func TestFindWalksUpToSharedData(t *testing.T) {
	root := t.TempDir()
	data := filepath.Join(root, "shared", "data")
	deep := filepath.Join(root, "main", "a", "b")
	for _, d := range []string{data, deep} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	t.Setenv(EnvDataDir, "")
	t.Chdir(deep)
	if got := Find(); got != data {
		t.Fatalf("Find() = %q, want %q", got, data)
	}
}
