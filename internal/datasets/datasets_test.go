package datasets

import (
	"os"
	"path/filepath"
	"testing"
)

func TestDirHoldsTheCarriedData(t *testing.T) {
	dir := Dir()
	if dir == "" {
		t.Fatal("Dir() = \"\", want the datasets folder")
	}
	for _, p := range []string{
		"README.md",
		"archives/tldr-en/archive.json",
		"archives/digitalgov-2023/manifest.jsonl.zst",
		"querylogs/trec-mq.tsv",
		"ads/obd-item-ctr.tsv",
		"feeds/commit-feeds.tsv.zst",
	} {
		if _, err := os.Stat(filepath.Join(dir, p)); err != nil {
			t.Errorf("%s: %v", p, err)
		}
	}
}

func TestPathJoinsOntoDir(t *testing.T) {
	got := Path(t, "querylogs", "tldr-brew-installs.tsv")
	if want := filepath.Join(Dir(), "querylogs", "tldr-brew-installs.tsv"); got != want {
		t.Fatalf("Path = %q, want %q", got, want)
	}
}
