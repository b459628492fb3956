package main

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/deltaq/deltaq/eval/fanouteval"
)

// TestBackupOfARunningServer backs up a running deltaq serve through its
// admin listener, then opens the backup as a data directory: it searches
// as the server did. The public listener offers no backup, and a second
// backup into the same directory is refused.
func TestBackupOfARunningServer(t *testing.T) {
	dir := t.TempDir()
	data := filepath.Join(dir, "data")
	fillData(t, data, []fanouteval.Page{
		{URL: "http://fruit.test/", Host: "fruit.test", Title: "Fruit", Text: "Apples and pears from the orchard."},
		{URL: "http://fruit.test/a", Host: "fruit.test", Title: "Apples", Text: "An apple a day."},
		{URL: "http://fruit.test/c", Host: "fruit.test", Title: "Cherries", Text: "Cherries in June."},
	})
	cfgFile := filepath.Join(dir, "serve.yaml")
	if err := os.WriteFile(cfgFile, []byte("server:\n  admin:\n    listen: 127.0.0.1:0\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	srv := serveNode(t, dir, "serve", "--data", data, "--config", cfgFile)
	want := ranked(srv.search(t, "apple"))
	if len(want) != 2 {
		t.Fatalf("the server finds %q for apple, want / and /a", want)
	}

	backup := filepath.Join(dir, "backup")
	out, _, err := run(t, "backup", "--server", srv.adminBase(t), backup)
	if err != nil || !strings.Contains(out, "backup written by") || !strings.Contains(out, backup) {
		t.Fatalf("backup of the running server: %v\n%s", err, out)
	}
	if _, _, err := run(t, "backup", "--server", srv.adminBase(t), backup); err == nil || !strings.Contains(err.Error(), "dir exists") {
		t.Errorf("a second backup into %s: %v, want it refused", backup, err)
	}
	if _, _, err := run(t, "backup", "--server", srv.base, filepath.Join(dir, "other")); err == nil || !strings.Contains(err.Error(), "admin listener") {
		t.Errorf("a backup through the public listener: %v, want a pointer to the admin listener", err)
	}
	if _, _, err := run(t, "backup", "--server", srv.adminBase(t), "--data", data, filepath.Join(dir, "other")); !errors.Is(err, errDataAndServer) {
		t.Error("a backup given both --server and --data succeeded")
	}
	// A backup inside the data directory would land among the index's
	// own files: refused, with nothing made there.
	inside := filepath.Join(data, "index", "bk")
	if _, _, err := run(t, "backup", "--server", srv.adminBase(t), inside); err == nil || !strings.Contains(err.Error(), "inside the data directory") {
		t.Errorf("a backup into %s: %v, want it refused", inside, err)
	}
	if _, err := os.Stat(inside); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("%s after the refusal: %v, want nothing there", inside, err)
	}

	got := searchData(t, backup, "apple")
	slices.Sort(got)
	if !slices.Equal(got, []string{"http://fruit.test/", "http://fruit.test/a"}) {
		t.Errorf("the backup finds %q for apple, want / and /a", got)
	}
	if got := searchData(t, backup, "cherries"); len(got) != 1 {
		t.Errorf("the backup finds %q for cherries, want /c", got)
	}
}
