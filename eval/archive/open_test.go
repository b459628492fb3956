package archive

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/klauspost/compress/zstd"

	"github.com/deltaq/deltaq/eval/archive/archivetest"
)

// blob10 is the blob stream of the hand-written manifests below: two
// 5-byte bodies.
const blob10 = "aaaa\nbbbb\n"

// line formats one manifest line with the hash of blob10[off:off+n], or a
// well-formed one where that is outside blob10.
func line(url string, first, last, off, n int) string {
	hash := "0123456789abcdef"
	if off >= 0 && n >= 0 && off+n <= len(blob10) {
		sum := sha256.Sum256([]byte(blob10[off : off+n]))
		hash = hex.EncodeToString(sum[:8])
	}
	return fmt.Sprintf(`{"url":%q,"first":%d,"last":%d,"hash":%q,"off":%d,"len":%d}`, url, first, last, hash, off, n)
}

// goodMeta is archive.json of a 4-week archive.
func goodMeta(t *testing.T) []byte {
	meta, _, _ := archivetest.Fixture{Name: "bad", Weeks: 4}.Files(t)
	return meta
}

func TestOpenRejectsDamagedArchives(t *testing.T) {
	manifestOf := func(lines ...string) func(t *testing.T, dir string) {
		return func(t *testing.T, dir string) {
			archivetest.WriteFiles(t, dir, goodMeta(t), []byte(strings.Join(lines, "\n")+"\n"), []byte(blob10))
		}
	}
	metaOf := func(meta string) func(t *testing.T, dir string) {
		return func(t *testing.T, dir string) {
			archivetest.WriteFiles(t, dir, []byte(meta), []byte(line("/", 0, 0, 0, 5)+"\n"), []byte(blob10))
		}
	}
	// replace writes a good archive, then overwrites one file with data.
	replace := func(name string, data func(good []byte) []byte) func(t *testing.T, dir string) {
		return func(t *testing.T, dir string) {
			manifestOf(line("/", 0, 3, 0, 5), line("/x", 1, 2, 5, 5))(t, dir)
			path := filepath.Join(dir, name)
			good, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(path, data(good), 0o644); err != nil {
				t.Fatal(err)
			}
		}
	}
	remove := func(name string) func(t *testing.T, dir string) {
		return func(t *testing.T, dir string) {
			manifestOf(line("/", 0, 3, 0, 5))(t, dir)
			if err := os.Remove(filepath.Join(dir, name)); err != nil {
				t.Fatal(err)
			}
		}
	}
	truncate := func(good []byte) []byte { return good[:len(good)/2] }

	cases := []struct {
		name    string
		write   func(t *testing.T, dir string)
		missing bool   // want fs.ErrNotExist rather than ErrCorrupt
		want    string // substring of the message
	}{
		{"a missing archive.json is reported as a missing file", remove(MetaFile), true, "archive.json"},
		{"a missing blob file is reported as a missing file", remove(BlobsFile), true, "blobs.bin.zst"},
		{"a missing manifest is reported as a missing file", remove(ManifestFile), true, "manifest.jsonl.zst"},
		{"archive.json that is not JSON", metaOf(`{"name":`), false, "archive.json: unexpected end of JSON input"},
		{"archive.json without a name", metaOf(`{"weeks":[{"week":0,"date":"2024-01-01"}]}`), false, `"name" is missing`},
		{"archive.json without weeks", metaOf(`{"name":"x","weeks":[]}`), false, `"weeks" has 0 entries`},
		{"archive.json with weeks numbered out of order", metaOf(`{"name":"x","weeks":[{"week":1,"date":"2024-01-01"}]}`), false, `"weeks"[0] has week 1`},
		{"archive.json with a malformed date", metaOf(`{"name":"x","weeks":[{"week":0,"date":"2024-13-01"}]}`), false, `date "2024-13-01"`},
		{"archive.json with dates going backwards", metaOf(`{"name":"x","weeks":[{"week":0,"date":"2024-01-08"},{"week":1,"date":"2024-01-01"}]}`), false, "is not after week 0"},
		{"archive.json with stats of the wrong type", metaOf(`{"name":"x","weeks":[{"week":0,"date":"2024-01-01"}],"stats":{"urls":"many"}}`), false, `"stats"`},
		{"a truncated manifest frame", replace(ManifestFile, truncate), false, "manifest.jsonl.zst: zstd"},
		{"a truncated blob frame", replace(BlobsFile, truncate), false, "blobs.bin.zst: zstd"},
		{"a blob file that is not zstd", replace(BlobsFile, func([]byte) []byte { return []byte("plain text, not zstd") }), false, "blobs.bin.zst: not a zstd stream"},
		{"an empty manifest file", replace(ManifestFile, func([]byte) []byte { return nil }), false, "manifest.jsonl.zst: not a zstd stream"},
		{"a frame with trailing garbage", replace(ManifestFile, func(g []byte) []byte { return append(g, "garbage!"...) }), false, "manifest.jsonl.zst: zstd"},
		{"URLs out of order", manifestOf(line("/b", 0, 0, 0, 5), line("/a", 0, 0, 0, 5)), false, `line 2: url "/a" sorts before the previous line's "/b"`},
		{"intervals of one URL out of week order", manifestOf(line("/a", 2, 3, 0, 5), line("/a", 0, 1, 5, 5)), false, "line 2: url \"/a\": interval starting at week 0 is not after"},
		{"overlapping intervals", manifestOf(line("/a", 0, 2, 0, 5), line("/a", 2, 3, 5, 5)), false, "line 2: url \"/a\": interval [2, 3] overlaps [0, 2]"},
		{"an interval ending before it starts", manifestOf(line("/a", 2, 1, 0, 5)), false, "first week 2 is after last week 1"},
		{"a week outside the archive", manifestOf(line("/a", 0, 4, 0, 5)), false, "last week 4 is outside [0, 4)"},
		{"an offset past the blob stream", manifestOf(line("/a", 0, 0, 11, 0)), false, "body [11, 11+0) is outside the 10 byte blob stream"},
		{"a length running past the blob stream", manifestOf(line("/a", 0, 0, 6, 5)), false, "body [6, 6+5) is outside"},
		{"a negative length", manifestOf(line("/a", 0, 0, 0, -1)), false, `"len" is missing or negative`},
		{"a line without an offset", manifestOf(`{"url":"/a","first":0,"last":0,"hash":"0123456789abcdef","len":5}`), false, `line 1: "off" is missing`},
		{"a line without a hash", manifestOf(`{"url":"/a","first":0,"last":0,"off":0,"len":5}`), false, `"hash" is missing`},
		{"an uppercase hash", manifestOf(`{"url":"/a","first":0,"last":0,"hash":"0123456789ABCDEF","off":0,"len":5}`), false, "must be 16 lowercase hex digits"},
		{"a short hash", manifestOf(`{"url":"/a","first":0,"last":0,"hash":"0123","off":0,"len":5}`), false, "must be 16 lowercase hex digits"},
		{"a relative URL", manifestOf(line("a.html", 0, 0, 0, 5)), false, "must start with /"},
		{"a URL with a raw space", manifestOf(line("/a b", 0, 0, 0, 5)), false, `byte ' ' must be percent-encoded`},
		{"a URL with a query string", manifestOf(line("/a?b", 0, 0, 0, 5)), false, `byte '?' must be percent-encoded`},
		{"a URL with a malformed escape", manifestOf(line("/a%5", 0, 0, 0, 5)), false, "malformed percent escape"},
		{"a line that is not JSON", manifestOf(line("/a", 0, 0, 0, 5), `{"url":`), false, "line 2: unexpected end of JSON input"},
		{"a manifest line over the limit", manifestOf(line("/"+strings.Repeat("a", maxManifestLine), 0, 0, 0, 5)), false, fmt.Sprintf("line 1: %d bytes, over the %d a manifest line may be", maxManifestLine+72, maxManifestLine)},
		{"a blank line inside the manifest", manifestOf(line("/a", 0, 0, 0, 5), "", line("/b", 0, 0, 0, 5)), false, "line 2: empty line"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			tc.write(t, dir)
			a, err := Open(dir)
			if err == nil {
				t.Fatalf("Open succeeded (%v), want an error containing %q", a, tc.want)
			}
			if tc.missing != errors.Is(err, fs.ErrNotExist) || tc.missing == errors.Is(err, ErrCorrupt) {
				t.Errorf("errors.Is(err, fs.ErrNotExist) = %v, errors.Is(err, ErrCorrupt) = %v; want missing = %v",
					errors.Is(err, fs.ErrNotExist), errors.Is(err, ErrCorrupt), tc.missing)
			}
			if !strings.Contains(err.Error(), tc.want) || !strings.HasPrefix(err.Error(), "archive: open "+dir) {
				t.Errorf("error %q\nwant prefix %q and substring %q", err, "archive: open "+dir, tc.want)
			}
		})
	}
}

func TestOpenAcceptsEdgeCases(t *testing.T) {
	cases := []struct {
		name     string
		manifest string
		pages    int // in week 0
	}{
		{"an empty manifest (a site with no pages)", "", 0},
		{"a last line without a newline", line("/", 0, 3, 0, 5), 1},
		{"an empty body at the very end of the blob stream", line("/", 0, 3, 10, 0), 1},
		{"sub-delims and colons in a path", line("/a:b@c!$&'()*+,;=", 0, 0, 0, 5), 1},
		{"unknown fields, for forward compatibility", strings.Replace(line("/", 0, 0, 0, 5), "}", `,"mime":"text/html"}`, 1), 1},
	}
	for _, tc := range cases {
		t.Run("Open accepts "+tc.name, func(t *testing.T) {
			dir := t.TempDir()
			archivetest.WriteFiles(t, dir, goodMeta(t), []byte(tc.manifest), []byte(blob10))
			a, err := Open(dir)
			if err != nil {
				t.Fatalf("Open: %v", err)
			}
			if a.Len(0) != tc.pages {
				t.Fatalf("Len(0) = %d, want %d", a.Len(0), tc.pages)
			}
		})
	}
}

// TestOpenChecksHashes: a body damaged on disk, whose manifest hash no
// longer matches, fails Open rather than being served.
func TestOpenChecksHashes(t *testing.T) {
	t.Run("a body that does not match its hash is corruption", func(t *testing.T) {
		dir := t.TempDir()
		meta, manifest, blob := tiny.Files(t)
		blob[len(blob)-2] = 'X' // b0 → bX: the last distinct body
		archivetest.WriteFiles(t, dir, meta, manifest, blob)
		_, err := Open(dir)
		if !errors.Is(err, ErrCorrupt) || !strings.Contains(err.Error(), `blobs.bin.zst: url "/b" weeks [1, 2]`) {
			t.Fatalf("Open = %v, want a corruption error naming /b", err)
		}
	})
	t.Run("every bad body is counted once, however many intervals share it", func(t *testing.T) {
		dir := t.TempDir()
		meta, manifest, blob := tiny.Files(t)
		blob[6] = 'X'  // a0, shared by /a (twice) and /c%5B
		blob[12] = 'X' // b0
		archivetest.WriteFiles(t, dir, meta, manifest, blob)
		if _, err := Open(dir); !errors.Is(err, ErrCorrupt) || !strings.HasSuffix(err.Error(), "(and 1 more mismatches)") {
			t.Fatalf("Open = %v, want the first mismatch and 1 more", err)
		}
	})
}

func FuzzParseManifest(f *testing.F) {
	_, manifest, _ := tiny.Files(f)
	f.Add(manifest, 4, 15)
	f.Add([]byte(line("/a", 0, 2, 0, 5)+"\n"+line("/a", 2, 3, 5, 5)), 4, 10)
	f.Add([]byte(`{"url":"/%zz","first":0}`), 1, 0)
	f.Fuzz(func(t *testing.T, data []byte, weeks, blobLen int) {
		if weeks < 1 || weeks > 64 || blobLen < 0 || blobLen > 1<<20 {
			t.Skip()
		}
		ix, err := parseManifest(data, weeks, blobLen)
		if err != nil {
			if !errors.Is(err, ErrCorrupt) {
				t.Fatalf("error not marked corrupt: %v", err)
			}
			return
		}
		for id, iv := range ix.ivs {
			if int(iv.off)+int(iv.n) > blobLen || int(iv.last) >= weeks || iv.first > iv.last {
				t.Fatalf("interval %d out of bounds: %+v", id, iv)
			}
			if id > 0 {
				prev := ix.ivs[id-1]
				if ix.urls[prev.url] > ix.urls[iv.url] || prev.url == iv.url && prev.last >= iv.first {
					t.Fatalf("intervals %d and %d out of order or overlapping", id-1, id)
				}
			}
		}
		if len(ix.start) != len(ix.urls)+1 || len(ix.hashes) != hashLen*len(ix.ivs) {
			t.Fatalf("index shape: %d urls, %d starts, %d hash bytes, %d intervals", len(ix.urls), len(ix.start), len(ix.hashes), len(ix.ivs))
		}
	})
}

// TestDecompressHoldsToItsLimit: a stream over the limit is refused,
// whether its frame header says so or only its content shows it.
func TestDecompressHoldsToItsLimit(t *testing.T) {
	data := bytes.Repeat([]byte("manifest "), 100_000) // more than a block: streamed, the header has no size
	enc, err := zstd.NewWriter(nil)
	if err != nil {
		t.Fatal(err)
	}
	withSize := enc.EncodeAll(data, nil) // the header gives the content size
	var streamed bytes.Buffer            // the header does not
	w, err := zstd.NewWriter(&streamed)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := w.Write(data); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name string
		comp []byte
		want string
	}{
		{"sized", withSize, "frame content size 900000 exceeds the 899999 byte limit"},
		{"streamed", streamed.Bytes(), "decompressed size exceeds the 899999 byte limit"},
	} {
		if _, err := decompress(tc.comp, uint64(len(data)-1)); !errors.Is(err, ErrCorrupt) || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: decompress over its limit: %v, want %q", tc.name, err, tc.want)
		}
		if got, err := decompress(tc.comp, uint64(len(data))); err != nil || !bytes.Equal(got, data) {
			t.Errorf("%s: decompress at its limit: %d bytes, %v", tc.name, len(got), err)
		}
	}
}
