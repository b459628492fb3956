package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestIndexRebuildRecoversADamagedIndex damages the index of a crawled
// repository: serve stops and says to run index rebuild on the data
// directory, and index rebuild, which used to fail on it the same way,
// builds the index again from the repository and leaves the repository's
// pages as they were.
func TestIndexRebuildRecoversADamagedIndex(t *testing.T) {
	for name, damage := range map[string]struct{ file, content string }{
		"empty metadata":       {"index_meta.json", ""},
		"store not a database": {filepath.Join("store", "root.bolt"), "not a bolt database"},
	} {
		t.Run(name, func(t *testing.T) {
			data, _ := crawlFruit(t, t.TempDir())
			if _, _, err := run(t, "index", "rebuild", "--data", data); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(filepath.Join(indexPath(data), damage.file), []byte(damage.content), 0o644); err != nil {
				t.Fatal(err)
			}

			_, _, err := run(t, "serve", "--data", data, "--listen", "127.0.0.1:0")
			if want := "rebuild it with deltaq index rebuild --data " + data; err == nil || !strings.Contains(err.Error(), want) {
				t.Fatalf("serve on a damaged index: err = %v, want it to say %q", err, want)
			}
			out, _, err := run(t, "index", "rebuild", "--data", data)
			if err != nil || !strings.Contains(out, "rebuilt: 3 documents indexed") {
				t.Fatalf("index rebuild: %v\n%s", err, out)
			}
			if got := searchData(t, data, "cherry"); len(got) != 1 || got[0] != "http://fruit.test/c" {
				t.Errorf("after the rebuild, cherry finds %v, want /c", got)
			}
			if got := fetchedPages(t, data); len(got) != 3 {
				t.Errorf("after the rebuild the repository has %d live pages, want 3", len(got))
			}
		})
	}
}
