package main

import (
	"context"
	"errors"
	"io/fs"
	"net"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/deltaq/deltaq/eval/fanouteval"
	"github.com/deltaq/deltaq/index"
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
	// A directory under a file cannot be made: the request's fault,
	// answered as such, not as the server's.
	afile := filepath.Join(dir, "afile")
	if err := os.WriteFile(afile, []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}
	under := filepath.Join(afile, "bk")
	if _, _, err := run(t, "backup", "--server", srv.adminBase(t), under); err == nil ||
		!strings.Contains(err.Error(), `dir "`+under+`": backup `+under+`: cannot make it`) || !strings.Contains(err.Error(), "not a directory") {
		t.Errorf("a backup into %s: %v, want it refused naming dir", under, err)
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

// fruitPages are three pages for the backup tests.
var fruitPages = []fanouteval.Page{
	{URL: "http://fruit.test/", Host: "fruit.test", Title: "Fruit", Text: "Apples and pears from the orchard."},
	{URL: "http://fruit.test/a", Host: "fruit.test", Title: "Apples", Text: "An apple a day."},
	{URL: "http://fruit.test/c", Host: "fruit.test", Title: "Cherries", Text: "Cherries in June."},
}

// TestABackupThatFailsLeavesNoDirectory backs up with the context already
// cancelled, as SIGINT does: the backup fails, and leaves neither OUT nor
// anything hidden beside it, so the retry into the same OUT succeeds and
// opens as a data directory. A failed backup used to leave OUT, empty or
// half written: a retry was refused, and commands took it for a backup.
// TestABackupThroughASilentServerEnds asks for a backup from a listener
// that accepts and never answers: the command gives up after --timeout,
// naming it, rather than waiting for ever.
func TestABackupThroughASilentServerEnds(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			defer c.Close() // held open, unanswered, until the test ends
		}
	}()
	out := filepath.Join(t.TempDir(), "b")
	_, _, err = run(t, "backup", "--server", "http://"+ln.Addr().String(), "--timeout", "300ms", out)
	if err == nil || !strings.Contains(err.Error(), "no answer to POST /api/v1/backup within 300ms (--timeout)") {
		t.Fatalf("backup through a silent server: %v, want it to give up after --timeout", err)
	}
	if _, _, err := run(t, "backup", "--server", "http://"+ln.Addr().String(), "--timeout", "0s", out); err == nil || !strings.Contains(err.Error(), "--timeout 0s") {
		t.Errorf("backup --timeout 0s: %v, want it refused", err)
	}
}

func TestABackupThatFailsLeavesNoDirectory(t *testing.T) {
	dir := t.TempDir()
	data := filepath.Join(dir, "data")
	fillData(t, data, fruitPages)
	cfg, db := openData(t, data)
	ix, err := index.Open(indexPath(data), cfg.Index, db, index.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := ix.CatchUp(t.Context()); err != nil {
		t.Fatal(err)
	}
	parent := filepath.Join(dir, "backups")
	out := filepath.Join(parent, "b1")
	cancelled, cancel := context.WithCancel(t.Context())
	cancel()
	if err := backupData(cancelled, ix, data, out); !errors.Is(err, context.Canceled) {
		t.Errorf("a cancelled backup: err = %v, want context.Canceled", err)
	}
	if entries, err := os.ReadDir(parent); err != nil || len(entries) != 0 {
		t.Errorf("after the cancelled backup %s holds %v (%v), want nothing", parent, entries, err)
	}
	if err := backupData(t.Context(), ix, data, out); err != nil {
		t.Fatalf("the retry into %s: %v", out, err)
	}
	if err := backupData(t.Context(), ix, data, out); !errors.Is(err, fs.ErrExist) {
		t.Errorf("a backup into the existing %s: err = %v, want fs.ErrExist", out, err)
	}
	ix.Close()
	db.Close()
	if entries, _ := os.ReadDir(parent); len(entries) != 1 || entries[0].Name() != "b1" {
		t.Errorf("after the backup %s holds %v, want b1 alone", parent, entries)
	}
	if fi, err := os.Stat(out); err != nil || fi.Mode().Perm() != 0o755 {
		t.Errorf("%s: %v, %v; want a directory of mode 0755", out, fi, err)
	}
	if got := searchData(t, out, "cherries"); len(got) != 1 {
		t.Errorf("the backup finds %q for cherries, want /c", got)
	}
}

// TestARepositoryCutShortIsRefusedNotCreated gives commands a data
// directory whose repo holds only an OPTIONS file, as a backup killed
// during its checkpoint left: those that read a repository and those that
// make one refuse it, naming the directory, and add nothing to it. They
// used to make an empty database there and report 0 hosts.
func TestARepositoryCutShortIsRefusedNotCreated(t *testing.T) {
	data := filepath.Join(t.TempDir(), "x")
	rdir := filepath.Join(data, repoDir)
	if err := os.MkdirAll(rdir, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(rdir, "OPTIONS-000001"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	for _, args := range [][]string{
		{"hosts", "--data", data},
		{"export", "--data", data, "--out", filepath.Join(t.TempDir(), "x.warc")},
		{"index", "rebuild", "--data", data},
	} {
		_, _, err := run(t, args...)
		if want := rdir + " is not a complete repository"; err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: err = %v, want it to say %q", strings.Join(args, " "), err, want)
		}
	}
	if entries, _ := os.ReadDir(rdir); len(entries) != 1 {
		t.Errorf("%s holds %d files after the refusals, want the OPTIONS file alone", rdir, len(entries))
	}
}

// TestAnIndexCopyCutShortSaysHowToMendIt removes the index's metadata, as
// a backup cut short during the index copy leaves it: index rebuild fails
// saying to remove the index and rebuild, and doing so gives an index
// that finds the pages. The error used to say only that metadata was
// missing.
func TestAnIndexCopyCutShortSaysHowToMendIt(t *testing.T) {
	data := filepath.Join(t.TempDir(), "data")
	fillData(t, data, fruitPages)
	if _, _, err := run(t, "index", "rebuild", "--data", data); err != nil {
		t.Fatal(err)
	}
	if err := os.Remove(filepath.Join(indexPath(data), "index_meta.json")); err != nil {
		t.Fatal(err)
	}
	_, _, err := run(t, "index", "rebuild", "--data", data)
	if want := "remove " + indexPath(data) + " and run deltaq index rebuild"; err == nil || !strings.Contains(err.Error(), want) {
		t.Fatalf("index rebuild over an index without metadata: err = %v, want it to say %q", err, want)
	}
	if err := os.RemoveAll(indexPath(data)); err != nil {
		t.Fatal(err)
	}
	if _, _, err := run(t, "index", "rebuild", "--data", data); err != nil {
		t.Fatalf("index rebuild after removing the index: %v", err)
	}
	if got := searchData(t, data, "cherries"); len(got) != 1 {
		t.Errorf("the rebuilt index finds %q for cherries, want /c", got)
	}
}
