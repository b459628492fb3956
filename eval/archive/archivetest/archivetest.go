// Package archivetest writes small weekly archives in the on-disk format of
// package archive (the data README, §1), for tests of the archive reader and
// of the code that serves or crawls archives.
//
//	dir := t.TempDir()
//	archivetest.Write(t, dir, archivetest.Fixture{
//		Name: "tiny", Weeks: 3,
//		Intervals: []archivetest.Interval{{URL: "/", First: 0, Last: 2, Body: "<html>home</html>\n"}},
//	})
//	a, err := archive.Open(dir)
package archivetest

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/klauspost/compress/zstd"
)

// Interval is one manifest line before encoding: URL had Body in weeks
// First..Last inclusive.
type Interval struct {
	URL         string
	First, Last int
	Body        string
}

// Fixture describes an archive. Intervals are written in the order given,
// so a test can write an unsorted or overlapping manifest on purpose.
type Fixture struct {
	Name  string
	Weeks int
	// Start is the date of week 0; weeks are 7 days apart. Zero means
	// 2024-01-01.
	Start     time.Time
	Intervals []Interval
}

// Files returns the three files of f, uncompressed: archive.json, the
// manifest (JSON lines) and the blob stream. Identical bodies are stored
// once and shared, as in the real archives.
func (f Fixture) Files(tb testing.TB) (meta, manifest, blob []byte) {
	tb.Helper()
	start := f.Start
	if start.IsZero() {
		start = time.Date(2024, 1, 1, 0, 0, 0, 0, time.UTC)
	}
	type week struct {
		Week   int    `json:"week"`
		Date   string `json:"date"`
		Commit string `json:"commit"`
	}
	weeks := make([]week, f.Weeks)
	for w := range weeks {
		sum := sha256.Sum256([]byte{byte(w), byte(w >> 8)})
		weeks[w] = week{w, start.AddDate(0, 0, 7*w).Format("2006-01-02"), hex.EncodeToString(sum[:20])}
	}
	meta, err := json.Marshal(map[string]any{
		"name":        f.Name,
		"description": "test fixture " + f.Name,
		"source_repo": "https://example.test/" + f.Name,
		"license":     "CC0-1.0",
		"attribution": "test fixture",
		"weeks":       weeks,
		"stats":       map[string]any{"intervals": len(f.Intervals)},
	})
	if err != nil {
		tb.Fatalf("archivetest: %v", err)
	}

	var man, blobs bytes.Buffer
	offsets := map[string]int{}
	for _, iv := range f.Intervals {
		off, ok := offsets[iv.Body]
		if !ok {
			off = blobs.Len()
			offsets[iv.Body] = off
			blobs.WriteString(iv.Body)
		}
		line, err := json.Marshal(struct {
			URL   string `json:"url"`
			First int    `json:"first"`
			Last  int    `json:"last"`
			Hash  string `json:"hash"`
			Off   int    `json:"off"`
			Len   int    `json:"len"`
		}{iv.URL, iv.First, iv.Last, Hash(iv.Body), off, len(iv.Body)})
		if err != nil {
			tb.Fatalf("archivetest: %v", err)
		}
		man.Write(line)
		man.WriteByte('\n')
	}
	return meta, man.Bytes(), blobs.Bytes()
}

// Hash returns the manifest hash of body: the first 16 hex digits of its
// SHA-256.
func Hash(body string) string {
	sum := sha256.Sum256([]byte(body))
	return hex.EncodeToString(sum[:8])
}

// Write writes f into dir as an archive, failing the test on any error.
func Write(tb testing.TB, dir string, f Fixture) {
	tb.Helper()
	meta, manifest, blob := f.Files(tb)
	WriteFiles(tb, dir, meta, manifest, blob)
}

// WriteFiles writes the three files of an archive into dir, compressing
// manifest and blob as single zstd frames. Tests that need a damaged
// archive edit the output of Fixture.Files (or Compress's) before writing.
func WriteFiles(tb testing.TB, dir string, meta, manifest, blob []byte) {
	tb.Helper()
	writeFile(tb, filepath.Join(dir, "archive.json"), meta)
	writeFile(tb, filepath.Join(dir, "manifest.jsonl.zst"), Compress(tb, manifest))
	writeFile(tb, filepath.Join(dir, "blobs.bin.zst"), Compress(tb, blob))
}

// Compress returns data as one zstd frame that records its content size.
func Compress(tb testing.TB, data []byte) []byte {
	tb.Helper()
	enc, err := zstd.NewWriter(nil, zstd.WithEncoderConcurrency(1))
	if err != nil {
		tb.Fatalf("archivetest: zstd writer: %v", err)
	}
	defer enc.Close()
	return enc.EncodeAll(data, nil)
}

func writeFile(tb testing.TB, path string, data []byte) {
	tb.Helper()
	if err := os.WriteFile(path, data, 0o644); err != nil {
		tb.Fatalf("archivetest: %v", err)
	}
}
