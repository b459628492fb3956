package configs

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// FuzzLoad loads any configuration file, with any value for one
// environment variable: the result is a configuration or an error that
// says it is the configuration's, never a panic or both.
//
//	go test ./configs -run '^$' -fuzz FuzzLoad -fuzztime 2m
func FuzzLoad(f *testing.F) {
	files, err := filepath.Glob(filepath.Join("testdata", "*.yaml"))
	if err != nil {
		f.Fatal(err)
	}
	for _, name := range files {
		b, err := os.ReadFile(name)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b, "DELTAQ_CRAWLER_POLITENESS_MIN_DELAY=2s")
	}
	f.Add(DefaultYAML, "DELTAQ_FRONTIER_SPLIT_RECRAWL=-1")
	f.Add([]byte("index:\n  retrieval:\n    k1: .nan\n"), "DELTAQ_WATCH_TICK=1e400h")
	f.Add([]byte("{a: [b, {c: d}]}"), "DELTAQ_RANKING_PROMOTION_R=0x10")
	dir := f.TempDir()
	f.Fuzz(func(t *testing.T, file []byte, env string) {
		path := filepath.Join(dir, "config.yaml")
		if err := os.WriteFile(path, file, 0o600); err != nil {
			t.Fatal(err)
		}
		cfg, err := Load(Sources{File: path, Env: []string{env}})
		if (cfg == nil) == (err == nil) {
			t.Fatalf("config %v and error %v", cfg != nil, err)
		}
		if err != nil && !strings.HasPrefix(err.Error(), "config") {
			t.Fatalf("error %q does not say it is the configuration's", err)
		}
	})
}
