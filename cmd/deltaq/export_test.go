package main

import (
	"bytes"
	"compress/gzip"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/deltaq/deltaq/internal/warc"
)

// TestExportNeverWritesOverItsDataOrAnExistingFile points --out at a table
// of the repository, at the index's metadata and at the table again through
// a symbolic link to the data directory: export refuses each, --force or
// not, naming --out, the path and why, and leaves the files as they were,
// where it used to replace them with the export and break the repository
// and the index. An existing file elsewhere is kept unless --force.
func TestExportNeverWritesOverItsDataOrAnExistingFile(t *testing.T) {
	dir := t.TempDir()
	data, _ := crawlFruit(t, dir)
	if _, _, err := run(t, "index", "rebuild", "--data", data); err != nil {
		t.Fatal(err)
	}
	tables, err := filepath.Glob(filepath.Join(data, repoDir, "*.sst"))
	if err != nil || len(tables) == 0 {
		t.Fatalf("the crawl left no table in %s: %v", filepath.Join(data, repoDir), err)
	}
	link := filepath.Join(dir, "link")
	if err := os.Symlink(data, link); err != nil {
		t.Fatal(err)
	}
	meta := filepath.Join(indexPath(data), "index_meta.json")
	kept := map[string][]byte{}
	for _, f := range []string{tables[0], meta} {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		kept[f] = b
	}
	for _, out := range []string{tables[0], meta, filepath.Join(link, repoDir, filepath.Base(tables[0]))} {
		for _, force := range []bool{false, true} {
			args := []string{"export", "--data", data, "--out", out}
			if force {
				args = append(args, "--force")
			}
			_, _, err := run(t, args...)
			want := "--out " + out + ": inside the data directory " + data
			if err == nil || !strings.Contains(err.Error(), want) {
				t.Errorf("%s: err = %v, want it to say %q", strings.Join(args, " "), err, want)
			}
		}
	}
	for f, b := range kept {
		if got, err := os.ReadFile(f); err != nil || !bytes.Equal(got, b) {
			t.Errorf("%s changed: %v", f, err)
		}
	}
	if got := searchData(t, data, "cherry"); len(got) != 1 {
		t.Errorf("after the refused exports, cherry finds %v, want /c", got)
	}

	// A pipe (as a device would be) is not replaced, --force or not.
	fifo := filepath.Join(dir, "pipe")
	if err := syscall.Mkfifo(fifo, 0o644); err != nil {
		t.Fatal(err)
	}
	if _, _, err := run(t, "export", "--data", data, "--out", fifo, "--force"); err == nil || !strings.Contains(err.Error(), "--out "+fifo+": is not a regular file (p---------)") {
		t.Errorf("export --force over a pipe: %v, want it refused", err)
	}
	if fi, err := os.Lstat(fifo); err != nil || fi.Mode()&fs.ModeNamedPipe == 0 {
		t.Errorf("the pipe after the refused export: %v, %v; want it there still", fi, err)
	}

	out := filepath.Join(dir, "pages.warc")
	if err := os.WriteFile(out, []byte("keep"), 0o644); err != nil {
		t.Fatal(err)
	}
	_, _, err = run(t, "export", "--data", data, "--out", out)
	if want := "--out " + out + ": already exists; give --force to replace it"; err == nil || !strings.Contains(err.Error(), want) {
		t.Errorf("export over an existing file: err = %v, want it to say %q", err, want)
	}
	if b, _ := os.ReadFile(out); string(b) != "keep" {
		t.Errorf("the existing file holds %q, want it kept", b)
	}
	if _, _, err := run(t, "export", "--data", data, "--out", out, "--force"); err != nil {
		t.Fatalf("export --force: %v", err)
	}
	f, err := os.Open(out)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if recs, err := warc.Read(f); err != nil || len(recs) != 4 {
		t.Errorf("export --force wrote %d records (%v), want a warcinfo and 3 responses", len(recs), err)
	}
}

// TestExportCompressesAnOutNamedGzInAnyCase exports to pages.WARC.GZ and
// pages.Jsonl.Gz: both are gzip, holding the warcinfo and the three pages,
// and the three page records. The .gz check used to be case-sensitive, and
// wrote such names uncompressed.
func TestExportCompressesAnOutNamedGzInAnyCase(t *testing.T) {
	dir := t.TempDir()
	data, _ := crawlFruit(t, dir)
	for _, c := range []struct {
		file, format string
		count        func(b []byte) (int, error)
		want         int
	}{
		{"pages.WARC.GZ", "warc", func(b []byte) (int, error) {
			recs, err := warc.Read(bytes.NewReader(b))
			return len(recs), err
		}, 4},
		{"pages.Jsonl.Gz", "jsonl", func(b []byte) (int, error) {
			return strings.Count(string(b), "\n"), nil
		}, 3},
	} {
		out := filepath.Join(dir, c.file)
		if _, _, err := run(t, "export", "--data", data, "--out", out, "--format", c.format); err != nil {
			t.Fatalf("export %s: %v", c.file, err)
		}
		f, err := os.Open(out)
		if err != nil {
			t.Fatal(err)
		}
		defer f.Close()
		zr, err := gzip.NewReader(f)
		if err != nil {
			t.Errorf("%s is not gzip: %v", c.file, err)
			continue
		}
		b, err := io.ReadAll(zr)
		if err != nil {
			t.Fatalf("%s: %v", c.file, err)
		}
		if n, err := c.count(b); err != nil || n != c.want {
			t.Errorf("%s holds %d records (%v), want %d", c.file, n, err, c.want)
		}
	}
}

func TestExportOutDashWritesTheExportToStdoutAndTheSummaryToStderr(t *testing.T) {
	dir := t.TempDir()
	data, _ := crawlFruit(t, dir)
	t.Chdir(dir)
	stdout, stderr, err := run(t, "export", "--data", data, "--out", "-", "--format", "jsonl")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(dir, "-")); !os.IsNotExist(err) {
		t.Errorf("export --out - made a file named -: %v", err)
	}
	if !strings.HasPrefix(stdout, "{") || strings.Contains(stdout, "exported") {
		t.Errorf("stdout holds more than the JSON lines: %q", stdout)
	}
	if !strings.Contains(stderr, "exported") || !strings.Contains(stderr, "to -") {
		t.Errorf("stderr = %q, want the summary", stderr)
	}
}
